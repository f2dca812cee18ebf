/**
 * The addon routes (webhooks in Unleash's addon shape): what they store, show and refuse.
 * Deliveries are in webhooks-delivery.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { auth, buildLoggedApp, createToken, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { eventually } from '../../helpers/eventually.js'
import { startReceiver } from '../../helpers/receiver.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' })

const base = '/api/admin/addons'
const addon = (overrides: Record<string, unknown> = {}, parameters: Record<string, unknown> = {}) => ({
  provider: 'webhook',
  description: 'to the chat',
  enabled: true,
  events: ['feature-completed'],
  ...overrides,
  parameters: { url: 'http://127.0.0.1:9/hook', ...parameters },
})
const { send } = requests(t)
const create = async (body: object = addon()) => {
  const res = await send('POST', base, body)
  expect(res.statusCode, res.body).toBe(201)
  return json(res)
}
const eventsOfType = async (type: string) =>
  json(await send('GET', `/api/admin/events?type=${type}&limit=500`)).events as { data: unknown; preData?: unknown }[]

describe('creating and reading webhooks', () => {
  it('creates one (201) with its signing secret shown once; reads mask secret parameters; the event holds no secret', async () => {
    const body = addon(
      { projects: ['default'], environments: ['production'] },
      {
        contentType: 'application/json; charset=utf-8',
        authorization: 'Bearer very-secret-token',
        customHeaders: { 'X-Api-Key': 'another-secret' },
        bodyTemplate: '{"text":"{{event.type}}"}',
      }
    )
    const created = await create(body)
    expect(created).toEqual({
      id: expect.any(Number),
      provider: 'webhook',
      description: 'to the chat',
      enabled: true,
      events: ['feature-completed'],
      projects: ['default'],
      environments: ['production'],
      parameters: {
        url: 'http://127.0.0.1:9/hook',
        contentType: 'application/json; charset=utf-8',
        authorization: '*****',
        customHeaders: { 'X-Api-Key': '*****' },
        bodyTemplate: '{"text":"{{event.type}}"}',
      },
      createdAt: expect.any(String),
      signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    })
    const { signingSecret, ...shown } = created
    const one = await send('GET', `${base}/${created.id}`)
    expect(json(one)).toEqual(shown)
    const list = json(await send('GET', base))
    expect(list.addons).toContainEqual(shown)
    expect(list.providers).toEqual([expect.objectContaining({ name: 'webhook', events: expect.arrayContaining(['feature-completed', 'addon-config-created']) })])
    const events = await eventsOfType('addon-config-created')
    expect(events.map((e) => e.data)).toContainEqual(JSON.parse(JSON.stringify(shown)))
    for (const text of [one.body, JSON.stringify(list), JSON.stringify(events)]) {
      expect(text).not.toContain(signingSecret)
      expect(text).not.toContain('very-secret-token')
      expect(text).not.toContain('another-secret')
    }
  })

  it('"*" in projects or environments means all, stored as the empty list; absent lists too', async () => {
    const created = await create(addon({ projects: ['*', 'default'], environments: undefined }))
    expect(created).toMatchObject({ projects: [], environments: [] })
  })

  it('404 for an unknown webhook on every route that names one', async () => {
    const missing = 2147483647
    for (const [method, url, payload] of [
      ['GET', `${base}/${missing}`],
      ['PUT', `${base}/${missing}`, addon()],
      ['DELETE', `${base}/${missing}`],
      ['POST', `${base}/${missing}/rotate-secret`],
      ['GET', `${base}/${missing}/deliveries`],
      ['POST', `${base}/${missing}/deliveries/1/redeliver`],
    ] as const) {
      const body = expectProblem(await send(method, url, payload), 404, 'NotFoundError')
      expect(body.message).toBe(`Addon ${missing} does not exist`)
    }
    const existing = await create()
    expectProblem(await send('POST', `${base}/${existing.id}/deliveries/1/redeliver`), 404, 'NotFoundError')
  })
})

describe('refusals', () => {
  const long = (n: number) => 'x'.repeat(n)
  const cases: [string, object, string][] = [
    ['no url', { ...addon(), parameters: {} }, '/body/parameters/url'],
    ['ftp', addon({}, { url: 'ftp://127.0.0.1/x' }), '/body/parameters/url'],
    ['javascript', addon({}, { url: 'javascript:alert(1)' }), '/body/parameters/url'],
    ['credentials in the url', addon({}, { url: 'http://user:pw@127.0.0.1:9/hook' }), '/body/parameters/url'],
    ['a url too long', addon({}, { url: `http://127.0.0.1:9/${long(2048)}` }), '/body/parameters/url'],
    ['a private address', addon({}, { url: 'http://10.0.0.1/hook' }), '/body/parameters/url'],
    ['cloud metadata', addon({}, { url: 'http://169.254.169.254/latest/meta-data' }), '/body/parameters/url'],
    ['IPv6 loopback', addon({}, { url: 'http://[::1]:9/hook' }), '/body/parameters/url'],
    ['IPv4-mapped private', addon({}, { url: 'http://[::ffff:192.168.1.1]/hook' }), '/body/parameters/url'],
    ['unspecified', addon({}, { url: 'http://0.0.0.0:9/hook' }), '/body/parameters/url'],
    ['a host that does not resolve', addon({}, { url: 'http://no-such-host.invalid/hook' }), '/body/parameters/url'],
    ['no events', addon({ events: [] }), '/body/events'],
    ['an unknown event', addon({ events: ['feature-exploded'] }), '/body/events/0'],
    ['a repeated event', addon({ events: ['feature-created', 'feature-created'] }), '/body/events'],
    ['another provider', addon({ provider: 'slack' }), '/body/provider'],
    ['no enabled', { ...addon(), enabled: undefined }, '/body/enabled'],
    ['an unknown member', addon({ color: 'red' }), '/body/color'],
    ['an unknown parameter', addon({}, { retries: 3 }), '/body/parameters/retries'],
    ['too many projects', addon({ projects: Array.from({ length: 101 }, (_, i) => `p${i}`) }), '/body/projects'],
    ['a bad project name', addon({ projects: ['a b'] }), '/body/projects/0'],
    ['a template too long', addon({}, { bodyTemplate: long(16_385) }), '/body/parameters/bodyTemplate'],
    ['a broken template', addon({}, { bodyTemplate: '{{#event}} unclosed' }), '/body/parameters/bodyTemplate'],
    ['a reserved header', addon({}, { customHeaders: { 'Webhook-Signature': 'v1,forged' } }), '/body/parameters/customHeaders/Webhook-Signature'],
    ['the host header', addon({}, { customHeaders: { host: 'evil.example' } }), '/body/parameters/customHeaders/host'],
    ['a header twice', addon({}, { customHeaders: { 'X-A': '1', 'x-a': '2' } }), '/body/parameters/customHeaders/x-a'],
    ['a header value with CR LF', addon({}, { customHeaders: { 'X-A': 'a\r\nX-Injected: 1' } }), '/body/parameters/customHeaders/X-A'],
    ['a bad header name', addon({}, { customHeaders: { 'X A': '1' } }), '/body/parameters/customHeaders/X A'],
    ['too many headers', addon({}, { customHeaders: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-${i}`, '1'])) }), '/body/parameters/customHeaders'],
    ['a header value too long', addon({}, { customHeaders: { 'X-A': long(4097) } }), '/body/parameters/customHeaders/X-A'],
    ['authorization with a newline', addon({}, { authorization: 'a\nb' }), '/body/parameters/authorization'],
    ['authorization masked with nothing stored', addon({}, { authorization: '*****' }), '/body/parameters/authorization'],
    ['a bad content type', addon({}, { contentType: 'json' }), '/body/parameters/contentType'],
    ['a description too long', addon({ description: long(1001) }), '/body/description'],
  ]

  it.each(cases)('%s: 400 at the right path, nothing stored', async (_name, payload, path) => {
    const before = await databaseFingerprint(t.database.db)
    const body = expectProblem(await send('POST', base, payload), 400, 'BadDataError')
    expect(body.details[0].path).toBe(path)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('an address refused at save names the rule', async () => {
    const message = async (url: string) => expectProblem(await send('POST', base, addon({}, { url })), 400, 'BadDataError').message as string
    expect(await message('http://10.1.2.3/x')).toMatch(/^\/body\/parameters\/url host 10\.1\.2\.3 resolves to 10\.1\.2\.3 is a private address \(RFC 1918\)/)
    expect(await message('http://169.254.169.254/x')).toContain('is a cloud metadata address')
    expect(await message('http://[fd00:ec2::254]/x')).toContain('is a cloud metadata address')
    expect(await message('http://[fe80::1]/x')).toContain('is a link-local address')
    expect(await message('http://[fc00::1]/x')).toContain('is a private address (unique local, fc00::/7)')
    expect(await message('http://224.0.0.1/x')).toContain('is a multicast address')
    expect(await message('http://[::ffff:169.254.169.254]/x')).toContain('is a cloud metadata address')
    expect(await message('http://localhost6.invalid/x')).toMatch(/does not resolve/)
    expect(await message('gopher://127.0.0.1/x')).toMatch(/must (match pattern|use http or https)/)
  })

  it('401 without a token; 403 for a token without */*, and for a client token, on every addon route; nothing stored', async () => {
    const existing = await create()
    const scoped = await createToken(t.app, { projects: ['default'] })
    const envScoped = await createToken(t.app, { environments: ['development'] })
    const client = json(await send('POST', '/api/admin/api-tokens', { tokenName: uniqueName('sdk'), type: 'client', environment: 'development' })).secret
    const before = await databaseFingerprint(t.database.db)
    const routes = [
      ['GET', base],
      ['POST', base, addon()],
      ['GET', `${base}/${existing.id}`],
      ['PUT', `${base}/${existing.id}`, addon({ enabled: false })],
      ['DELETE', `${base}/${existing.id}`],
      ['POST', `${base}/${existing.id}/rotate-secret`],
      ['GET', `${base}/${existing.id}/deliveries`],
      ['POST', `${base}/${existing.id}/deliveries/1/redeliver`],
    ] as const
    for (const [method, url, payload] of routes) {
      expectProblem(await t.app.inject({ method, url, ...(payload ? { payload } : {}) }), 401, 'AuthenticationRequired')
      for (const secret of [scoped, envScoped, client]) {
        expectProblem(await send(method, url, payload, secret), 403, 'PermissionError')
      }
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('400 for an id that is not a positive integer', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '99999999999']) {
      const body = expectProblem(await send('GET', `${base}/${id}`), 400, 'BadDataError')
      expect(body.details[0].path).toBe('/params/id')
    }
    expectProblem(await send('GET', `${base}/1/deliveries?limit=0`), 400, 'BadDataError')
    expectProblem(await send('GET', `${base}/1/deliveries?cursor=x`), 400, 'BadDataError')
  })
})

describe('updating, rotating and deleting', () => {
  it('PUT replaces the configuration; ***** keeps a stored secret; the event has data and preData, masked', async () => {
    const created = await create(addon({}, { authorization: 'Bearer keep-me', customHeaders: { 'X-Key': 'keep-me-too', 'X-Old': 'drop-me' } }))
    const res = await send('PUT', `${base}/${created.id}`, addon(
      { description: 'changed', enabled: false, events: ['feature-created', 'feature-archived'] },
      { authorization: '*****', customHeaders: { 'X-Key': '*****', 'X-New': 'new-secret' } }
    ))
    expect(res.statusCode, res.body).toBe(200)
    expect(json(res)).toMatchObject({
      id: created.id,
      description: 'changed',
      enabled: false,
      events: ['feature-created', 'feature-archived'],
      parameters: { authorization: '*****', customHeaders: { 'X-Key': '*****', 'X-New': '*****' } },
    })
    const stored = await t.database.db.selectFrom('webhooks').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow()
    expect(stored.auth_header).toBe('Bearer keep-me')
    expect(JSON.parse(stored.custom_headers!)).toEqual({ 'X-Key': 'keep-me-too', 'X-New': 'new-secret' })
    const [event] = (await eventsOfType('addon-config-updated')) as { data: any; preData: any }[]
    expect(event!.data).toMatchObject({ id: created.id, description: 'changed' })
    expect(event!.preData).toMatchObject({ id: created.id, description: 'to the chat', parameters: { customHeaders: { 'X-Key': '*****', 'X-Old': '*****' } } })
    expect(JSON.stringify(event)).not.toMatch(/keep-me|new-secret|drop-me/)

    // Without the member the stored secret goes.
    await send('PUT', `${base}/${created.id}`, addon())
    const cleared = await t.database.db.selectFrom('webhooks').select(['auth_header', 'custom_headers']).where('id', '=', created.id).executeTakeFirstOrThrow()
    expect(cleared).toEqual({ auth_header: null, custom_headers: null })
  })

  it('a refused PUT changes nothing', async () => {
    const created = await create()
    const before = await databaseFingerprint(t.database.db)
    const body = expectProblem(await send('PUT', `${base}/${created.id}`, addon({}, { url: 'http://192.168.0.10/' })), 400, 'BadDataError')
    expect(body.details[0].path).toBe('/body/parameters/url')
    expectProblem(await send('PUT', `${base}/${created.id}`, addon({}, { customHeaders: { 'X-Unknown': '*****' } })), 400, 'BadDataError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('rotate-secret answers a new secret once and records addon-secret-rotated without either secret', async () => {
    const created = await create()
    const res = await send('POST', `${base}/${created.id}/rotate-secret`)
    expect(res.statusCode).toBe(200)
    const rotated = json(res)
    expect(rotated.signingSecret).toMatch(/^whsec_/)
    expect(rotated.signingSecret).not.toBe(created.signingSecret)
    expect(Date.parse(rotated.previousSecretValidUntil) - Date.now()).toBeGreaterThan(23 * 3_600_000)
    const events = JSON.stringify(await eventsOfType('addon-secret-rotated'))
    expect(events).toContain(`"id":${created.id}`)
    expect(events).not.toContain(rotated.signingSecret)
    expect(events).not.toContain(created.signingSecret)
  })

  it('DELETE removes the webhook (200, addon-config-deleted with the masked configuration)', async () => {
    const created = await create(addon({}, { authorization: 'gone-secret' }))
    const res = await send('DELETE', `${base}/${created.id}`)
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
    expectProblem(await send('GET', `${base}/${created.id}`), 404, 'NotFoundError')
    const events = (await eventsOfType('addon-config-deleted')) as { preData: any }[]
    expect(events.map((e) => e.preData.id)).toContain(created.id)
    expect(JSON.stringify(events)).not.toContain('gone-secret')
  })

  it('addon events are shown to */* tokens only', async () => {
    await create()
    await send('POST', '/api/admin/projects/default/features', { name: uniqueName() })
    const scoped = await createToken(t.app, { environments: ['development'] })
    const seen = json(await send('GET', '/api/admin/events?limit=500', undefined, scoped)).events as { type: string }[]
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.filter((e) => e.type.startsWith('addon-'))).toEqual([])
    expect((await eventsOfType('addon-config-created')).length).toBeGreaterThan(0)
  })
})

describe('secrets stay out of the logs', () => {
  it('no signing secret, authorization or custom header value in any line (trace level), through saves, a refusal, failing deliveries and a rotation', async () => {
    const logged = await buildLoggedApp({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_MAX_ATTEMPTS: '2' })
    const { app } = logged
    const receiver = await startReceiver(() => 500)
    const call = (method: 'POST' | 'PUT' | 'GET', url: string, payload?: object) =>
      app.inject({ method, url, headers: auth(), ...(payload ? { payload } : {}) })
    try {
      const secrets = ['Bearer log-secret-1', 'log-secret-2', 'log-secret-3', 'log-secret-4']
      const body = (parameters: object) => addon({ events: ['feature-created'] }, { url: receiver.url, ...parameters })
      const created = json(await call('POST', base, body({ authorization: secrets[0], customHeaders: { 'X-Key': secrets[1] } })))
      expect((await call('PUT', `${base}/${created.id}`, body({ authorization: '*****', customHeaders: { 'X-Key': '*****', 'X-More': secrets[2] } }))).statusCode).toBe(200)
      expect((await call('PUT', `${base}/${created.id}`, body({ authorization: `${secrets[3]}\n` }))).statusCode).toBe(400)
      await call('POST', '/api/admin/projects/default/features', { name: uniqueName() })
      await eventually(async () => {
        const [delivery] = json(await call('GET', `${base}/${created.id}/deliveries`)).deliveries
        return delivery?.state === 'dead' ? delivery : undefined
      })
      const rotated = json(await call('POST', `${base}/${created.id}/rotate-secret`))
      expect(receiver.received.length).toBe(2)
      expect(receiver.received[0]!.headers.authorization).toBe(secrets[0])
      const log = logged.log()
      expect(log).toContain('webhook attempt failed')
      expect(log).toContain('request refused')
      for (const secret of [...secrets, created.signingSecret, rotated.signingSecret]) expect(log).not.toContain(secret)
    } finally {
      await logged.close()
      await receiver.close()
    }
  })
})
