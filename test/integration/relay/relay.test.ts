/**
 * A relay in front of this server, as SDKs, operators and attackers see it: readiness, tokens
 * (TOKENS, unknown ones checked once upstream, refusals as Unleash answers them, a token deleted
 * upstream refused at once, frontend tokens served from a covering client token or 511), ETags
 * and 304s, delta, streaming, no admin API, /edge/validate answered by asking the upstream, a
 * chain of two relays, its Prometheus metrics, and browser SDKs' usage sent upstream in batches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_SECRET, createFeature, expectProblem, uniqueName, useTestApp } from '../../helpers/app.js'
import { listen } from '../../helpers/people.js'
import { eventually } from '../../helpers/eventually.js'
import { countingProxy, startRelay, type TestRelay } from '../../helpers/relay.js'
import { requests } from '../../helpers/requests.js'
import { openSse } from '../../helpers/sse.js'

const t = useTestApp()
const { clientToken, frontendToken, admin } = requests(t)
let upstream = ''
let relay: TestRelay
let client = ''
let frontend = ''
const relays: TestRelay[] = []

beforeAll(async () => {
  upstream = await listen(t)
  client = await clientToken('development')
  frontend = await frontendToken('development', ['default'])
  relay = await startRelay(upstream, { TOKENS: `${client},${frontend}` })
  relays.push(relay)
})
afterAll(async () => {
  for (const r of relays) await r.close()
})

interface Answer { status: number; body: any; text: string; headers: Headers }

async function call (base: string, method: string, path: string, secret?: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(secret !== undefined && { authorization: secret }), ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  let parsed: unknown
  try { parsed = JSON.parse(text) } catch { parsed = undefined }
  return { status: res.status, body: parsed, text, headers: res.headers }
}

const on = (feature: string, environment = 'development') =>
  admin.post(`/api/admin/projects/default/features/${feature}/environments/${environment}/on`)

/** Until the relay answers the client API with `check` holding for the token. */
const untilRelayHas = (secret: string, check: (features: any[]) => boolean, base = relay.url) =>
  eventually(async () => {
    const res = await call(base, 'GET', '/api/client/features', secret)
    return res.status === 200 && check(res.body.features)
  }, 'the relay serves the change')

const SDK_ROUTES: [string, string, unknown?][] = [
  ['GET', '/api/client/features'],
  ['GET', '/api/client/delta'],
  ['GET', '/api/client/streaming'],
  ['POST', '/api/client/register', { appName: 'a', instanceId: 'i', strategies: [], started: new Date().toISOString(), interval: 1000 }],
  ['POST', '/api/client/metrics', { appName: 'a', instanceId: 'i', bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles: {} } }],
  ['POST', '/api/client/metrics/bulk', { applications: [], metrics: [] }],
  ['GET', '/api/frontend'],
  ['POST', '/api/frontend', { context: {} }],
  ['POST', '/api/frontend/client/metrics', { appName: 'a', instanceId: 'i', bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles: {} } }],
  ['POST', '/api/frontend/client/register', { appName: 'a', interval: 1000, started: 0, strategies: [] }],
  ['POST', '/ofrep/v1/evaluate/flags', { context: {} }],
  ['POST', '/ofrep/v1/evaluate/flags/some-flag', { context: {} }],
]

describe('readiness', () => {
  it('/health is 200 while the relay waits for its upstream; /ready is 503 until every token of TOKENS is served', async () => {
    const down = await startRelay('http://127.0.0.1:9', { TOKENS: client }, { ready: false })
    relays.push(down)
    expect((await call(down.url, 'GET', '/health')).body).toEqual({ status: 'ok' })
    await new Promise((resolve) => setTimeout(resolve, 300))
    const waiting = await call(down.url, 'GET', '/ready')
    expect(waiting.status).toBe(503)
    expect(waiting.body.detail).toMatch(/Waiting for the flags of 1 token\(s\) of TOKENS/)
    // Until then, its tokens cannot be checked: 503, never a 200 with nothing in it.
    expect((await call(down.url, 'GET', '/api/client/features', client)).status).toBe(503)
    const ready = await call(relay.url, 'GET', '/ready')
    expect(ready.status).toBe(200)
    expect(ready.body).toMatchObject({ status: 'ready', upstream: { url: upstream, state: 'connected', streaming: true }, scopes: 1 })
  })

  it('a token of TOKENS the upstream does not know is left out of readiness, and refused', async () => {
    const other = await startRelay(upstream, { TOKENS: `${client},*:development.not-a-token` })
    relays.push(other)
    expect((await call(other.url, 'GET', '/ready')).status).toBe(200)
    expectProblem(asInject(await call(other.url, 'GET', '/api/client/features', '*:development.not-a-token')), 401, 'UnauthorizedError')
  })
})

/** A fetch answer as expectProblem reads an inject answer (OFREP's refusals are application/json: read as the problem body). */
const asInject = (a: Answer) => {
  const headers = Object.fromEntries(a.headers)
  if (String(headers['content-type']).startsWith('application/json') && a.body?.type?.startsWith('urn:')) headers['content-type'] = 'application/problem+json'
  return { statusCode: a.status, body: a.text, json: () => a.body, headers } as never
}

describe('tokens', () => {
  it('missing, malformed or unknown: 401 on every SDK route, as Unleash answers; admin tokens 403', async () => {
    for (const [method, path, body] of SDK_ROUTES) {
      expectProblem(asInject(await call(relay.url, method, path, undefined, body)), 401, 'AuthenticationRequired')
      for (const secret of ['nope', '*:development.0000', 'x'.repeat(2000), 'bad token with spaces']) {
        expectProblem(asInject(await call(relay.url, method, path, secret, body)), 401, 'UnauthorizedError')
      }
      expectProblem(asInject(await call(relay.url, method, path, ADMIN_SECRET, body)), 403, 'PermissionError')
    }
  })

  it('an unknown token is checked once with the upstream, then served from memory', async () => {
    // Tokens are checked again every REFRESH_INTERVAL (at most 30 s): long enough here to count the first checks alone.
    const quiet = await startRelay(upstream, { TOKENS: client, REFRESH_INTERVAL: '60' })
    relays.push(quiet)
    const validations = () => quiet.app.relay.upstream.requests.validate
    const secret = await clientToken('production')
    const feature = await createFeature(t.app)
    await on(feature, 'production')
    const before = validations()
    const first = await call(quiet.url, 'GET', '/api/client/features', secret)
    expect(first.status).toBe(200)
    expect(first.body.features.find((f: any) => f.name === feature)?.enabled).toBe(true)
    expect(first.body.query.environment).toBe('production')
    for (let i = 0; i < 5; i++) expect((await call(quiet.url, 'GET', '/api/client/features', secret)).status).toBe(200)
    expect(validations()).toBe(before + 1)
    // An unknown secret is asked about once, then refused from memory for a while.
    for (let i = 0; i < 5; i++) expect((await call(quiet.url, 'GET', '/api/client/features', `${secret}0`)).status).toBe(401)
    expect(validations()).toBe(before + 2)
    // Concurrent first requests of many unknown tokens share questions to the upstream, one at a time.
    const many = await Promise.all(Array.from({ length: 50 }, (_, i) => call(quiet.url, 'GET', '/api/client/features', `*:development.unknown-${i}`)))
    expect(many.every((a) => a.status === 401)).toBe(true)
    expect(validations() - before - 2).toBeLessThan(10)
  })

  it('a token deleted upstream is refused at the relay at once (its stream ends), long before 60 s', async () => {
    const name = uniqueName('doomed')
    const secret = await clientToken('development', undefined, name)
    expect((await call(relay.url, 'GET', '/api/client/features', secret)).status).toBe(200)
    const stream = await openSse(`${relay.url}/api/client/streaming`, { authorization: secret })
    expect(stream.status).toBe(200)
    await stream.next()
    const deletedAt = Date.now()
    expect((await admin.delete(`/api/admin/api-tokens/${name}`)).statusCode).toBe(200)
    await eventually(async () => (await call(relay.url, 'GET', '/api/client/features', secret)).status === 401, 'the deleted token is refused', 60_000)
    expect(Date.now() - deletedAt).toBeLessThan(5000)
    await stream.done
    expect(stream.ended).toBe(true)
  })

  it('a frontend token is served from a client token of its environment whose projects cover its own; none: 511', async () => {
    const feature = await createFeature(t.app)
    await on(feature)
    await untilRelayHas(client, (f) => f.some((x) => x.name === feature && x.enabled))
    const [up, down] = await Promise.all([call(upstream, 'GET', '/api/frontend?userId=7', frontend), call(relay.url, 'GET', '/api/frontend?userId=7', frontend)])
    expect(down.status).toBe(200)
    expect(down.body).toEqual(up.body)
    expect(down.body.toggles.some((x: any) => x.name === feature)).toBe(true)
    // A frontend token presented later is checked upstream and served too.
    const later = await frontendToken('development')
    expect((await call(relay.url, 'POST', '/ofrep/v1/evaluate/flags', later, { context: { targetingKey: 'u' } })).body).toEqual((await call(upstream, 'POST', '/ofrep/v1/evaluate/flags', later, { context: { targetingKey: 'u' } })).body)
    // Production: no client token of that environment is served here.
    const orphan = await frontendToken('production')
    const refused = await call(relay.url, 'GET', '/api/frontend', orphan)
    expectProblem(asInject(refused), 511, 'MissingClientTokenError')
    expect(refused.body.detail).toMatch(/environment production/)
    expectProblem(asInject(await call(relay.url, 'POST', '/api/frontend/client/metrics', orphan, SDK_ROUTES[8]![2])), 511, 'MissingClientTokenError')
  })

  it('POST /edge/validate at the relay answers by asking its upstream', async () => {
    const res = await call(relay.url, 'POST', '/edge/validate', undefined, { tokens: [client, frontend, 'nope', ADMIN_SECRET] })
    expect(res.status).toBe(200)
    expect(res.body.tokens).toEqual(expect.arrayContaining([
      { token: client, type: 'client', projects: ['*'], environment: 'development' },
      { token: frontend, type: 'frontend', projects: ['default'], environment: 'development' },
      { token: ADMIN_SECRET, type: 'admin', projects: ['*'], environment: '*' },
    ]))
    expect(res.body.tokens).toHaveLength(3)
  })
})

describe('what it serves', () => {
  it('no admin API at all: 404 with a token, 401 without; /edge/issue-token is not served', async () => {
    for (const path of ['/api/admin/projects', '/api/admin/features', '/api/admin/api-tokens', '/edge/issue-token', '/auth/simple/login']) {
      expectProblem(asInject(await call(relay.url, 'GET', path, client)), 404, 'NotFoundError')
      expectProblem(asInject(await call(relay.url, 'POST', path, client, {})), 404, 'NotFoundError')
    }
    expectProblem(asInject(await call(relay.url, 'GET', '/api/admin/projects')), 401, 'AuthenticationRequired')
  })

  it('client features: an ETag, 304 for it, the same bytes as the upstream for every form of the request', async () => {
    const feature = await createFeature(t.app, 'default', uniqueName('etag'))
    await on(feature)
    await untilRelayHas(client, (f) => f.some((x) => x.name === feature && x.enabled))
    for (const query of ['', `?namePrefix=${feature.slice(0, 6)}`, '?project=default', '?project=other']) {
      for (const spec of [{}, { 'unleash-client-spec': '5.2.0' }, { 'unleash-client-spec': '4.1.0' }] as Record<string, string>[]) {
        const [up, down] = await Promise.all([call(upstream, 'GET', `/api/client/features${query}`, client, undefined, spec), call(relay.url, 'GET', `/api/client/features${query}`, client, undefined, spec)])
        expect(down.status).toBe(200)
        expect(down.body).toEqual(up.body)
        const etag = down.headers.get('etag')!
        expect(etag).toMatch(/^".+"$/)
        const again = await call(relay.url, 'GET', `/api/client/features${query}`, client, undefined, { ...spec, 'if-none-match': etag })
        expect([again.status, again.text]).toEqual([304, ''])
        expect((await call(relay.url, 'GET', `/api/client/features${query}`, client, undefined, { ...spec, 'if-none-match': `W/${etag}` })).status).toBe(304)
      }
    }
    // A change moves the ETag.
    const before = (await call(relay.url, 'GET', '/api/client/features', client)).headers.get('etag')!
    await admin.post(`/api/admin/projects/default/features/${feature}/environments/development/off`)
    await untilRelayHas(client, (f) => f.some((x) => x.name === feature && !x.enabled))
    expect((await call(relay.url, 'GET', '/api/client/features', client, undefined, { 'if-none-match': before })).status).toBe(200)
  })

  it('delta: a hydration without If-None-Match, 304 for the current revision, the changes since an older one', async () => {
    const first = await call(relay.url, 'GET', '/api/client/delta', client)
    expect(first.status).toBe(200)
    expect(first.body.events).toHaveLength(1)
    expect(first.body.events[0].type).toBe('hydration')
    const revision = first.headers.get('etag')!
    expect((await call(relay.url, 'GET', '/api/client/delta', client, undefined, { 'if-none-match': revision })).status).toBe(304)
    const feature = await createFeature(t.app)
    await on(feature)
    await untilRelayHas(client, (f) => f.some((x) => x.name === feature && x.enabled))
    const since = await call(relay.url, 'GET', '/api/client/delta', client, undefined, { 'if-none-match': revision })
    expect(since.status).toBe(200)
    expect(since.body.events.map((e: any) => e.type)).not.toContain('hydration')
    expect(since.body.events.filter((e: any) => e.type === 'feature-updated').map((e: any) => e.feature.name)).toContain(feature)
    expect(BigInt(since.headers.get('etag')!.replaceAll('"', ''))).toBeGreaterThan(BigInt(revision.replaceAll('"', '')))
    // The relay's revisions are the upstream's: the same hydration on both, once the relay holds
    // the upstream's revision. It can serve a change a moment before: a streaming round reads
    // the features in a snapshot that can already see a transaction its watermark still holds
    // back; the next round sends that transaction's revision.
    const [up, down] = await eventually(async () => {
      const both = await Promise.all([call(upstream, 'GET', '/api/client/delta', client), call(relay.url, 'GET', '/api/client/delta', client)])
      return both[0].headers.get('etag') === both[1].headers.get('etag') && both
    }, 'the relay holds the upstream\'s revision')
    expect(down.body).toEqual(up.body)
    expect((await call(relay.url, 'GET', '/api/client/delta', client, undefined, { 'if-none-match': '"123456789"' })).body.events[0].type).toBe('hydration')
  })

  it('streaming: a hydration, then each change once, with the upstream\'s revisions; Last-Event-ID replays what was missed', async () => {
    const stream = await openSse(`${relay.url}/api/client/streaming`, { authorization: client })
    try {
      const connected = await stream.next()
      expect(connected.event).toBe('unleash-connected')
      expect(connected.json.events[0].type).toBe('hydration')
      const feature = await createFeature(t.app)
      // The revision of the previous test's last change can still be on its way (see delta):
      // each update comes once, with a larger revision, until the one that names this feature.
      let updated = await stream.next()
      for (let previous = connected; ; previous = updated, updated = await stream.next()) {
        expect(updated.event).toBe('unleash-updated')
        expect(BigInt(updated.id!)).toBeGreaterThan(BigInt(previous.id!))
        if (updated.json.events.some((e: any) => e.feature?.name === feature)) break
      }
      stream.close()
      await on(feature)
      await untilRelayHas(client, (f) => f.some((x) => x.name === feature && x.enabled))
      const back = await openSse(`${relay.url}/api/client/streaming`, { authorization: client, 'last-event-id': updated.id! })
      const replay = await back.next()
      back.close()
      expect(replay.json.events.map((e: any) => e.type)).not.toContain('hydration')
      expect(replay.json.events.find((e: any) => e.feature?.name === feature)?.feature.enabled).toBe(true)
    } finally {
      stream.close()
    }
  })

  it('frontend API: an ETag and 304, and CORS as the server', async () => {
    const res = await call(relay.url, 'GET', '/api/frontend?userId=3', frontend, undefined, { origin: 'https://app.example' })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    const etag = res.headers.get('etag')!
    expect((await call(relay.url, 'GET', '/api/frontend?userId=3', frontend, undefined, { 'if-none-match': etag })).status).toBe(304)
  })

  it('Prometheus metrics: scopes, upstream state, last refresh, requests, usage forwarded and dropped', async () => {
    const text = (await call(relay.url, 'GET', '/metrics')).text
    for (const name of ['relay_scopes', 'relay_tokens', 'relay_upstream_up 1', 'relay_upstream_streaming 1', 'relay_last_refresh_timestamp_seconds{scope="development:*"}', 'relay_metrics_forwarded_total', 'relay_metrics_dropped_total{reason="full"}', 'http_requests_total{method="GET",route="/api/client/features",status="200"}', 'streaming_streams']) {
      expect(text).toContain(name)
    }
    expect(text).not.toContain('db_pool_connections')
    expect(text).not.toContain(client)
  })
})

describe('a chain: a relay behind a relay', () => {
  it('serves what the upstream serves, and a change arrives through both', async () => {
    const second = await startRelay(relay.url, { TOKENS: `${client},${frontend}` })
    relays.push(second)
    const feature = await createFeature(t.app)
    await on(feature)
    await untilRelayHas(client, (f) => f.some((x) => x.name === feature && x.enabled), second.url)
    const [up, down] = await Promise.all([call(upstream, 'GET', '/api/client/features', client), call(second.url, 'GET', '/api/client/features', client)])
    expect(down.body).toEqual(up.body)
    expect((await call(second.url, 'GET', '/api/frontend?userId=9', frontend)).body).toEqual((await call(upstream, 'GET', '/api/frontend?userId=9', frontend)).body)
    // A token new to both is checked through the first relay.
    const fresh = await clientToken('development')
    expect((await call(second.url, 'GET', '/api/client/features', fresh)).status).toBe(200)
    expect((await call(second.url, 'GET', '/ready')).body.upstream).toMatchObject({ url: relay.url, state: 'connected', streaming: true })
  })
})

describe('usage sent upstream in batches', () => {
  it('20 browser SDKs reporting (registration and metrics) cost at most 10 upstream requests, and their counts are stored upstream', async () => {
    // Every request the relay makes passes through a proxy that counts them, as the upstream sees them.
    const proxy = await countingProxy(upstream)
    const quiet = await startRelay(proxy.url, { TOKENS: `${client},${frontend}`, REFRESH_INTERVAL: '60', USAGE_FLUSH_MS: '500' })
    relays.push(quiet)
    try {
      const [a, b] = [await createFeature(t.app), await createFeature(t.app)]
      // A flag of another project: the client token covers it, the frontend token does not, so
      // browsers' counts of it are left out (as the server leaves them out).
      expect((await admin.post('/api/admin/projects', { id: 'relay-usage-other', name: 'Other' })).statusCode).toBe(201)
      expect((await admin.post('/api/admin/projects/relay-usage-other/environments', { environment: 'development' })).statusCode).toBeLessThan(300)
      const c = await createFeature(t.app, 'relay-usage-other')
      await on(a)
      await untilRelayHas(client, (f) => f.some((x) => x.name === a && x.enabled) && f.some((x) => x.name === c), quiet.url)
      const appName = uniqueName('browser-app')
      const from = proxy.seen.length
      // 20 browsers, one every 100 ms (two seconds, four flushes), each announcing itself and
      // reporting its counts in the bodies unleash-proxy-client sends: 40 reports.
      for (let i = 0; i < 20; i++) {
        const now = new Date().toISOString()
        const register = await call(quiet.url, 'POST', '/api/frontend/client/register', frontend, { appName, instanceId: `browser-${i}`, sdkVersion: 'unleash-client-js:3.7.8', environment: 'default', interval: 30_000, started: now, strategies: [] })
        expect(register.status, register.text).toBe(200)
        const metrics = await call(quiet.url, 'POST', '/api/frontend/client/metrics', frontend, { appName, instanceId: 'browser', bucket: { start: now, stop: now, toggles: { [a]: { yes: 2, no: 1, variants: { disabled: 3 } }, [b]: { yes: 0, no: 1 }, [c]: { yes: 5, no: 5 } } }, impactMetrics: [] })
        expect(metrics.status, metrics.text).toBe(200)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      await quiet.app.forwarder.flush()
      const requests = proxy.seen.slice(from)
      expect(requests.length).toBeGreaterThan(0)
      expect(requests.length).toBeLessThanOrEqual(10)
      expect(requests.every((r) => r.method === 'POST' && r.path === '/api/client/metrics/bulk'), JSON.stringify(requests)).toBe(true)
      expect(quiet.app.forwarder.stats.dropped).toEqual({ full: 0, refused: 0, unserved: 0 })
      expect(quiet.app.forwarder.pending).toBe(0)
      // What arrived upstream: every count, summed, in the token's environment.
      await t.app.usage.flush()
      const counts = await t.database.db
        .selectFrom('usage_counts as c')
        .innerJoin('usage_applications as u', 'u.id', 'c.application_id')
        .select(['c.feature_name', 'c.yes', 'c.no', 'c.variants', 'u.environment'])
        .where('u.app_name', '=', appName)
        .orderBy('c.feature_name')
        .execute()
      const expected = [
        { feature_name: a, yes: '40', no: '20', variants: { disabled: 60 }, environment: 'development' },
        { feature_name: b, yes: '0', no: '20', variants: {}, environment: 'development' },
      ].sort((x, y) => x.feature_name.localeCompare(y.feature_name))
      expect(counts).toEqual(expected)
    } finally {
      await proxy.close()
    }
  })
})
