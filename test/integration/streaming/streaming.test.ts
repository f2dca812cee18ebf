/**
 * Streaming (GET /api/client/streaming, server-sent events) and deltas (GET /api/client/delta)
 * for server SDKs, on a listening server: revisions that never skip a change committed out of
 * id order, each change once, Last-Event-ID replays, refusals, bounds.
 */
import net from 'node:net'
import pg from 'pg'
import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { ADMIN_SECRET, auth, buildTestApp, createFeature, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { revisionBelow } from '../../../src/streaming/streaming.store.js'
import { openSse, type SseStream } from '../../helpers/sse.js'
import { requests } from '../../helpers/requests.js'

const t = useTestApp({ STREAMING_MAX_CONNECTIONS_PER_TOKEN: '3', STREAMING_KEEPALIVE_MS: '200', STREAMING_MAX_BUFFER_BYTES: '65536' })
let base = ''
let clientSecret = ''
const open: SseStream[] = []

const { clientToken, frontendToken } = requests(t)

beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
  clientSecret = await clientToken()
})
afterAll(() => {
  for (const s of open) s.close()
})

const delta = (secret: string, ifNoneMatch?: string, query = '') =>
  t.app.inject({ method: 'GET', url: `/api/client/delta${query}`, headers: { authorization: secret, ...(ifNoneMatch !== undefined && { 'if-none-match': ifNoneMatch }) } })

const toggle = (feature: string, state: 'on' | 'off', env = 'development') =>
  t.app.inject({ method: 'POST', url: `/api/admin/projects/default/features/${feature}/environments/${env}/${state}`, headers: auth() })

async function stream (secret = clientSecret, headers: Record<string, string> = {}) {
  const s = await openSse(`${base}/api/client/streaming`, { authorization: secret, ...headers })
  open.push(s)
  return s
}

/** The revision of the current state, read through the delta route. */
const currentRevision = async () => (await delta(clientSecret)).headers.etag as string

/**
 * The revision once it covers every event committed so far: a transaction of this database
 * that began earlier and is still running (the app's own background work) holds the watermark
 * below an event just committed for a moment, as it must (see docs/streaming.md).
 */
async function settledRevision () {
  const all = `"${await revisionBelow(t.database.db, 9223372036854775807n)}"`
  for (let i = 0; i < 1000; i++) {
    const etag = await currentRevision()
    if (etag === all) return etag
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error('the revision never covered every event')
}

describe('GET /api/client/delta', () => {
  it('answers a hydration with the revision as ETag, 304 for it, then exactly the features that changed', async () => {
    const feature = await createFeature(t.app)
    await settledRevision()
    const first = await delta(clientSecret)
    expect(first.statusCode).toBe(200)
    const etag = first.headers.etag as string
    expect(etag).toMatch(/^"[1-9][0-9]*"$/)
    const [hydration] = json(first).events
    expect(hydration.type).toBe('hydration')
    expect(hydration.eventId).toBe(Number(etag.slice(1, -1)))
    const served = await t.app.inject({ method: 'GET', url: '/api/client/features', headers: { authorization: clientSecret, 'unleash-client-spec': '5.2.0' } })
    expect(hydration.features).toEqual(json(served).features)
    expect(hydration.segments).toEqual(json(served).segments)

    expect((await delta(clientSecret, etag)).statusCode).toBe(304)
    expect((await delta(clientSecret, `W/${etag}`)).statusCode).toBe(304)
    expect((await delta(clientSecret, etag.slice(1, -1))).statusCode).toBe(304)

    expect((await toggle(feature, 'on')).statusCode).toBe(200)
    await settledRevision()
    const next = await delta(clientSecret, etag)
    expect(next.statusCode).toBe(200)
    const after = await t.app.inject({ method: 'GET', url: '/api/client/features', headers: { authorization: clientSecret, 'unleash-client-spec': '5.2.0' } })
    const now = json(after).features.find((f: { name: string }) => f.name === feature)
    expect(json(next).events).toEqual([{ type: 'feature-updated', eventId: Number((next.headers.etag as string).slice(1, -1)), feature: now }])
    expect(now.enabled).toBe(true)
    expect(BigInt((next.headers.etag as string).slice(1, -1))).toBeGreaterThan(BigInt(etag.slice(1, -1)))
  })

  it('a change in another environment or in a project the token does not read is not sent; an archived feature is removed', async () => {
    const feature = await createFeature(t.app)
    const etag = await settledRevision()
    expect((await toggle(feature, 'on', 'production')).statusCode).toBe(200)
    await settledRevision()
    const other = await delta(clientSecret, etag)
    expect(other.statusCode).toBe(200)
    expect(json(other).events).toEqual([])
    const archived = await t.app.inject({ method: 'DELETE', url: `/api/admin/projects/default/features/${feature}`, headers: auth() })
    expect(archived.statusCode).toBe(202)
    await settledRevision()
    const removed = await delta(clientSecret, other.headers.etag as string)
    expect(json(removed).events).toEqual([{ type: 'feature-removed', eventId: expect.any(Number), featureName: feature, project: 'default' }])
  })

  it('a revision the database never gave out, one ahead of it, or no revision at all gets a hydration, never 304', async () => {
    const etag = await settledRevision()
    const ahead = `"${BigInt(etag.slice(1, -1)) + 1000n}"`
    for (const sent of [ahead, '"2"', '"abc"', '"-1"', '"99999999999999999999"', '*']) {
      const res = await delta(clientSecret, sent)
      expect(res.statusCode, sent).toBe(200)
      expect(json(res).events.map((e: { type: string }) => e.type), sent).toEqual(['hydration'])
      expect(res.headers.etag).toBe(etag)
    }
  })

  it('refuses no token (401), an admin or frontend token (403)', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/client/delta' })).statusCode).toBe(401)
    expect((await delta(ADMIN_SECRET)).statusCode).toBe(403)
    expect((await delta(await frontendToken())).statusCode).toBe(403)
  })
})

describe('revisions', () => {
  it('an event committed after another with a larger id is not skipped (no sleep: the transactions are held open)', async () => {
    const [a, b] = [await createFeature(t.app), await createFeature(t.app)]
    const before = await settledRevision()
    const first = new pg.Client({ connectionString: t.databaseUrl })
    const second = new pg.Client({ connectionString: t.databaseUrl })
    await first.connect()
    await second.connect()
    const enable = async (client: pg.Client, feature: string) => {
      await client.query("UPDATE feature_environments SET enabled = true WHERE feature_name = $1 AND environment_name = 'development'", [feature])
      const { rows } = await client.query("INSERT INTO events (type, created_by, project, feature_name, environment) VALUES ('feature-environment-enabled', 'test', 'default', $1, 'development') RETURNING id", [feature])
      return Number(rows[0].id)
    }
    try {
      await first.query('BEGIN')
      await second.query('BEGIN')
      const idA = await enable(first, a)
      const idB = await enable(second, b)
      expect(idB).toBeGreaterThan(idA)
      await second.query('COMMIT')
      // b's event (the larger id) is committed, a's is not: a reader that took "everything after
      // the last id" would move past a's id now. The revision does not move.
      expect(await currentRevision()).toBe(before)
      expect((await delta(clientSecret, before)).statusCode).toBe(304)
      await first.query('COMMIT')
      await settledRevision()
      const res = await delta(clientSecret, before)
      expect(res.statusCode).toBe(200)
      const events = json(res).events as { type: string; feature: { name: string; enabled: boolean } }[]
      expect(events.map((e) => [e.type, e.feature.name, e.feature.enabled]).sort()).toEqual([['feature-updated', a, true], ['feature-updated', b, true]].sort())
    } finally {
      await first.end()
      await second.end()
    }
  })
})

describe('revisions and other databases', () => {
  it('a transaction running in another database on the same server holds nothing back', async () => {
    const other = new pg.Client({ connectionString: inject('postgresUrl') })
    await other.connect()
    try {
      await settledRevision()
      await other.query('BEGIN')
      // Given a transaction id now, older than any this database gives out below.
      await other.query('SELECT pg_current_xact_id()')
      const feature = await createFeature(t.app)
      const all = `"${await revisionBelow(t.database.db, 9223372036854775807n)}"`
      expect(await currentRevision()).toBe(all)
      const res = await delta(clientSecret)
      expect(json(res).events[0].features.map((f: { name: string }) => f.name)).toContain(feature)
    } finally {
      await other.query('ROLLBACK').catch(() => {})
      await other.end()
    }
  })
})

describe('GET /api/client/streaming', () => {
  it('connects with a hydration, sends each change once with a growing id, and keep-alive comments', async () => {
    const s = await stream()
    expect(s.status).toBe(200)
    expect(s.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    const connected = await s.next()
    expect(connected.event).toBe('unleash-connected')
    expect(connected.json.events).toHaveLength(1)
    expect(connected.json.events[0].type).toBe('hydration')
    expect(connected.id).toBe(String(connected.json.events[0].eventId))
    const feature = await createFeature(t.app)
    const created = await s.next()
    expect(created.event).toBe('unleash-updated')
    expect(created.json.events).toEqual([{ type: 'feature-updated', eventId: expect.any(Number), feature: expect.objectContaining({ name: feature, enabled: false }) }])
    expect(BigInt(created.id!)).toBeGreaterThan(BigInt(connected.id!))
    await toggle(feature, 'on')
    const on = await s.next()
    expect(on.json.events).toEqual([{ type: 'feature-updated', eventId: Number(on.id), feature: expect.objectContaining({ name: feature, enabled: true }) }])
    expect(BigInt(on.id!)).toBeGreaterThan(BigInt(created.id!))
    const comments = s.comments
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(s.comments).toBeGreaterThan(comments)
    expect(s.events).toHaveLength(3)
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' })
    expect(metrics.body).toMatch(new RegExp(`^streaming_streams ${t.app.streams.size}$`, 'm'))
    expect(t.app.streams.size).toBeGreaterThanOrEqual(1)
    expect(metrics.body).toMatch(/^change_feed_listening 1$/m)
    s.close()
  })

  it('Last-Event-ID replays exactly the missed changes; the current one replays nothing; an unknown one hydrates', async () => {
    const s = await stream()
    const connected = await s.next()
    const held = connected.id!
    s.close()
    const [x, y] = [await createFeature(t.app), await createFeature(t.app)]
    await toggle(x, 'on')
    await settledRevision()
    const again = await stream(clientSecret, { 'last-event-id': held })
    const replay = await again.next()
    expect(replay.event).toBe('unleash-connected')
    expect(replay.json.events.map((e: { type: string; feature: { name: string } }) => [e.type, e.feature.name])).toEqual([['feature-updated', y], ['feature-updated', x]])
    expect(replay.json.events.find((e: { feature: { name: string } }) => e.feature.name === x).feature.enabled).toBe(true)
    again.close()
    const current = await stream(clientSecret, { 'last-event-id': replay.id! })
    expect((await current.next()).json).toEqual({ events: [] })
    current.close()
    const unknown = await stream(clientSecret, { 'last-event-id': String(BigInt(replay.id!) + 7n) })
    expect((await unknown.next()).json.events.map((e: { type: string }) => e.type)).toEqual(['hydration'])
    unknown.close()
  })

  it('refuses no token (401), an admin or frontend token (403), and a stream past the per-token cap (429)', async () => {
    const none = await openSse(`${base}/api/client/streaming`)
    expect(none.status).toBe(401)
    expect(JSON.parse(none.body).name).toBe('AuthenticationRequired')
    expect((await openSse(`${base}/api/client/streaming`, { authorization: ADMIN_SECRET })).status).toBe(403)
    expect((await openSse(`${base}/api/client/streaming`, { authorization: await frontendToken() })).status).toBe(403)
    const capped = await clientToken()
    const held = [await stream(capped), await stream(capped), await stream(capped)]
    for (const s of held) await s.next()
    const refused = await openSse(`${base}/api/client/streaming`, { authorization: capped })
    expect(refused.status).toBe(429)
    expect(JSON.parse(refused.body).name).toBe('TooManyRequestsError')
    held[0]!.close()
    // Once the server has seen the close, the token may open one more.
    let admitted = refused
    for (let i = 0; i < 200 && admitted.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
      admitted = await openSse(`${base}/api/client/streaming`, { authorization: capped })
      if (admitted.status === 200) open.push(admitted)
    }
    expect(admitted.status).toBe(200)
  })
})

describe('segments and wide changes', () => {
  it('a segment arrives before the feature that starts using it; its changes and removal follow', async () => {
    const feature = await createFeature(t.app)
    const made = await t.app.inject({ method: 'POST', url: '/api/admin/segments', headers: auth(), payload: { name: uniqueName('seg'), constraints: [{ contextName: 'userId', operator: 'IN', values: ['a'] }] } })
    expect(made.statusCode, made.body).toBe(201)
    const segment = json(made)
    const s = await stream()
    await s.next()
    const strategies = `/api/admin/projects/default/features/${feature}/environments/development/strategies`
    const added = await t.app.inject({ method: 'POST', url: strategies, headers: auth(), payload: { name: 'default', segments: [segment.id] } })
    expect(added.statusCode, added.body).toBe(200)
    const used = await s.next()
    expect(used.json.events.map((e: { type: string }) => e.type)).toEqual(['segment-updated', 'feature-updated'])
    expect(used.json.events[0].segment).toEqual({ id: segment.id, name: segment.name, constraints: [{ contextName: 'userId', operator: 'IN', values: ['a'] }] })
    expect(used.json.events[1].feature.strategies[0].segments).toEqual([segment.id])
    const changed = await t.app.inject({ method: 'PUT', url: `/api/admin/segments/${segment.id}`, headers: auth(), payload: { name: segment.name, constraints: [{ contextName: 'userId', operator: 'IN', values: ['b'] }] } })
    expect(changed.statusCode, changed.body).toBe(204)
    const update = await s.next()
    expect(update.json.events).toEqual([{ type: 'segment-updated', eventId: Number(update.id), segment: { id: segment.id, name: segment.name, constraints: [{ contextName: 'userId', operator: 'IN', values: ['b'] }] } }])
    const removed = await t.app.inject({ method: 'DELETE', url: `${strategies}/${json(added).id}`, headers: auth() })
    expect(removed.statusCode).toBe(200)
    expect((await s.next()).json.events.map((e: { type: string }) => e.type)).toEqual(['feature-updated'])
    const deleted = await t.app.inject({ method: 'DELETE', url: `/api/admin/segments/${segment.id}`, headers: auth() })
    expect(deleted.statusCode).toBe(204)
    expect((await s.next()).json.events).toEqual([{ type: 'segment-removed', eventId: expect.any(Number), segmentId: segment.id }])
    s.close()
  })

  it('an environment added to a project (features served without being named) is sent as a hydration', async () => {
    const environment = uniqueName('env')
    expect((await t.app.inject({ method: 'POST', url: '/api/admin/environments', headers: auth(), payload: { name: environment, type: 'test' } })).statusCode).toBe(201)
    const feature = await createFeature(t.app)
    const secret = await clientToken(environment)
    const s = await stream(secret)
    expect((await s.next()).json.events[0].features).toEqual([])
    const enabled = await t.app.inject({ method: 'POST', url: '/api/admin/projects/default/environments', headers: auth(), payload: { environment } })
    expect(enabled.statusCode, enabled.body).toBeLessThan(300)
    const update = await s.next()
    expect(update.json.events.map((e: { type: string }) => e.type)).toEqual(['hydration'])
    expect(update.json.events[0].features.map((f: { name: string }) => f.name)).toContain(feature)
    s.close()
  })
})

describe('bounds', () => {
  it('a reader that takes nothing is dropped once more than STREAMING_MAX_BUFFER_BYTES waits for it; the others get every change', async () => {
    const feature = await createFeature(t.app)
    // A variant payload of 200 kB: every update of this feature is that large.
    const big = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/projects/default/features/${feature}/environments/development/variants`,
      headers: auth(),
      payload: [{ op: 'add', path: '/-', value: { name: 'big', weight: 0, payload: { type: 'string', value: 'x'.repeat(200_000) } } }],
    })
    expect(big.statusCode).toBe(200)
    const healthy = await stream()
    await healthy.next()
    const port = (t.app.server.address() as net.AddressInfo).port
    const slow = net.connect(port, '127.0.0.1')
    await once(slow, 'connect')
    slow.write(`GET /api/client/streaming HTTP/1.1\r\nHost: x\r\nAuthorization: ${clientSecret}\r\nAccept: text/event-stream\r\n\r\n`)
    slow.pause() // reads nothing from now on
    const dropped = t.app.streams.stats.dropped
    let changes = 0
    for (; changes < 200 && t.app.streams.stats.dropped === dropped; changes++) {
      await toggle(feature, changes % 2 === 0 ? 'on' : 'off')
      // Each change reaches the healthy reader before the next is made.
      const update = await healthy.next()
      expect(update.json.events[0].feature.name).toBe(feature)
    }
    expect(t.app.streams.stats.dropped).toBe(dropped + 1)
    // The server closed it: its socket ends once what was buffered is read.
    slow.resume()
    slow.on('data', () => {})
    await once(slow, 'close')
    expect(changes).toBeGreaterThan(1)
  })

  it('deleting the token ends its streams; the streams of other tokens go on', async () => {
    const name = uniqueName('doomed')
    const doomed = await stream(await clientToken('development', undefined, name))
    const kept = await stream()
    await doomed.next()
    await kept.next()
    expect((await t.app.inject({ method: 'DELETE', url: `/api/admin/api-tokens/${name}`, headers: auth() })).statusCode).toBe(200)
    await doomed.done
    const feature = await createFeature(t.app)
    expect((await kept.next()).json.events[0].feature.name).toBe(feature)
    expect(kept.ended).toBe(false)
    kept.close()
  })

  it("a stream ends when its token's expiry passes, and when its expiry changes (the SDK connects again, checked afresh)", async () => {
    const expiring = json(await t.app.inject({
      method: 'POST',
      url: '/api/admin/api-tokens',
      headers: auth(),
      payload: { tokenName: uniqueName('expiring'), type: 'client', environment: 'development', expiresAt: new Date(Date.now() + 1000).toISOString() },
    })).secret as string
    const short = await stream(expiring)
    await short.next()
    await short.done
    expect((await t.app.inject({ method: 'GET', url: '/api/client/features', headers: auth(expiring) })).statusCode).toBe(401)

    const later = await clientToken()
    const changed = await stream(later)
    await changed.next()
    const put = await t.app.inject({ method: 'PUT', url: `/api/admin/api-tokens/${encodeURIComponent(later)}`, headers: auth(), payload: { expiresAt: '2099-01-01T00:00:00Z' } })
    expect(put.statusCode).toBe(200)
    await changed.done
  })

  it('STREAMING_MAX_CONNECTIONS streams per instance; one more is 429', async () => {
    const small = await buildTestApp({ STREAMING_MAX_CONNECTIONS: '2' })
    try {
      await small.app.listen({ port: 0, host: '127.0.0.1' })
      const url = `http://127.0.0.1:${(small.app.server.address() as net.AddressInfo).port}/api/client/streaming`
      const secret = await requests(small).clientToken('development', undefined, 'sdk')
      const held = [await openSse(url, { authorization: secret }), await openSse(url, { authorization: secret })]
      for (const s of held) expect((await s.next()).event).toBe('unleash-connected')
      const refused = await openSse(url, { authorization: secret })
      expect(refused.status).toBe(429)
      expect(refused.headers['retry-after']).toBe('60')
      expect(JSON.parse(refused.body).detail).toContain('STREAMING_MAX_CONNECTIONS')
      for (const s of held) s.close()
    } finally {
      await small.close()
    }
  })

  it('closing the app ends every stream (as SIGTERM does after SHUTDOWN_DELAY_MS)', async () => {
    const closing = await buildTestApp()
    await closing.app.listen({ port: 0, host: '127.0.0.1' })
    const url = `http://127.0.0.1:${(closing.app.server.address() as net.AddressInfo).port}/api/client/streaming`
    const s = await openSse(url, { authorization: await requests(closing).clientToken('development', undefined, 'sdk') })
    await s.next()
    await closing.close()
    await s.done
    expect(s.ended).toBe(true)
  })
})
