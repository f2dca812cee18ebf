/**
 * No request stalls the server: the built server in a child process of its own, its /health
 * asked over and over (from another process) while an attacker with the least rights (a
 * Viewer's personal access token) or an admin's webhook template tries to hold its event loop
 * or its memory. The server must hold no /health for 100 ms (its event loop's longest turn in
 * CPU time, so that other work on the machine does not count; see probeHealth); memory growth
 * is read from /proc.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { ADMIN_SECRET } from '../../helpers/app.js'
import { type BuiltServer, buildServer, memoryOf, personalAccessToken, probeHealth, startBuiltServer } from '../../helpers/built-server.js'
import { cloneTemplate, dropDatabase } from '../../helpers/database.js'
import { rawExchange, rawUpload } from '../../helpers/raw-http.js'
import { eventually } from '../../helpers/eventually.js'
import { type Receiver, startReceiver } from '../../helpers/receiver.js'

const OUTDIR = 'dist/stalls'
const MiB = 1024 * 1024
/** What "answering" means here: the server holds no /health longer than this (see probeHealth)... */
const HEALTH_MS = 100
/** ...and, whatever else keeps the machine busy, every /health is answered within this. */
const LATE_MS = 5000

let databaseUrl: string
let server: BuiltServer
let viewer: string
let receiver: Receiver
beforeAll(async () => {
  databaseUrl = await cloneTemplate(inject('postgresUrl'))
  buildServer(OUTDIR)
  receiver = await startReceiver()
  server = await startBuiltServer(OUTDIR, databaseUrl, { WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_MS: '50' })
  viewer = await personalAccessToken(server.base, 'Viewer')
}, 120_000)
afterAll(async () => {
  await server?.stop()
  await receiver?.close()
  await dropDatabase(inject('postgresUrl'), databaseUrl)
})

const call = async (method: string, path: string, body?: unknown, secret = ADMIN_SECRET) => {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { authorization: secret, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) }
}

/** `open` repeated `levels` times, then `close` as often: one value nested `levels` deep. */
const nested = (levels: number, open = '[', close = ']') => Buffer.concat([Buffer.alloc(levels, open), Buffer.alloc(levels, close)])

describe('a deep body', () => {
  it('32 MiB nested 16 million levels, from a Viewer to features-batch/validate, eight of them: 400 about depth, /health on time, memory flat', async () => {
    const body = nested(16 * MiB)
    expect(body.length).toBe(32 * MiB)
    const before = memoryOf(server.pid)
    const probes = probeHealth(server)
    // Four at once, then four more.
    const answers = []
    for (let round = 0; round < 2; round++) {
      answers.push(...await Promise.all(Array.from({ length: 4 }, () => rawUpload(server.port, {
        method: 'POST',
        target: '/api/admin/features-batch/validate',
        headers: { authorization: viewer, 'content-type': 'application/json', 'content-length': String(body.length) },
        body,
      }))))
    }
    const health = await probes.stop()
    const after = memoryOf(server.pid)
    for (const res of answers) {
      expect(res.status, res.body).toBe(400)
      expect(JSON.parse(res.body).details).toEqual([{ path: '/body', message: '/body is nested more than 32 levels deep (at byte 32)' }])
    }
    expect(health.statuses.every((s) => s === 200)).toBe(true)
    expect(health.heldMs).toBeLessThan(HEALTH_MS)
    expect(health.slowestMs).toBeLessThan(LATE_MS)
    // Read to its end (so that the client gets the answer), but neither kept nor parsed: the
    // pieces read are garbage at once (parsed, one such body grew it by 1.6 GiB).
    expect(after.peak - before.peak).toBeLessThan(64 * MiB)
  })

  it('32 MiB of what parsing costs most per byte, from a Viewer to features-batch/validate: a 400 naming the rule, /health on time, nothing parsed', async () => {
    // Parsed, each would hold the event loop: a wide array 0.5 s, empty objects 2 s, new member names in objects of 100 some 10 s.
    const fill = (piece: string, open = '[', close = '0]') => {
      const times = Math.floor((32 * MiB - open.length - close.length) / piece.length)
      return Buffer.concat([Buffer.from(open), Buffer.alloc(times * piece.length, piece), Buffer.from(close)])
    }
    let names = ''
    for (let i = 0; names.length < 32 * MiB - 2000; i += 100) {
      names += `${names === '' ? '' : ','}{${Array.from({ length: 100 }, (_, j) => `"n${i + j}":0`).join(',')}}`
    }
    // Each body, and the rule its 400 names.
    const bodies: [Buffer, string][] = [
      [fill('1,'), 'holds more than 500000 values'],
      [fill('{},'), 'holds more than 500000 values'],
      [Buffer.from(`[${names}]`), 'has more than 10000 distinct member names'],
    ]
    const probes = probeHealth(server)
    const answers = []
    for (const [body, rule] of bodies) {
      expect(body.length).toBeLessThanOrEqual(32 * MiB)
      const res = await rawUpload(server.port, {
        method: 'POST',
        target: '/api/admin/features-batch/validate',
        headers: { authorization: viewer, 'content-type': 'application/json', 'content-length': String(body.length) },
        body,
      })
      answers.push({ rule, res })
    }
    const health = await probes.stop()
    for (const { rule, res } of answers) {
      expect(res.status, res.body).toBe(400)
      expect(JSON.parse(res.body).details).toEqual([{ path: '/body', message: expect.stringMatching(new RegExp(`^/body ${rule}.* \\(at byte \\d+\\)$`)) }])
    }
    expect(health.statuses.every((s) => s === 200)).toBe(true)
    expect(health.heldMs).toBeLessThan(HEALTH_MS)
    expect(health.slowestMs).toBeLessThan(LATE_MS)
  }, 60_000)

  it('deep inside a member no schema reads, in objects: the same 400', async () => {
    const body = Buffer.from(`{"project":"default","ignored":${'{"a":'.repeat(33)}1${'}'.repeat(33)}}`)
    const res = await rawUpload(server.port, {
      method: 'POST',
      target: '/api/admin/features-batch/validate',
      headers: { authorization: viewer, 'content-type': 'application/json', 'content-length': String(body.length) },
      body,
    })
    expect(res.status, res.body).toBe(400)
    expect(JSON.parse(res.body).details[0].message).toMatch(/nested more than 32 levels deep/)
  })

  it('a declared Content-Length over the route\'s limit: 413 before any of the body is sent', async () => {
    for (const [target, limit] of [
      ['/api/admin/features-batch/validate', 32 * MiB],
      ['/api/admin/projects/default/features/x/environments/development/variants', MiB],
    ] as const) {
      const method = target.endsWith('/variants') ? 'PATCH' : 'POST'
      const started = performance.now()
      const res = await rawExchange(server.port, `${method} ${target} HTTP/1.1\r\nhost: x\r\nauthorization: ${ADMIN_SECRET}\r\ncontent-type: application/json\r\ncontent-length: ${limit + 1}\r\n\r\n`)
      expect(res.status, `${target}: ${res.body}`).toBe(413)
      expect(JSON.parse(res.body).name).toBe('PayloadTooLargeError')
      expect(performance.now() - started).toBeLessThan(1000)
    }
  })

  it('a valid 31 MiB import is stored within 30 s while /health keeps answering', async () => {
    // Features of 1000 variants with 900-character payloads each (what one PUT may hold), until 31 MiB.
    const variants = Array.from({ length: 1000 }, (_, i) => ({ name: `v${i}`, weight: 0, payload: { type: 'string', value: String(i).padEnd(900, 'x') } }))
    const features: { name: string }[] = []
    const featureEnvironments: object[] = []
    const data = { features, featureStrategies: [], featureEnvironments }
    let text = ''
    while (text.length < 31 * MiB) {
      const name = `large-${features.length}`
      features.push({ name })
      featureEnvironments.push({ featureName: name, enabled: true, variants })
      text = JSON.stringify({ project: 'default', environment: 'development', data })
    }
    expect(text.length).toBeLessThan(32 * MiB)
    const body = Buffer.from(text)
    const probes = probeHealth(server)
    const res = await rawUpload(server.port, {
      method: 'POST',
      target: '/api/admin/features-batch/import',
      headers: { authorization: ADMIN_SECRET, 'content-type': 'application/json', 'content-length': String(body.length) },
      body,
    })
    const health = await probes.stop()
    expect(res.status, res.body).toBe(200)
    expect(res.ms).toBeLessThan(30_000)
    expect(health.statuses.every((s) => s === 200)).toBe(true)
    expect(health.count).toBeGreaterThan(10)
    // Parsing 31 MiB (JSON.parse, a few hundred ms) is the longest hold; nothing holds it for seconds.
    expect(health.heldMs).toBeLessThan(1000)
    expect(health.slowestMs).toBeLessThan(LATE_MS)
    const last = await call('GET', `/api/admin/projects/default/features/large-${features.length - 1}/environments/development/variants`)
    expect(last.body.variants).toHaveLength(1000)
  }, 60_000)
})

describe('a webhook template', () => {
  it('three nested sections over a 250-value constraint: the delivery is dead with the reason, /health on time, others delivered', async () => {
    const sections = '{{#event.data.constraints}}{{#values}}{{#values}}{{#values}}{{/values}}{{/values}}{{/values}}{{/event.data.constraints}}'
    const costly = await call('POST', '/api/admin/addons', {
      provider: 'webhook',
      enabled: true,
      events: ['feature-strategy-add'],
      parameters: { url: receiver.url, bodyTemplate: sections },
    })
    expect(costly.status).toBe(201)
    const plain = await call('POST', '/api/admin/addons', { provider: 'webhook', enabled: true, events: ['feature-strategy-add'], parameters: { url: receiver.url } })
    expect(plain.status).toBe(201)
    const feature = await call('POST', '/api/admin/projects/default/features', { name: 'template-bomb' })
    expect(feature.status).toBe(201)

    const probes = probeHealth(server)
    const values = Array.from({ length: 250 }, (_, i) => `user-${i}`)
    const strategy = await call('POST', '/api/admin/projects/default/features/template-bomb/environments/development/strategies', {
      name: 'default',
      constraints: [{ contextName: 'userId', operator: 'IN', values }],
    })
    expect(strategy.status).toBe(200)
    const deliveries = (id: number) => call('GET', `/api/admin/addons/${id}/deliveries`).then((r) => r.body.deliveries as any[])
    const [dead] = await eventually(async () => {
      const list = await deliveries(costly.body.id)
      return list[0]?.state === 'dead' ? list : undefined
    }, 'the costly webhook\'s delivery is dead', 20_000)
    const [delivered] = await eventually(async () => {
      const list = await deliveries(plain.body.id)
      return list[0]?.state === 'delivered' ? list : undefined
    }, 'the plain webhook\'s delivery is delivered', 20_000)
    const health = await probes.stop()

    expect(dead.attempts).toEqual([expect.objectContaining({ attempt: 1, status: null, error: 'the body template failed: rendering takes more than 100000 steps (sections repeated inside sections over long lists)' })])
    expect(delivered.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 200 })])
    expect(health.statuses.every((s) => s === 200)).toBe(true)
    expect(health.heldMs).toBeLessThan(HEALTH_MS)
    expect(health.slowestMs).toBeLessThan(LATE_MS)
  }, 60_000)
})
