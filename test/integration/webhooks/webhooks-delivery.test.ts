/**
 * Deliveries to real receivers on loopback, each request verified with the standardwebhooks
 * package: at least once, signed, retried, filtered, never for a change that rolled back, and
 * never to an address refused at send.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { insertEvents } from '../../../src/events/events.store.js'
import type { Resolve } from '../../../src/webhooks/ssrf.js'
import { auth, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { eventually } from '../../helpers/eventually.js'
import { type Receiver, receiversForThisFile } from '../../helpers/receiver.js'
import { requests } from '../../helpers/requests.js'

/** Names under .test resolve through this resolver only: what each returns can change between calls. */
const answers = new Map<string, string[][]>()
const lookups: string[] = []
const resolve: Resolve = async (host) => {
  lookups.push(host)
  const queue = answers.get(host)
  if (!queue || queue.length === 0) throw Object.assign(new Error(`no answer for ${host}`), { code: 'ENOTFOUND' })
  const next = queue.length > 1 ? queue.shift()! : queue[0]!
  return next.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
}

const t = useTestApp({
  WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_MAX_ATTEMPTS: '4',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_LEASE_MS: '5000',
  WEBHOOK_SECRET_OVERLAP_MS: '2000',
}, { resolve })

const receiver = receiversForThisFile()

const { admin: { get, post } } = requests(t)

/** A project of its own, so that each test's webhook sees only its own events. */
async function newProject () {
  const id = uniqueName('p')
  expect((await post('/api/admin/projects', { id, name: id })).statusCode).toBe(201)
  return id
}

/** A webhook on the receiver for events of `project`; the receiver verifies with its secret. */
async function hook (r: Receiver, project: string, overrides: Record<string, unknown> = {}, parameters: Record<string, unknown> = {}) {
  const res = await post('/api/admin/addons', {
    provider: 'webhook',
    enabled: true,
    events: ['feature-created'],
    projects: [project],
    ...overrides,
    parameters: { url: r.url, ...parameters },
  })
  expect(res.statusCode, res.body).toBe(201)
  const created = json(res)
  r.secrets = [created.signingSecret]
  return created as { id: number; signingSecret: string }
}

const createFeature = async (project: string) => {
  const name = uniqueName()
  expect((await post(`/api/admin/projects/${project}/features`, { name })).statusCode).toBe(201)
  return name
}

const deliveriesOf = async (id: number) => json(await get(`/api/admin/addons/${id}/deliveries`)).deliveries as any[]

describe('a delivery', () => {
  it('is the event as the events API shows it, signed (Standard Webhooks), with the configured headers', async () => {
    const r = await receiver()
    const project = await newProject()
    await hook(r, project, {}, { authorization: 'Bearer receiver-token', customHeaders: { 'X-Team': 'flags' } })
    const feature = await createFeature(project)
    const [got] = await r.waitFor(1)
    const [event] = json(await get(`/api/admin/events?feature=${feature}`)).events
    expect(JSON.parse(got!.body)).toEqual(event)
    expect(got!.verifiedWith).toEqual(r.secrets)
    expect(got!.id).toMatch(/^msg_[0-9a-f]{32}$/)
    expect(Math.abs(Number(got!.timestamp) - Date.now() / 1000)).toBeLessThan(10)
    expect(got!.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    expect(got!.headers).toMatchObject({
      'content-type': 'application/json',
      authorization: 'Bearer receiver-token',
      'x-team': 'flags',
      host: `127.0.0.1:${r.port}`,
    })
  })

  it('a receiver failing three times and then answering 200: four attempts, one webhook-id, each validly signed, all in the deliveries list', async () => {
    const r = await receiver((_req, n) => (n < 3 ? 500 : 200))
    const project = await newProject()
    const created = await hook(r, project)
    await createFeature(project)
    const got = await r.waitFor(4)
    await sleep(100)
    expect(got).toHaveLength(4)
    expect(new Set(got.map((g) => g.id)).size).toBe(1)
    for (const g of got) expect(g.verifiedWith).toEqual(r.secrets)
    // Backoff: each gap at least half the doubled delay (equal jitter), from a 50 ms base.
    for (let i = 1; i < got.length; i++) expect(got[i]!.at - got[i - 1]!.at).toBeGreaterThanOrEqual(25 * 2 ** (i - 1) - 5)
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(created.id)
      return list[0]?.state === 'delivered' ? list : undefined
    })
    expect(delivery).toMatchObject({ messageId: got[0]!.id, eventType: 'feature-created', state: 'delivered', nextAttemptAt: null })
    expect(delivery.attempts.map((a: any) => [a.attempt, a.status, a.error])).toEqual([
      [1, 500, 'answered 500'],
      [2, 500, 'answered 500'],
      [3, 500, 'answered 500'],
      [4, 200, null],
    ])
    for (const a of delivery.attempts) expect(a.durationMs).toBeGreaterThanOrEqual(0)
  })

  it('is dead after WEBHOOK_MAX_ATTEMPTS; redeliver sends it again with the same webhook-id and a fresh series', async () => {
    let healthy = false
    const r = await receiver(() => (healthy ? 200 : 503))
    const project = await newProject()
    const created = await hook(r, project)
    await createFeature(project)
    const [dead] = await eventually(async () => {
      const list = await deliveriesOf(created.id)
      return list[0]?.state === 'dead' ? list : undefined
    })
    expect(dead.attempts).toHaveLength(4)
    expect(dead.nextAttemptAt).toBeNull()
    expect(r.received).toHaveLength(4)

    healthy = true
    const res = await post(`/api/admin/addons/${created.id}/deliveries/${dead.id}/redeliver`)
    expect(res.statusCode).toBe(200)
    expect(json(res)).toMatchObject({ id: dead.id, state: 'pending', messageId: dead.messageId })
    await r.waitFor(5)
    expect(r.received[4]!.id).toBe(dead.messageId)
    expect(r.received[4]!.verifiedWith).toEqual(r.secrets)
    const [delivered] = await eventually(async () => {
      const list = await deliveriesOf(created.id)
      return list[0]?.state === 'delivered' ? list : undefined
    })
    expect(delivered.attempts.map((a: any) => a.status)).toEqual([503, 503, 503, 503, 200])
    const [event] = json(await get('/api/admin/events?type=addon-delivery-redelivered')).events
    expect(event.data).toEqual({ id: created.id, deliveryId: dead.id, eventId: dead.eventId })
  })

  it('follows no redirect: a 3xx is a failed attempt and the other address gets nothing', async () => {
    const elsewhere = await receiver()
    const r = await receiver(() => ({ status: 302, headers: { location: elsewhere.url } }))
    const project = await newProject()
    const created = await hook(r, project)
    await createFeature(project)
    await r.waitFor(1)
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(created.id)
      return list[0]?.attempts.length > 0 ? list : undefined
    })
    expect(delivery.attempts[0]).toMatchObject({ status: 302, error: 'redirect (302) not followed' })
    await post(`/api/admin/addons/${created.id}`).catch(() => {})
    await t.app.inject({ method: 'DELETE', url: `/api/admin/addons/${created.id}`, headers: auth() })
    expect(elsewhere.received).toEqual([])
  })

  it('renders bodyTemplate with Mustache: event and eventJson', async () => {
    const r = await receiver()
    const project = await newProject()
    await hook(r, project, {}, { contentType: 'text/plain', bodyTemplate: '{{event.type}} of {{event.featureName}} by {{event.createdBy}}: {{{eventJson}}}' })
    const feature = await createFeature(project)
    const [got] = await r.waitFor(1)
    const [event] = json(await get(`/api/admin/events?feature=${feature}`)).events
    expect(got!.body).toBe(`feature-created of ${feature} by ${event.createdBy}: ${JSON.stringify(event)}`)
    expect(got!.headers['content-type']).toBe('text/plain')
    expect(got!.verifiedWith).toEqual(r.secrets)
  })
})

describe('which events', () => {
  it('only those matching type, project and environment, and none for a disabled webhook', async () => {
    const r = await receiver()
    const off = await receiver()
    const project = await newProject()
    const other = await newProject()
    await post(`/api/admin/projects/${project}/environments`, { environment: 'production' })
    await post(`/api/admin/projects/${other}/environments`, { environment: 'production' })
    await hook(r, project, { events: ['feature-environment-enabled'], environments: ['production'] })
    await hook(off, project, { enabled: false, events: ['feature-environment-enabled'] })
    const feature = await createFeature(project)
    const elsewhere = await createFeature(other)
    for (const [p, f, env] of [[project, feature, 'production'], [other, elsewhere, 'production']] as const) {
      expect((await post(`/api/admin/projects/${p}/features/${f}/environments/${env}/on`)).statusCode).toBe(200)
    }
    await t.app.webhooks.settle()
    expect(r.received.map((g) => JSON.parse(g.body)).map((e) => [e.type, e.project, e.environment])).toEqual([
      ['feature-environment-enabled', project, 'production'],
    ])
    expect(off.received).toEqual([])
  })

  it('a change that rolls back delivers nothing: its deliveries were in its transaction', async () => {
    const r = await receiver()
    const project = await newProject()
    const created = await hook(r, project)
    let inside = -1
    await expect(t.database.db.transaction().execute(async (trx) => {
      await insertEvents(trx, [{ type: 'feature-created', createdBy: { name: 'test' }, project, featureName: 'rolled-back' }])
      inside = (await trx.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', created.id).execute()).length
      throw new Error('roll back')
    })).rejects.toThrow('roll back')
    expect(inside).toBe(1)
    // A refused request (the feature name is taken) rolls back too.
    const taken = await createFeature(project)
    expectProblem(await post(`/api/admin/projects/${project}/features`, { name: taken }), 409, 'NameExistsError')
    await t.app.webhooks.settle()
    await sleep(200)
    expect(r.received.map((g) => JSON.parse(g.body).featureName)).toEqual([taken])
    expect(await deliveriesOf(created.id)).toHaveLength(1)
  })
})

describe('a disabled webhook', () => {
  it('keeps its pending deliveries until it is enabled again', async () => {
    const r = await receiver()
    const project = await newProject()
    const created = await hook(r, project)
    // The event (with its delivery) and the switch-off commit together: the delivery is pending.
    await t.database.db.transaction().execute(async (trx) => {
      await insertEvents(trx, [{ type: 'feature-created', createdBy: { name: 'test' }, project, featureName: 'while-disabled' }])
      await trx.updateTable('webhooks').set({ enabled: false }).where('id', '=', created.id).execute()
    })
    await t.app.webhooks.settle()
    await sleep(200)
    expect(r.received).toEqual([])
    expect((await deliveriesOf(created.id)).map((d) => d.state)).toEqual(['pending'])
    const { id: _id, createdAt: _createdAt, ...config } = json(await get(`/api/admin/addons/${created.id}`))
    expect((await t.app.inject({ method: 'PUT', url: `/api/admin/addons/${created.id}`, headers: auth(), payload: { ...config, enabled: true } })).statusCode).toBe(200)
    const [got] = await r.waitFor(1)
    expect(JSON.parse(got!.body).featureName).toBe('while-disabled')
  })
})

describe('signing secrets', () => {
  it('after a rotation deliveries carry two signatures, one per secret, until the overlap ends', async () => {
    const r = await receiver()
    const project = await newProject()
    const created = await hook(r, project)
    const rotated = json(await post(`/api/admin/addons/${created.id}/rotate-secret`))
    r.secrets = [created.signingSecret, rotated.signingSecret]
    await createFeature(project)
    const [during] = await r.waitFor(1)
    expect(during!.signature.split(' ')).toHaveLength(2)
    expect(during!.verifiedWith.sort()).toEqual([created.signingSecret, rotated.signingSecret].sort())

    await sleep(Date.parse(rotated.previousSecretValidUntil) - Date.now() + 100)
    await createFeature(project)
    const [, after] = await r.waitFor(2)
    expect(after!.signature.split(' ')).toHaveLength(1)
    expect(after!.verifiedWith).toEqual([rotated.signingSecret])
  })
})

describe('addresses checked at every send', () => {
  it('a name that resolves to a refused address at send: the delivery is dead, with the rule', async () => {
    const r = await receiver()
    const project = await newProject()
    const host = `${uniqueName('rebind')}.test`
    answers.set(host, [['127.0.0.1'], ['10.0.0.7']])
    const created = await hook(r, project, {}, { url: `http://${host}:${r.port}/hook` })
    await createFeature(project)
    const [dead] = await eventually(async () => {
      const list = await deliveriesOf(created.id)
      return list[0]?.state === 'dead' ? list : undefined
    })
    expect(dead.attempts).toEqual([expect.objectContaining({
      attempt: 1,
      status: null,
      error: `refused: host ${host} resolves to 10.0.0.7 is a private address (RFC 1918); only public addresses are allowed, unless WEBHOOK_ALLOWED_NETWORKS lists them`,
    })])
    expect(r.received).toEqual([])
  })

  it('a name that does not resolve at send is a failed attempt, retried (not dead)', async () => {
    const r = await receiver()
    const project = await newProject()
    const host = `${uniqueName('flaky')}.test`
    answers.set(host, [['127.0.0.1'], [], ['127.0.0.1']])
    const created = await hook(r, project, {}, { url: `http://${host}:${r.port}/hook` })
    await createFeature(project)
    await r.waitFor(1)
    const [delivered] = await eventually(async () => {
      const list = await deliveriesOf(created.id)
      return list[0]?.state === 'delivered' ? list : undefined
    })
    expect(delivered.attempts.map((a: any) => [a.status, a.error])).toEqual([[null, `host ${host} does not resolve`], [200, null]])
  })

  it('connects to the address it checked: one lookup per send, and a name that changes after it does not redirect the request', async () => {
    const r = await receiver()
    const project = await newProject()
    const host = `${uniqueName('pinned')}.test`
    answers.set(host, [['127.0.0.1'], ['127.0.0.1'], ['10.0.0.8']])
    await hook(r, project, {}, { url: `http://${host}:${r.port}/hook` })
    const before = lookups.filter((h) => h === host).length
    await createFeature(project)
    const [got] = await r.waitFor(1)
    expect(lookups.filter((h) => h === host).length - before).toBe(1)
    expect(got!.headers.host).toBe(`${host}:${r.port}`)
    expect(got!.verifiedWith).toEqual(r.secrets)
  })
})

describe('a hanging receiver', () => {
  it('holds neither other webhooks nor the admin API; its attempts time out and are recorded', async () => {
    const hanging = await receiver(() => 'hang')
    const healthy = await receiver()
    const project = await newProject()
    const stuck = await hook(hanging, project)
    await hook(healthy, project)
    // A dispatcher that let the hanging receiver block it would make the healthy one wait for
    // the timeout (1000 ms), and so would a write that waited for a delivery.
    const createdAt = new Map<string, number>()
    const writes: number[] = []
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now()
      const name = await createFeature(project)
      writes.push(performance.now() - t0)
      createdAt.set(name, t0)
    }
    await healthy.waitFor(10)
    const latencies = healthy.received.map((g) => g.at - createdAt.get(JSON.parse(g.body).featureName)!)
    expect(Math.max(...latencies)).toBeLessThan(900)
    expect(Math.max(...writes)).toBeLessThan(900)
    await hanging.waitFor(4)
    const timedOut = await eventually(async () => {
      const list = await deliveriesOf(stuck.id)
      const attempts = list.flatMap((d) => d.attempts)
      return attempts.length > 0 ? attempts : undefined
    }, 'an attempt of the stuck delivery is recorded', 5000)
    expect(timedOut[0]).toMatchObject({ status: null, error: 'no answer within 1000 ms' })
    expect(timedOut[0].durationMs).toBeGreaterThanOrEqual(950)
    await t.app.inject({ method: 'DELETE', url: `/api/admin/addons/${stuck.id}`, headers: auth() })
  })
})

describe('the deliveries list and retention', () => {
  it('pages newest first; delivered and dead rows past WEBHOOK_RETENTION_DAYS are pruned, pending ones never', async () => {
    const r = await receiver()
    const project = await newProject()
    const created = await hook(r, project)
    for (let i = 0; i < 3; i++) await createFeature(project)
    await r.waitFor(3)
    const all = await eventually(async () => {
      const list = await deliveriesOf(created.id)
      return list.every((d) => d.state === 'delivered') ? list : undefined
    })
    expect(all.map((d) => d.id)).toEqual([...all.map((d) => d.id)].sort((a, b) => b - a))
    const first = json(await get(`/api/admin/addons/${created.id}/deliveries?limit=2`))
    expect(first.deliveries.map((d: any) => d.id)).toEqual(all.slice(0, 2).map((d) => d.id))
    const second = json(await get(`/api/admin/addons/${created.id}/deliveries?limit=2&cursor=${first.nextCursor}`))
    expect(second.deliveries.map((d: any) => d.id)).toEqual([all[2].id])
    expect(second.nextCursor).toBeUndefined()

    const db = t.database.db
    await db.updateTable('webhook_deliveries').set({ finished_at: new Date(Date.now() - 8 * 86_400_000) }).where('id', '=', String(all[2].id)).execute()
    await db.updateTable('webhook_deliveries').set({ state: 'pending', next_attempt_at: new Date(Date.now() + 86_400_000), finished_at: new Date(Date.now() - 8 * 86_400_000) }).where('id', '=', String(all[1].id)).execute()
    expect(await t.app.webhooks.prune()).toBe(1)
    expect((await deliveriesOf(created.id)).map((d) => d.id)).toEqual([all[0].id, all[1].id])
  })
})

describe("Unleash's integration events (addons/{id}/events)", () => {
  it('each tried delivery with its whole event, newest first: delivered is success, given up or to retry is failed; untried ones not yet', async () => {
    const r = await receiver((request) => (JSON.parse(request.body).featureName.startsWith('ok-') ? 200 : 503))
    const project = await newProject()
    const created = await hook(r, project)
    const names = [uniqueName('ok'), uniqueName('no'), uniqueName('no')]
    for (const name of names) expect((await post(`/api/admin/projects/${project}/features`, { name })).statusCode).toBe(201)
    const deliveries = await eventually(async () => {
      const list = await deliveriesOf(created.id)
      return list.length === 3 && list.every((d) => d.state !== 'pending') ? list : undefined
    })
    // The newest one to be tried again tomorrow; and one not tried yet, which is no integration event.
    const db = t.database.db
    const tomorrow = new Date(Date.now() + 86_400_000)
    await db.updateTable('webhook_deliveries').set({ state: 'pending', next_attempt_at: tomorrow, finished_at: null }).where('id', '=', String(deliveries[0].id)).execute()
    const untried = await db.insertInto('events').values({ type: 'feature-created', created_by: 'test', project, feature_name: 'never-sent', data: '{}' }).returning('id').executeTakeFirstOrThrow()
    await sql`INSERT INTO webhook_deliveries (webhook_id, event_id, next_attempt_at) VALUES (${created.id}, ${untried.id}, ${tomorrow})`.execute(db)

    const res = await get(`/api/admin/addons/${created.id}/events`)
    expect(res.statusCode, res.body).toBe(200)
    const found = json(res).integrationEvents as any[]
    expect(found.map((e) => e.id)).toEqual(deliveries.map((d) => String(d.id)))
    for (const [i, e] of found.entries()) {
      const [event] = json(await get(`/api/admin/events?feature=${names[2 - i]}`)).events
      expect(e.event).toEqual(event)
      expect(e.integrationId).toBe(created.id)
      expect(e.createdAt).toBe(deliveries[i].attempts.at(-1).startedAt)
      expect(e.details).toMatchObject({ messageId: deliveries[i].messageId, attempts: deliveries[i].attempts })
    }
    expect(found.map((e) => [e.state, e.stateDetails])).toEqual([
      ['failed', `Failed 4 attempts so far; the last got status code 503: answered 503; tried again at ${tomorrow.toISOString()}`],
      ['failed', 'Gave up after 4 attempts; the last got status code 503: answered 503'],
      ['success', 'Delivered (status code 200) after 1 attempt'],
    ])
    expect(found[0].details.nextAttemptAt).toBe(tomorrow.toISOString())
    expect(found[1].details).not.toHaveProperty('nextAttemptAt')

    expect(json(await get(`/api/admin/addons/${created.id}/events?limit=1&offset=1`)).integrationEvents.map((e: any) => e.id)).toEqual([found[1].id])
    expect(json(await get(`/api/admin/addons/${created.id}/events?offset=3`))).toEqual({ integrationEvents: [] })
    expectProblem(await get('/api/admin/addons/2147483647/events'), 404, 'NotFoundError')
    expectProblem(await get(`/api/admin/addons/${created.id}/events?limit=201`), 400, 'BadDataError')
    await t.app.inject({ method: 'DELETE', url: `/api/admin/addons/${created.id}`, headers: auth() })
  })
})
