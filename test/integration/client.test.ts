/**
 * The client API as the official Node SDK (unleash-client) uses it, on a listening server;
 * client tokens and switching features on and off through the admin API.
 */
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { InMemStorageProvider, Unleash } from 'unleash-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auth, buildTestApp, createFeature, createToken, expectProblem, json, uniqueName, useTestApp } from '../helpers/app.js'
import { databaseFingerprint, eventsOf } from '../helpers/state.js'

// State version read on every request here; the cached version has its own test below.
const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })
let base = ''
let clientSecret = ''
const sdks: Unleash[] = []

beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
  clientSecret = await createClientToken({ environment: 'development' })
})
afterAll(() => {
  for (const sdk of sdks) sdk.destroy()
})

async function createClientToken (body: object, tokenName = uniqueName('sdk')) {
  const res = await t.app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: auth(), payload: { tokenName, type: 'client', ...body } })
  expect(res.statusCode, res.body).toBe(201)
  return json(res).secret as string
}

const variantsUrl = (feature: string, env = 'development') =>
  `/api/admin/projects/default/features/${feature}/environments/${env}/variants`
const toggle = (feature: string, state: 'on' | 'off', secret?: string, env = 'development') =>
  t.app.inject({ method: 'POST', url: `/api/admin/projects/default/features/${feature}/environments/${env}/${state}`, headers: auth(secret) })

async function startSdk (secret = clientSecret) {
  const sdk = new Unleash({
    url: `${base}/api`,
    appName: 'client-test',
    customHeaders: { Authorization: secret },
    refreshInterval: 200,
    disableMetrics: true,
    storageProvider: new InMemStorageProvider(),
  })
  sdks.push(sdk)
  sdk.on('error', () => {})
  await once(sdk, 'synchronized')
  return sdk
}

describe('client tokens', () => {
  it("are created with one environment, in Unleash's secret form, and listed with their type", async () => {
    const secret = await createClientToken({ environment: 'production', projects: ['default'] }, 'sdk-form')
    expect(secret).toMatch(/^default:production\.[0-9a-f]{48}$/)
    expect(clientSecret).toMatch(/^\*:development\.[0-9a-f]{48}$/)
    const list = json(await t.app.inject({ method: 'GET', url: '/api/admin/api-tokens', headers: auth() })).tokens
    expect(list.find((x: any) => x.tokenName === 'sdk-form')).toMatchObject({ type: 'client', projects: ['default'], environments: ['production'] })
  })

  it('refuses a client token without its environment, or with a list of them; nothing stored', async () => {
    const before = await databaseFingerprint(t.database.db)
    for (const [payload, path] of [
      [{ tokenName: 'x1', type: 'client' }, '/body/environment'],
      [{ tokenName: 'x2', type: 'client', environment: 'development', environments: ['development'] }, '/body/environments'],
      [{ tokenName: 'x3', environment: 'development' }, '/body/environment'],
      [{ tokenName: 'x4', type: 'frontend', environment: 'development' }, '/body/type'],
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
    const scopedSecret = await createClientToken({ environment: 'development', projects: ['elsewhere'] })
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
      const secret = json(await cached.app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: auth(), payload: { tokenName: 'c', type: 'client', environment: 'development' } })).secret
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
