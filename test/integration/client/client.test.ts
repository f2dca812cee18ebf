/**
 * The client API as the official Node SDK (unleash-client) uses it, on a listening server;
 * client tokens and switching features on and off through the admin API.
 */
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { InMemStorageProvider, Unleash } from 'unleash-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_SECRET, auth, buildTestApp, createFeature, createToken, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint, eventsOf } from '../../helpers/state.js'

// State version read on every request here; the cached version has its own test below.
const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })
let base = ''
let clientSecret = ''
const sdks: Unleash[] = []
const { clientToken, send } = requests(t)

beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
  clientSecret = await clientToken('development')
})
afterAll(() => {
  for (const sdk of sdks) sdk.destroy()
})

const variantsUrl = (feature: string, env = 'development') =>
  `/api/admin/projects/default/features/${feature}/environments/${env}/variants`
const toggle = (feature: string, state: 'on' | 'off', secret?: string, env = 'development') =>
  send('POST', `/api/admin/projects/default/features/${feature}/environments/${env}/${state}`, undefined, secret)

/** An SDK on the listening server, synchronised; metrics off unless `metricsInterval` is given. */
async function startSdk (secret = clientSecret, { appName = 'client-test', metricsInterval }: { appName?: string; metricsInterval?: number } = {}) {
  const sdk = new Unleash({
    url: `${base}/api`,
    appName,
    customHeaders: { Authorization: secret },
    refreshInterval: 200,
    ...(metricsInterval === undefined ? { disableMetrics: true } : { metricsInterval }),
    storageProvider: new InMemStorageProvider(),
  })
  sdks.push(sdk)
  sdk.on('error', () => {})
  await once(sdk, 'synchronized')
  return sdk
}

describe('client tokens', () => {
  it("are created with one environment, in Unleash's secret form, and listed with their type", async () => {
    const secret = await clientToken('production', ['default'], 'sdk-form')
    expect(secret).toMatch(/^default:production\.[0-9a-f]{48}$/)
    expect(clientSecret).toMatch(/^\*:development\.[0-9a-f]{48}$/)
    const list = json(await t.app.inject({ method: 'GET', url: '/api/admin/api-tokens', headers: auth() })).tokens
    expect(list.find((x: any) => x.tokenName === 'sdk-form')).toMatchObject({ type: 'client', projects: ['default'], project: 'default', environment: 'production' })
  })

  it('refuses a client token without its environment, or with a list of them; nothing stored', async () => {
    const before = await databaseFingerprint(t.database.db)
    for (const [payload, path] of [
      [{ tokenName: 'x1', type: 'client' }, '/body/environment'],
      [{ tokenName: 'x2', type: 'client', environment: 'development', environments: ['development'] }, '/body/environments'],
      [{ tokenName: 'x3', environment: 'development' }, '/body/environment'],
      [{ tokenName: 'x4', type: 'server', environment: 'development' }, '/body/type'],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: auth(), payload })
      expect(expectProblem(res, 400, 'BadDataError').details[0].path).toBe(path)
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('a client token on an admin route is 403, an admin token on the client API is 403, no token is 401', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/admin/projects', headers: auth(clientSecret) }), 403, 'PermissionError')
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/client/features', headers: auth() }), 403, 'PermissionError')
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/client/features' }), 401, 'AuthenticationRequired')
  })
})

describe('switching a feature on and off', () => {
  it('records an event per change and none when nothing changes', async () => {
    const feature = await createFeature(t.app)
    for (const state of ['on', 'on', 'off', 'off'] as const) expect((await toggle(feature, state)).statusCode).toBe(200)
    const types = (await eventsOf(t.database.db, feature)).map((e) => e.type).filter((x) => x.startsWith('feature-environment-'))
    expect(types).toEqual(['feature-environment-enabled', 'feature-environment-disabled'])
  })

  it('404 naming what is missing, 403 outside the scope; nothing stored', async () => {
    const feature = await createFeature(t.app)
    const scoped = await createToken(t.app, { projects: ['default'], environments: ['development'] })
    const before = await databaseFingerprint(t.database.db)
    expect(expectProblem(await toggle('no-such-feature', 'on'), 404, 'NotFoundError').message).toContain('no-such-feature')
    expect(expectProblem(await toggle(feature, 'on', undefined, 'nowhere'), 404, 'NotFoundError').message).toContain('nowhere')
    expectProblem(await toggle(feature, 'on', scoped, 'production'), 403, 'PermissionError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('GET /api/client/features', () => {
  it("serves the token's environment in Unleash's format, filtered by namePrefix and project, with an ETag and 304", async () => {
    const prefix = uniqueName('pre')
    const feature = await createFeature(t.app, 'default', `${prefix}-one`)
    await t.app.inject({ method: 'PUT', url: variantsUrl(feature), headers: auth(), payload: [{ name: 'x', weight: 0 }] })
    await toggle(feature, 'on')
    const res = await t.app.inject({ method: 'GET', url: `/api/client/features?namePrefix=${prefix}`, headers: auth(clientSecret) })
    expect(res.statusCode).toBe(200)
    expect(json(res)).toEqual({
      version: 2,
      features: [{
        name: feature,
        type: 'release',
        project: 'default',
        enabled: true,
        stale: false,
        impressionData: false,
        strategies: [{ name: 'flexibleRollout', constraints: [], parameters: { rollout: '100', stickiness: 'default', groupId: feature }, variants: [] }],
        variants: [{ name: 'x', weight: 1000, weightType: 'variable', stickiness: 'default' }],
        dependencies: [],
      }],
      query: { environment: 'development', inlineSegmentConstraints: true, namePrefix: prefix },
    })
    const etag = res.headers.etag as string
    const again = await t.app.inject({ method: 'GET', url: `/api/client/features?namePrefix=${prefix}`, headers: { ...auth(clientSecret), 'if-none-match': etag } })
    expect(again.statusCode).toBe(304)
    expect(again.body).toBe('')
    await toggle(feature, 'off')
    const changed = await t.app.inject({ method: 'GET', url: `/api/client/features?namePrefix=${prefix}`, headers: { ...auth(clientSecret), 'if-none-match': etag } })
    expect(changed.statusCode).toBe(200)
    expect(json(changed).features[0].enabled).toBe(false)
    const otherProject = await t.app.inject({ method: 'GET', url: `/api/client/features?namePrefix=${prefix}&project=elsewhere`, headers: auth(clientSecret) })
    expect(json(otherProject).features).toEqual([])
    const scopedSecret = await clientToken('development', ['elsewhere'])
    const scoped = await t.app.inject({ method: 'GET', url: `/api/client/features?namePrefix=${prefix}`, headers: auth(scopedSecret) })
    expect(json(scoped).features).toEqual([])
  })
})

describe('the official Node SDK (unleash-client)', () => {
  it('splits getVariant() by the weights computed here, honours overrides and payload types, follows on/off', async () => {
    const even = await createFeature(t.app)
    const fixed = await createFeature(t.app)
    await t.app.inject({ method: 'PUT', url: variantsUrl(even), headers: auth(), payload: [{ name: 'a', weight: 0 }, { name: 'b', weight: 0 }, { name: 'c', weight: 0 }] })
    await t.app.inject({
      method: 'PUT',
      url: variantsUrl(fixed),
      headers: auth(),
      payload: [
        { name: 'f', weight: 200, weightType: 'fix', payload: { type: 'json', value: '{"colour":"green"}' }, overrides: [{ contextName: 'userId', values: ['vip-1', 'vip-2'] }] },
        { name: 'v', weight: 0, payload: { type: 'number', value: '42' } },
      ],
    })
    await toggle(even, 'on')
    await toggle(fixed, 'on')
    const sdk = await startSdk()

    const counts: Record<string, number> = {}
    const fixedCounts: Record<string, number> = {}
    for (let i = 0; i < 10_000; i++) {
      const userId = `user-${i}`
      const a = sdk.getVariant(even, { userId }).name
      counts[a] = (counts[a] ?? 0) + 1
      const b = sdk.getVariant(fixed, { userId }).name
      fixedCounts[b] = (fixedCounts[b] ?? 0) + 1
    }
    // 334/333/333 and 200/800 per thousand, within 2 percentage points
    for (const [name, share] of [['a', 0.334], ['b', 0.333], ['c', 0.333]] as const) expect(Math.abs(counts[name]! / 10_000 - share)).toBeLessThan(0.02)
    expect(Math.abs(fixedCounts.f! / 10_000 - 0.2)).toBeLessThan(0.02)
    expect(Math.abs(fixedCounts.v! / 10_000 - 0.8)).toBeLessThan(0.02)

    expect(sdk.getVariant(fixed, { userId: 'vip-2' })).toMatchObject({ name: 'f', enabled: true, payload: { type: 'json', value: '{"colour":"green"}' } })
    const plain = Array.from({ length: 50 }, (_, i) => sdk.getVariant(fixed, { userId: `p-${i}` })).find((v) => v.name === 'v')
    expect(plain?.payload).toEqual({ type: 'number', value: '42' })

    expect(sdk.isEnabled(even, { userId: 'x' })).toBe(true)
    await toggle(even, 'off')
    await waitUntil(() => !sdk.isEnabled(even, { userId: 'x' }))
    expect(sdk.isEnabled(even, { userId: 'x' })).toBe(false)
    expect(sdk.isEnabled(fixed, { userId: 'x' })).toBe(true)
  }, 30_000)

  it('polls with If-None-Match and is answered 304 while nothing changes', async () => {
    const before = await notModifiedCount()
    await startSdk()
    await sleep(1000)
    expect(await notModifiedCount()).toBeGreaterThan(before)
  }, 30_000)
})

async function waitUntil (check: () => boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs
  while (!check() && Date.now() < deadline) await sleep(50)
}

/** 304s served on the client route, from the Prometheus metrics. */
async function notModifiedCount (): Promise<number> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
  const line = text.split('\n').find((l) => l.startsWith('http_requests_total') && l.includes('route="/api/client/features"') && l.includes('status="304"'))
  return line ? Number(line.split(' ').at(-1)) : 0
}

describe('with the state version cached (CLIENT_STATE_CACHE_MS, 1 s by default)', () => {
  it('a change is served within the cache time', async () => {
    const cached = await buildTestApp()
    try {
      const secret = await requests(cached).clientToken('development', undefined, 'c')
      const feature = await createFeature(cached.app)
      const enabled = async () => json(await cached.app.inject({ method: 'GET', url: '/api/client/features', headers: auth(secret) })).features.find((f: any) => f.name === feature)?.enabled
      await enabled()
      await cached.app.inject({ method: 'POST', url: `/api/admin/projects/default/features/${feature}/environments/development/on`, headers: auth() })
      const started = Date.now()
      while ((await enabled()) !== true && Date.now() - started < 3000) await sleep(50)
      expect(await enabled()).toBe(true)
      expect(Date.now() - started).toBeLessThan(1500)
    } finally {
      await cached.close()
    }
  })
})

/** The SDK instances registered under an app name, with their application's environment. */
const instancesOf = (appName: string) =>
  t.database.db
    .selectFrom('usage_instances as i')
    .innerJoin('usage_applications as a', 'a.id', 'i.application_id')
    .select(['a.environment', 'a.token_name', 'i.instance_id', 'i.interval_ms', 'i.sdk_version'])
    .where('a.app_name', '=', appName)
    .orderBy('i.instance_id')
    .execute()

/** A feature's stored counts, with their application's environment and name. */
const countsOf = (feature: string) =>
  t.database.db
    .selectFrom('usage_counts as c')
    .innerJoin('usage_applications as a', 'a.id', 'c.application_id')
    .select(['a.environment', 'a.app_name', 'c.yes', 'c.no', 'c.variants'])
    .where('c.feature_name', '=', feature)
    .orderBy('a.environment')
    .execute()

describe('SDK usage: register and metrics', () => {
  const register = (payload: object, secret = clientSecret) =>
    t.app.inject({ method: 'POST', url: '/api/client/register', headers: auth(secret), payload })
  const metrics = (toggles: object, secret = clientSecret, appName = 'usage-app') =>
    t.app.inject({
      method: 'POST',
      url: '/api/client/metrics',
      headers: auth(secret),
      payload: { appName, instanceId: 'i-1', bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles } },
    })
  const stagesOf = async (feature: string) =>
    json(await t.app.inject({ method: 'GET', url: `/api/admin/projects/default/features/${feature}/lifecycle`, headers: auth() }))

  it('registers an instance (202), strictly: unknown members and wrong types are 400, nothing stored', async () => {
    const body = { appName: 'reg-app', instanceId: 'i-9', strategies: ['default', 'flexibleRollout'], started: new Date().toISOString(), interval: 60000, sdkVersion: 'unleash-client-node:6.12.1' }
    expect((await register(body)).statusCode).toBe(202)
    await t.app.usage.flush()
    expect(await instancesOf('reg-app')).toEqual([
      expect.objectContaining({ instance_id: 'i-9', environment: 'development', interval_ms: 60000, sdk_version: 'unleash-client-node:6.12.1' }),
    ])
    const before = await databaseFingerprint(t.database.db)
    for (const [payload, path] of [
      [{ ...body, appName: 'other', extra: 1 }, '/body/extra'],
      [{ ...body, appName: 'other', interval: '60000' }, '/body/interval'],
      [{ ...body, appName: 'other', started: 'yesterday' }, '/body/started'],
      [{ ...body, appName: 'x\u0000' }, '/body/appName'],
    ] as const) {
      expect(expectProblem(await register(payload), 400, 'BadDataError').details[0].path).toBe(path)
    }
    expectProblem(await register({ ...body, appName: 'by-admin' }, ADMIN_SECRET), 403, 'PermissionError')
    await t.app.usage.flush()
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('adds counts to hourly buckets with variants, ignores unknown features, and moves the lifecycle: pre-live, then live', async () => {
    const feature = await createFeature(t.app)
    expect((await metrics({ [feature]: { yes: 3, no: 1, variants: { a: 2, b: 1 } }, 'no-such-feature': { yes: 5, no: 0 } })).statusCode).toBe(202)
    expect((await metrics({ [feature]: { yes: 2, no: 0, variants: { a: 1 } } })).statusCode).toBe(202)
    await t.app.usage.flush()
    expect(await countsOf(feature)).toEqual([{ environment: 'development', app_name: 'usage-app', yes: '5', no: '1', variants: { a: 3, b: 1 } }])
    expect(await countsOf('no-such-feature')).toEqual([])
    expect((await stagesOf(feature)).map((s: any) => s.stage)).toEqual(['initial', 'pre-live'])

    // Usage in production while the feature is off there leaves it pre-live; once on, live.
    const production = await clientToken('production')
    expect((await metrics({ [feature]: { yes: 0, no: 1 } }, production)).statusCode).toBe(202)
    await t.app.usage.flush()
    expect((await stagesOf(feature)).map((s: any) => s.stage)).toEqual(['initial', 'pre-live'])
    await t.app.inject({ method: 'POST', url: `/api/admin/projects/default/features/${feature}/environments/production/on`, headers: auth() })
    expect((await metrics({ [feature]: { yes: 1, no: 0 } }, production)).statusCode).toBe(202)
    await t.app.usage.flush()
    expect((await stagesOf(feature)).map((s: any) => s.stage)).toEqual(['initial', 'pre-live', 'live'])
    // live is not followed by pre-live again
    await metrics({ [feature]: { yes: 1, no: 0 } })
    await t.app.usage.flush()
    expect((await stagesOf(feature)).map((s: any) => s.stage)).toEqual(['initial', 'pre-live', 'live'])
  })

  it('a completed feature stays completed, and its lifecycle says where it is still evaluated', async () => {
    const feature = await createFeature(t.app)
    await t.app.inject({ method: 'POST', url: `/api/admin/projects/default/features/${feature}/lifecycle/complete`, headers: auth(), payload: { status: 'kept' } })
    const production = await clientToken('production')
    await metrics({ [feature]: { yes: 1, no: 0 } }, production)
    await t.app.usage.flush()
    const stages = await stagesOf(feature)
    expect(stages.map((s: any) => s.stage)).toEqual(['initial', 'completed'])
    expect(stages[1].lastEvaluated).toEqual([{ environment: 'production', lastEvaluatedAt: expect.any(String) }])
  })

  it('refuses oversized or malformed metrics with 400, nothing stored', async () => {
    const feature = await createFeature(t.app)
    const before = await databaseFingerprint(t.database.db)
    const tooMany = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}`, { yes: 1, no: 0 }]))
    for (const toggles of [tooMany, { [feature]: { yes: -1, no: 0 } }, { [feature]: { yes: 1.5, no: 0 } }, { [feature]: { yes: 1, no: 0, extra: 1 } }]) {
      expectProblem(await metrics(toggles), 400, 'BadDataError')
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('takes a report of 1000 flags of eight variants each, every name different; nine each is more names than a body may have: 400, nothing stored', async () => {
    const report = (variantsEach: number) => Object.fromEntries(Array.from({ length: 1000 }, (_, f) => [
      `names-f${f}`,
      { yes: 1, no: 0, variants: Object.fromEntries(Array.from({ length: variantsEach }, (_, v) => [`f${f}-v${v}`, 1])) },
    ]))
    expect((await metrics(report(8))).statusCode).toBe(202)
    await t.app.usage.flush()
    const before = await databaseFingerprint(t.database.db)
    const refused = expectProblem(await metrics(report(9)), 400, 'BadDataError')
    expect(refused.details).toEqual([{ path: '/body', message: expect.stringMatching(/^\/body has more than 10000 distinct member names \(at byte \d+\)$/) }])
    await t.app.usage.flush()
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('limits usage reports per token and minute: 429 with Retry-After', async () => {
    const limited = await buildTestApp({ CLIENT_USAGE_RATE: '2' })
    try {
      const secret = await requests(limited).clientToken('development', undefined, 'rl')
      const send = () => limited.app.inject({ method: 'POST', url: '/api/client/metrics', headers: auth(secret), payload: { appName: 'a', instanceId: 'i', bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles: {} } } })
      const statuses = []
      for (let i = 0; i < 3; i++) statuses.push(await send())
      expect(statuses.slice(0, 2).map((r) => r.statusCode)).toEqual([202, 202])
      const refused = expectProblem(statuses[2]!, 429, 'TooManyRequestsError')
      expect(refused.message).toContain('usage reports')
      expect(Number(statuses[2]!.headers['retry-after'])).toBeGreaterThan(0)
    } finally {
      await limited.close()
    }
  })

  it('the SDK registers itself and its metrics move the feature to pre-live, then live from production', async () => {
    const feature = await createFeature(t.app)
    await toggle(feature, 'on')
    const sdk = await startSdk(clientSecret, { appName: 'sdk-metrics', metricsInterval: 300 })
    expect(sdk.isEnabled(feature)).toBe(true)
    const stage = async () => (await stagesOf(feature)).map((s: any) => s.stage)
    const started = Date.now()
    while (!(await stage()).includes('pre-live') && Date.now() - started < 10_000) await sleep(100)
    expect(await stage()).toEqual(['initial', 'pre-live'])
    expect(await instancesOf('sdk-metrics')).toHaveLength(1)

    // An SDK in production moves it to live.
    await toggle(feature, 'on', undefined, 'production')
    const production = await startSdk(await clientToken('production'), { appName: 'sdk-metrics-production', metricsInterval: 300 })
    expect(production.isEnabled(feature)).toBe(true)
    const live = Date.now()
    while (!(await stage()).includes('live') && Date.now() - live < 10_000) await sleep(100)
    expect(await stage()).toEqual(['initial', 'pre-live', 'live'])
  }, 30_000)
})

describe('archive and revive', () => {
  it('archiving hides the feature from SDKs and refuses changes (409) until it is revived', async () => {
    const feature = await createFeature(t.app)
    await toggle(feature, 'on')
    const archive = await t.app.inject({ method: 'DELETE', url: `/api/admin/projects/default/features/${feature}`, headers: auth() })
    expect(archive.statusCode).toBe(202)
    expect((await t.app.inject({ method: 'DELETE', url: `/api/admin/projects/default/features/${feature}`, headers: auth() })).statusCode).toBe(202)
    const served = json(await t.app.inject({ method: 'GET', url: '/api/client/features', headers: auth(clientSecret) })).features
    expect(served.some((f: any) => f.name === feature)).toBe(false)
    const listed = json(await t.app.inject({ method: 'GET', url: '/api/admin/projects/default/features', headers: auth() })).features
    expect(listed.some((f: any) => f.name === feature)).toBe(false)
    const stages = json(await t.app.inject({ method: 'GET', url: `/api/admin/projects/default/features/${feature}/lifecycle`, headers: auth() }))
    expect(stages.map((s: any) => s.stage)).toEqual(['initial', 'archived'])

    const before = await databaseFingerprint(t.database.db)
    const patch = await t.app.inject({ method: 'PATCH', url: variantsUrl(feature), headers: auth(), payload: [{ op: 'add', path: '/-', value: { name: 'x', weight: 0 } }] })
    expect(expectProblem(patch, 409, 'FeatureArchivedError').message).toContain('archived')
    expectProblem(await toggle(feature, 'off'), 409, 'FeatureArchivedError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)

    const revived = await t.app.inject({ method: 'POST', url: '/api/admin/projects/default/revive', headers: auth(), payload: { features: [feature] } })
    expect(revived.statusCode).toBe(200)
    const again = await t.app.inject({ method: 'PATCH', url: variantsUrl(feature), headers: auth(), payload: [{ op: 'add', path: '/-', value: { name: 'x', weight: 0 } }] })
    expect(again.statusCode).toBe(200)
    const types = (await eventsOf(t.database.db, feature)).map((e) => e.type)
    expect(types.filter((x) => x === 'feature-archived' || x === 'feature-revived')).toEqual(['feature-archived', 'feature-revived'])
  })

  it('404 naming the first missing feature, 403 for another project; nothing changed', async () => {
    const feature = await createFeature(t.app)
    await t.app.inject({ method: 'DELETE', url: `/api/admin/projects/default/features/${feature}`, headers: auth() })
    const scoped = await createToken(t.app, { projects: ['elsewhere'] })
    const before = await databaseFingerprint(t.database.db)
    const missing = await t.app.inject({ method: 'POST', url: '/api/admin/projects/default/revive', headers: auth(), payload: { features: [feature, 'ghost-1', 'ghost-2'] } })
    expect(expectProblem(missing, 404, 'NotFoundError').message).toContain('ghost-1')
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/admin/projects/default/revive', headers: auth(scoped), payload: { features: [feature] } }), 403, 'PermissionError')
    expectProblem(await t.app.inject({ method: 'DELETE', url: '/api/admin/projects/default/features/ghost-3', headers: auth() }), 404, 'NotFoundError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('malformed requests to the new routes', () => {
  it('400 with a path, nothing stored', async () => {
    const feature = await createFeature(t.app)
    const before = await databaseFingerprint(t.database.db)
    type Request = { method: 'GET' | 'POST' | 'DELETE'; url: string; headers: Record<string, string>; payload?: object }
    const cases: [Request, string][] = [
      [{ method: 'POST', url: `/api/admin/projects/default/features/${feature}/environments/a%20b/on`, headers: auth() }, '/params/environment'],
      [{ method: 'DELETE', url: '/api/admin/projects/default/features/a%20b', headers: auth() }, '/params/featureName'],
      [{ method: 'POST', url: '/api/admin/projects/default/revive', headers: auth(), payload: { features: [] } }, '/body/features'],
      [{ method: 'POST', url: '/api/admin/projects/default/revive', headers: auth(), payload: { features: [feature], all: true } }, '/body/all'],
      [{ method: 'GET', url: `/api/client/features?namePrefix=${'x'.repeat(101)}`, headers: auth(clientSecret) }, '/query/namePrefix'],
      [{ method: 'GET', url: '/api/client/features?project=a%20b', headers: auth(clientSecret) }, '/query/project'],
    ]
    for (const [request, path] of cases) {
      const res = await t.app.inject(request)
      expect(expectProblem(res, 400, 'BadDataError').details[0].path, `${request.method} ${request.url}`).toBe(path)
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('one feature of the client API', () => {
  it('answers the feature as the list does, with its segments inlined; 404 for one that is not there, archived, or of another project; 403 for an admin token', async () => {
    const feature = await createFeature(t.app)
    const segment = json(await send('POST', '/api/admin/segments', { name: uniqueName('seg'), constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }] }))
    await send('POST', `/api/admin/projects/default/features/${feature}/environments/development/strategies`, { name: 'default', segments: [segment.id] })
    await send('POST', `/api/admin/projects/default/features/${feature}/environments/development/on`)
    const secret = await clientToken()
    const res = await send('GET', `/api/client/features/${feature}`, undefined, secret)
    expect(res.statusCode).toBe(200)
    const listed = json(await send('GET', `/api/client/features?namePrefix=${feature}`, undefined, secret)).features[0]
    expect(json(res)).toEqual(listed)
    expect(json(res)).toMatchObject({ name: feature, enabled: true, stale: false, strategies: [{ name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }] }] })
    expect(json(res).strategies[0].segments).toBeUndefined()

    expect(expectProblem(await send('GET', '/api/client/features/ghost', undefined, secret), 404, 'NotFoundError').message).toBe('Feature ghost does not exist')
    await send('POST', '/api/admin/projects', { id: 'client-one-other', name: 'Other' })
    const elsewhere = await createFeature(t.app, 'client-one-other')
    const defaultOnly = await clientToken('development', ['default'])
    expectProblem(await send('GET', `/api/client/features/${elsewhere}`, undefined, defaultOnly), 404, 'NotFoundError')
    await send('DELETE', `/api/admin/projects/default/features/${feature}`)
    expectProblem(await send('GET', `/api/client/features/${feature}`, undefined, secret), 404, 'NotFoundError')
    expectProblem(await send('GET', `/api/client/features/${elsewhere}`), 403, 'PermissionError')
  })
})
