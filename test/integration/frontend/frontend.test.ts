/**
 * The frontend API and OFREP: frontend tokens, answers as Unleash's frontend API gives them,
 * evaluated by the official engine (checked against the official Node SDK on every case of the
 * client specification), CORS, usage reports; and the official clients: unleash-proxy-client in
 * Node, and the OpenFeature server SDK with the OFREP provider.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { OFREPProvider } from '@openfeature/ofrep-provider'
import { OpenFeature } from '@openfeature/server-sdk'
import { UnleashClient } from 'unleash-proxy-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auth, buildTestApp, createFeature, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { specFiles, withSpecState } from '../../helpers/client-spec.js'
import { databaseFingerprint } from '../../helpers/state.js'
import type { VariantAnswer } from '../../../src/evaluation/variants.js'
import { ofrepResult } from '../../../src/frontend/ofrep.js'
import { requests } from '../../helpers/requests.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0', FRONTEND_ALLOWED_ORIGINS: 'https://app.example, https://other.example' })
let base = ''
let frontendSecret = ''

const features = '/api/admin/projects/default/features'
const { admin: { post }, frontendToken } = requests(t)

/** A feature of the default project switched on in development, with these variants (or none). */
async function featureOn (variants?: object[], name = uniqueName('web')) {
  await createFeature(t.app, 'default', name)
  if (variants) await t.app.inject({ method: 'PUT', url: `${features}/${name}/environments/development/variants`, headers: auth(), payload: variants })
  await post(`${features}/${name}/environments/development/on`)
  return name
}

beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
  frontendSecret = await frontendToken()
})

describe('frontend tokens', () => {
  it("have one environment and Unleash's secret form; work only on the frontend API and OFREP", async () => {
    expect(frontendSecret).toMatch(/^\*:development\.[0-9a-f]{48}$/)
    expect(await frontendToken('production', ['default'])).toMatch(/^default:production\./)
    expect(await frontendToken('production', ['default', 'other'])).toMatch(/^\[\]:production\./)
    const clientToken = json(await post('/api/admin/api-tokens', { tokenName: uniqueName('sdk'), type: 'client', environment: 'development' })).secret
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/admin/projects', headers: auth(frontendSecret) }), 403, 'PermissionError')
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/client/features', headers: auth(frontendSecret) }), 403, 'PermissionError')
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/frontend', headers: auth(clientToken) }), 403, 'PermissionError')
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/frontend', headers: auth() }), 403, 'PermissionError')
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/frontend' }), 401, 'AuthenticationRequired')
    expect((await post('/ofrep/v1/evaluate/flags', { context: {} }, { authorization: `Bearer ${frontendSecret}` })).statusCode).toBe(200)
    // OFREP's refusals are the problem body as application/json (OFREP's media type).
    const ofrepRefusal = await post('/ofrep/v1/evaluate/flags', { context: {} }, { authorization: clientToken })
    expect([ofrepRefusal.statusCode, ofrepRefusal.headers['content-type'], json(ofrepRefusal).name]).toEqual([403, 'application/json; charset=utf-8', 'PermissionError'])
  })

  it('a frontend token needs its one environment, in environment; nothing stored after a refusal', async () => {
    const before = await databaseFingerprint(t.database.db)
    for (const [payload, path] of [
      [{ tokenName: 'f1', type: 'frontend' }, '/body/environment'],
      [{ tokenName: 'f2', type: 'frontend', environment: 'development', environments: ['development'] }, '/body/environments'],
    ] as const) {
      expect(expectProblem(await post('/api/admin/api-tokens', payload), 400, 'BadDataError').details[0].path).toBe(path)
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('GET and POST /api/frontend', () => {
  it('answer the features on for the context, with their variants and impressionData; off ones are left out', async () => {
    const plain = await featureOn()
    const split = await featureOn([{ name: 'blue', weight: 0, payload: { type: 'json', value: '{"c":1}' } }])
    const off = uniqueName('web')
    await createFeature(t.app, 'default', off)
    const vip = uniqueName('web')
    await createFeature(t.app, 'default', vip)
    await t.app.inject({ method: 'PUT', url: `${features}/${vip}`, headers: auth(), payload: { impressionData: true } })
    await post(`${features}/${vip}/environments/development/strategies`, { name: 'default', constraints: [{ contextName: 'plan', operator: 'IN', values: ['pro'] }] })
    await post(`${features}/${vip}/environments/development/on`)

    const get = (query: string) => t.app.inject({ method: 'GET', url: `/api/frontend?${query}`, headers: auth(frontendSecret) })
    const ours = (res: { body: string }) => json(res as never).toggles.filter((x: { name: string }) => [plain, split, off, vip].includes(x.name))
    const anonymous = ours(await get('userId=u1'))
    expect(anonymous).toEqual([
      { name: plain, enabled: true, variant: { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true }, impressionData: false },
      { name: split, enabled: true, variant: { name: 'blue', enabled: true, feature_enabled: true, featureEnabled: true, payload: { type: 'json', value: '{"c":1}' } }, impressionData: false },
    ].sort((a, b) => (a.name < b.name ? -1 : 1)))
    expect(ours(await get('userId=u1&properties%5Bplan%5D=pro')).map((x: { name: string }) => x.name)).toContain(vip)
    // A name that is not a top-level field is a property, as Unleash reads it.
    expect(ours(await get('userId=u1&plan=pro')).find((x: { name: string }) => x.name === vip)).toMatchObject({ impressionData: true })
    const viaPost = await post('/api/frontend', { context: { userId: 'u1', properties: { plan: 'pro' } } }, auth(frontendSecret))
    expect(viaPost.statusCode).toBe(200)
    expect(ours(viaPost).map((x: { name: string }) => x.name)).toContain(vip)
  })

  it('sends an ETag and answers 304 to If-None-Match (weakly); a change moves it', async () => {
    const name = await featureOn()
    const url = '/api/frontend?userId=u9'
    const first = await t.app.inject({ method: 'GET', url, headers: auth(frontendSecret) })
    const etag = first.headers.etag as string
    expect(etag).toMatch(/^"[\w-]+"$/)
    expect(first.headers['cache-control']).toBe('no-cache')
    for (const held of [etag, `W/${etag}`]) {
      const again = await t.app.inject({ method: 'GET', url, headers: { ...auth(frontendSecret), 'if-none-match': held } })
      expect(again.statusCode).toBe(304)
      expect(again.body).toBe('')
    }
    await post(`${features}/${name}/environments/development/off`)
    const changed = await t.app.inject({ method: 'GET', url, headers: { ...auth(frontendSecret), 'if-none-match': etag } })
    expect(changed.statusCode).toBe(200)
    expect(json(changed).toggles.some((x: { name: string }) => x.name === name)).toBe(false)
  })

  it('only the token\'s projects and environment', async () => {
    await post('/api/admin/projects', { id: 'web-other', name: 'Other' })
    const elsewhere = uniqueName('web')
    await createFeature(t.app, 'web-other', elsewhere)
    await post(`/api/admin/projects/web-other/features/${elsewhere}/environments/development/on`)
    const scoped = await frontendToken('development', ['default'])
    const names = json(await t.app.inject({ method: 'GET', url: '/api/frontend', headers: auth(scoped) })).toggles.map((x: { name: string }) => x.name)
    expect(names).not.toContain(elsewhere)
    const production = await frontendToken('production')
    const onInDev = await featureOn()
    expect(json(await t.app.inject({ method: 'GET', url: '/api/frontend', headers: auth(production) })).toggles.map((x: { name: string }) => x.name)).not.toContain(onInDev)
  })

  it('refuses bad context with a 400 naming the field; nothing stored', async () => {
    const before = await databaseFingerprint(t.database.db)
    expect(expectProblem(await t.app.inject({ method: 'GET', url: `/api/frontend?userId=${'x'.repeat(1001)}`, headers: auth(frontendSecret) }), 400, 'BadDataError').details[0].path).toBe('/query/userId')
    expect(expectProblem(await t.app.inject({ method: 'GET', url: '/api/frontend?userId=a&userId=b', headers: auth(frontendSecret) }), 400, 'BadDataError').details[0].path).toBe('/query/userId')
    expect(expectProblem(await post('/api/frontend', { context: { userId: 5 } }, auth(frontendSecret)), 400, 'BadDataError').details[0].path).toBe('/body/context/userId')
    expect(expectProblem(await post('/api/frontend', { ctx: {} }, auth(frontendSecret)), 400, 'BadDataError').details[0].path).toBe('/body/ctx')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('the answers are the official SDK\'s', () => {
  it('for every case of the client specification, the frontend API and OFREP answer what the Node SDK computes for that context', async () => {
    let compared = 0
    for (const file of specFiles()) {
      await withSpecState(file, async ({ t: app, spec, written, sdk }) => {
        const token = await requests(app).frontendToken('development', undefined, 'web')
        for (const test of [...(spec.tests ?? []), ...(spec.variantTests ?? [])]) {
          if (written.refused.has(test.toggleName)) continue
          // The frontend API fills in the caller's address; the SDK is given the same context.
          const context = { remoteAddress: '127.0.0.1', ...test.context }
          const res = await app.app.inject({ method: 'POST', url: '/api/frontend', headers: auth(token), payload: { context } })
          expect(res.statusCode, res.body).toBe(200)
          const toggle = json(res).toggles.find((x: { name: string }) => x.name === test.toggleName)
          const answers = Array.from({ length: 8 }, () => sdk.getVariant(test.toggleName, context as never) as unknown as Record<string, unknown>)
          const expected = answers[0]!
          // A variant whose stickiness field is missing from the context is picked at random,
          // by the SDK as by the engine: then the feature's state is compared, not the variant.
          const random = answers.some((a) => JSON.stringify(a) !== JSON.stringify(expected))
          if (expected.feature_enabled) {
            const variant = random ? expect.objectContaining({ feature_enabled: true }) : expected
            expect(toggle, `${file}: ${test.description}`).toEqual({ name: test.toggleName, enabled: true, variant, impressionData: expect.any(Boolean) })
          } else {
            expect(toggle, `${file}: ${test.description}`).toBeUndefined()
          }
          // OFREP answers the same evaluation, mapped.
          const flag = await app.app.inject({ method: 'POST', url: `/ofrep/v1/evaluate/flags/${test.toggleName}`, headers: auth(token), payload: { context } })
          if (sdk.getFeatureToggleDefinition(test.toggleName) === undefined) {
            expect(json(flag), `${file}: ${test.description} (OFREP)`).toMatchObject({ key: test.toggleName, errorCode: 'FLAG_NOT_FOUND' })
            compared++
            continue
          }
          expect(flag.statusCode, flag.body).toBe(200)
          const mapped = ofrepResult(test.toggleName, expected as unknown as VariantAnswer, 'default')
          expect(json(flag), `${file}: ${test.description} (OFREP)`).toEqual(random ? { ...mapped, variant: expect.any(String), value: expect.anything() } : mapped)
          compared++
        }
      })
    }
    expect(compared).toBeGreaterThanOrEqual(250)
  }, 300_000)
})

describe('large answers over a real socket', () => {
  it('parallel polls of different users each get their own bytes (answer buffers are reused only once sent)', async () => {
    await post('/api/admin/projects', { id: 'web-big', name: 'Big' })
    await post('/api/admin/projects/web-big/environments', { environment: 'development' })
    const big = '/api/admin/projects/web-big/features'
    const variants = ['a', 'b', 'c'].map((name) => ({ name, weight: 0, payload: { type: 'string', value: `${name}-${'x'.repeat(1000)}` } }))
    for (let i = 0; i < 120; i++) {
      const name = `big-${i}`
      await createFeature(t.app, 'web-big', name)
      await t.app.inject({ method: 'PUT', url: `${big}/${name}/environments/development/variants`, headers: auth(), payload: variants })
      await post(`${big}/${name}/environments/development/on`)
    }
    const token = await frontendToken('development', ['web-big'])
    const users = Array.from({ length: 40 }, (_, i) => `user-${i}`)
    const expected = await Promise.all(users.map(async (u) => (await t.app.inject({ method: 'GET', url: `/api/frontend?userId=${u}`, headers: auth(token) })).body))
    expect(expected[0]!.length).toBeGreaterThan(100_000)
    expect(new Set(expected).size).toBeGreaterThan(30)
    for (let round = 0; round < 3; round++) {
      const got = await Promise.all(users.map(async (u) => (await fetch(`${base}/api/frontend?userId=${u}`, { headers: { authorization: token } })).text()))
      expect(got).toEqual(expected)
      const bulk = await Promise.all(users.map(async (u) => {
        const res = await fetch(`${base}/ofrep/v1/evaluate/flags`, { method: 'POST', headers: { authorization: token, 'content-type': 'application/json' }, body: JSON.stringify({ context: { targetingKey: u } }) })
        return (await res.json() as { flags: { key: string; variant: string }[] }).flags.map((f) => `${f.key}=${f.variant}`).join()
      }))
      expect(bulk).toEqual(expected.map((text) => (JSON.parse(text) as { toggles: { name: string; variant: { name: string } }[] }).toggles.map((x) => `${x.name}=${x.variant.name}`).join()))
    }
  }, 60_000)
})

describe('CORS on the frontend API and OFREP only', () => {
  it('a preflight from an allowed origin gets 204 with the methods and the headers browser SDKs send; a disallowed origin gets no CORS header', async () => {
    const preflight = (url: string, origin: string) =>
      t.app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,unleash-sdk' } })
    const ok = await preflight('/api/frontend', 'https://app.example')
    expect(ok.statusCode).toBe(204)
    expect(ok.headers).toMatchObject({ 'access-control-allow-origin': 'https://app.example', 'access-control-expose-headers': 'ETag' })
    expect(String(ok.headers['access-control-allow-methods'])).toContain('GET')
    for (const header of ['authorization', 'content-type', 'if-none-match', 'unleash-appname', 'unleash-sdk', 'unleash-connection-id']) {
      expect(String(ok.headers['access-control-allow-headers'])).toContain(header)
    }
    expect((await preflight('/ofrep/v1/evaluate/flags', 'https://other.example')).headers['access-control-allow-origin']).toBe('https://other.example')
    const refused = await preflight('/api/frontend', 'https://evil.example')
    expect(refused.headers['access-control-allow-origin']).toBeUndefined()
    expect(refused.headers['access-control-allow-headers']).toBeUndefined()
    const read = await t.app.inject({ method: 'GET', url: '/api/frontend', headers: { ...auth(frontendSecret), origin: 'https://app.example' } })
    expect(read.headers).toMatchObject({ 'access-control-allow-origin': 'https://app.example', 'access-control-expose-headers': 'ETag' })
    // An answer the browser may read includes a refusal.
    expect((await t.app.inject({ method: 'GET', url: '/api/frontend', headers: { origin: 'https://app.example' } })).headers['access-control-allow-origin']).toBe('https://app.example')
    const admin = await t.app.inject({ method: 'GET', url: '/api/admin/projects', headers: { ...auth(), origin: 'https://app.example' } })
    expect(admin.headers['access-control-allow-origin']).toBeUndefined()
    const client = await t.app.inject({ method: 'OPTIONS', url: '/api/client/features', headers: { origin: 'https://app.example', ...auth() } })
    expect(client.headers['access-control-allow-origin']).toBeUndefined()
  })
})

describe('usage reports of browser SDKs', () => {
  it('metrics (200) count and move the lifecycle; register (200) stores nothing; both are rate-limited', async () => {
    const name = await featureOn()
    const now = new Date().toISOString()
    const metrics = await post('/api/frontend/client/metrics', { appName: 'web', instanceId: 'browser', bucket: { start: now, stop: now, toggles: { [name]: { yes: 2, no: 0 } } } }, auth(frontendSecret))
    expect(metrics.statusCode).toBe(200)
    await t.app.usage.flush()
    const stages = json(await t.app.inject({ method: 'GET', url: `${features}/${name}/lifecycle`, headers: auth() })).map((s: { stage: string }) => s.stage)
    expect(stages).toEqual(['initial', 'pre-live'])
    const before = await databaseFingerprint(t.database.db)
    expect((await post('/api/frontend/client/register', { appName: 'web', interval: 30000, started: now, strategies: ['default'] }, auth(frontendSecret))).statusCode).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    const limited = await buildTestApp({ CLIENT_USAGE_RATE: '1' })
    try {
      const secret = await requests(limited).frontendToken('development', undefined, 'w')
      const register = () => limited.app.inject({ method: 'POST', url: '/api/frontend/client/register', headers: auth(secret), payload: { appName: 'web', interval: 1, started: 0, strategies: [] } })
      expect((await register()).statusCode).toBe(200)
      expectProblem(await register(), 429, 'TooManyRequestsError')
    } finally {
      await limited.close()
    }
  })
})

describe('OFREP', () => {
  const evaluate = (key: string, context: object, secret = frontendSecret) =>
    post(`/ofrep/v1/evaluate/flags/${key}`, { context }, { authorization: `Bearer ${secret}` })

  it('maps features to values: booleans, payloads by type, variant names; FLAG_NOT_FOUND; INVALID_CONTEXT', async () => {
    const plain = await featureOn()
    const json_ = await featureOn([{ name: 'cfg', weight: 0, payload: { type: 'json', value: '{"limit":3}' } }])
    const number = await featureOn([{ name: 'n', weight: 0, payload: { type: 'number', value: '42.5' } }])
    const csv = await featureOn([{ name: 'c', weight: 0, payload: { type: 'csv', value: 'a,b' } }])
    const named = await featureOn([{ name: 'only-a-name', weight: 0 }])
    const off = uniqueName('web')
    await createFeature(t.app, 'default', off)
    expect(json(await evaluate(plain, { targetingKey: 'u1' }))).toEqual({ key: plain, reason: 'TARGETING_MATCH', variant: 'enabled', value: true, metadata: { project: 'default' } })
    expect(json(await evaluate(off, { targetingKey: 'u1' }))).toMatchObject({ key: off, reason: 'DISABLED', value: false })
    expect(json(await evaluate(json_, { targetingKey: 'u1' }))).toMatchObject({ reason: 'SPLIT', variant: 'cfg', value: { limit: 3 } })
    expect(json(await evaluate(number, { targetingKey: 'u1' }))).toMatchObject({ variant: 'n', value: 42.5 })
    expect(json(await evaluate(csv, { targetingKey: 'u1' }))).toMatchObject({ variant: 'c', value: 'a,b' })
    expect(json(await evaluate(named, { targetingKey: 'u1' }))).toMatchObject({ variant: 'only-a-name', value: 'only-a-name' })
    const missing = await evaluate('no-such-flag', { targetingKey: 'u1' })
    expect(missing.statusCode).toBe(404)
    expect(json(missing)).toEqual({ key: 'no-such-flag', errorCode: 'FLAG_NOT_FOUND', errorDetails: "Flag 'no-such-flag' was not found" })
    const invalid = await evaluate(plain, { targetingKey: 'u1', nested: { a: 1 } })
    expect(invalid.statusCode).toBe(400)
    expect(json(invalid)).toMatchObject({ key: plain, errorCode: 'INVALID_CONTEXT' })
    const notAnObject = await post(`/ofrep/v1/evaluate/flags/${plain}`, { context: [] }, { authorization: frontendSecret })
    expect(json(notAnObject)).toMatchObject({ key: plain, errorCode: 'INVALID_CONTEXT' })
    const garbage = await t.app.inject({ method: 'POST', url: `/ofrep/v1/evaluate/flags/${plain}`, headers: { authorization: frontendSecret, 'content-type': 'application/json' }, payload: '{"context":' })
    expect(json(garbage)).toMatchObject({ key: plain, errorCode: 'PARSE_ERROR' })
  })

  it('bulk: every flag of the token, with an ETag and 304 to If-None-Match', async () => {
    const name = await featureOn()
    const bulk = await post('/ofrep/v1/evaluate/flags', { context: { targetingKey: 'u1' } }, { authorization: frontendSecret })
    expect(bulk.statusCode).toBe(200)
    expect(json(bulk).flags.find((f: { key: string }) => f.key === name)).toMatchObject({ value: true, reason: 'TARGETING_MATCH' })
    const again = await post('/ofrep/v1/evaluate/flags', { context: { targetingKey: 'u1' } }, { authorization: frontendSecret, 'if-none-match': bulk.headers.etag as string })
    expect(again.statusCode).toBe(304)
  })
})

describe('the official clients on a listening server', () => {
  const clients: UnleashClient[] = []
  afterAll(() => {
    for (const c of clients) c.stop()
  })

  it('unleash-proxy-client (the browser SDK, in Node): isEnabled, getVariant with payload, updateContext, 304 on unchanged polls, metrics that move the lifecycle', async () => {
    const gated = uniqueName('web')
    await createFeature(t.app, 'default', gated)
    await post(`${features}/${gated}/environments/development/strategies`, { name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['vip'] }] })
    await t.app.inject({ method: 'PUT', url: `${features}/${gated}/environments/development/variants`, headers: auth(), payload: [{ name: 'gold', weight: 0, payload: { type: 'string', value: 'shiny' } }] })
    await post(`${features}/${gated}/environments/development/on`)
    const client = new UnleashClient({ url: `${base}/api/frontend`, clientKey: frontendSecret, appName: 'proxy-client-test', refreshInterval: 1, metricsInterval: 1, metricsIntervalInitial: 0.5 })
    clients.push(client)
    client.on('error', () => {})
    const ready = new Promise<void>((resolve) => client.on('ready', () => resolve()))
    await client.start()
    await ready
    expect(client.isEnabled(gated)).toBe(false)
    await client.updateContext({ userId: 'vip' })
    expect(client.isEnabled(gated)).toBe(true)
    expect(client.getVariant(gated)).toMatchObject({ name: 'gold', enabled: true, payload: { type: 'string', value: 'shiny' } })
    const notModified = async () => {
      const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
      const line = text.split('\n').find((l) => l.startsWith('http_requests_total') && l.includes('route="/api/frontend"') && l.includes('status="304"'))
      return line ? Number(line.split(' ').at(-1)) : 0
    }
    const before = await notModified()
    await sleep(2500)
    expect(await notModified()).toBeGreaterThan(before)
    const deadline = Date.now() + 10_000
    const stage = async () => json(await t.app.inject({ method: 'GET', url: `${features}/${gated}/lifecycle`, headers: auth() })).map((s: { stage: string }) => s.stage)
    while (!(await stage()).includes('pre-live') && Date.now() < deadline) await sleep(200)
    expect(await stage()).toEqual(['initial', 'pre-live'])
  }, 30_000)

  it('@openfeature/server-sdk with the OFREP provider: boolean, string, number and object evaluations; a missing flag gives the default with FLAG_NOT_FOUND', async () => {
    const flag = await featureOn()
    const text = await featureOn([{ name: 't', weight: 0, payload: { type: 'string', value: 'hello' } }])
    const number = await featureOn([{ name: 'n', weight: 0, payload: { type: 'number', value: '7' } }])
    const object = await featureOn([{ name: 'o', weight: 0, payload: { type: 'json', value: '{"theme":"dark"}' } }])
    await OpenFeature.setProviderAndWait(new OFREPProvider({ baseUrl: base, headers: [['Authorization', `Bearer ${frontendSecret}`]] }))
    const client = OpenFeature.getClient()
    const context = { targetingKey: 'user-42', plan: 'pro' }
    expect(await client.getBooleanValue(flag, false, context)).toBe(true)
    expect(await client.getStringValue(text, 'default', context)).toBe('hello')
    expect(await client.getNumberValue(number, 0, context)).toBe(7)
    expect(await client.getObjectValue(object, {}, context)).toEqual({ theme: 'dark' })
    const missing = await client.getBooleanDetails('no-such-flag', true, context)
    expect(missing).toMatchObject({ value: true, errorCode: 'FLAG_NOT_FOUND', reason: 'ERROR' })
    await OpenFeature.close()
  })
})
