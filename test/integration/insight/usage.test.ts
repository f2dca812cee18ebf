/**
 * SDK usage read back as Unleash 8.2 answers it: a flag's usage per hour (zero-filled, filed under
 * the hour its bucket stopped), its last hour, the applications and their instances, outdated
 * SDKs, unknown flags; when a flag goes live; what feature reads say of when it was last seen.
 */
import { describe, expect, it } from 'vitest'
import { createFeature, createToken, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { databaseFingerprint } from '../../helpers/state.js'
import { requests } from '../../helpers/requests.js'

const t = useTestApp()
const { admin, send, clientToken } = requests(t)

const HOUR = 3_600_000
const startOfHour = (ms: number) => Math.floor(ms / HOUR) * HOUR
/** Reports counts as an SDK does, its bucket stopping `hoursAgo` hours ago, and writes them. */
async function report (secret: string, appName: string, toggles: Record<string, object>, hoursAgo = 0, extra: object = {}) {
  const stop = new Date(Date.now() - hoursAgo * HOUR).toISOString()
  const res = await send('POST', '/api/client/metrics', { appName, instanceId: `${appName}-1`, bucket: { start: stop, stop, toggles }, ...extra }, secret)
  expect(res.statusCode, res.body).toBe(202)
  await t.app.usage.flush()
}
const raw = async (feature: string, query = '', secret?: string) => {
  const res = await send('GET', `/api/admin/client-metrics/features/${feature}/raw${query}`, undefined, secret)
  expect(res.statusCode, res.body).toBe(200)
  return json(res)
}

describe('a flag\'s usage over time', () => {
  it('one row per hour of the window for every environment and application that reported it, zero-filled, oldest first', async () => {
    const feature = await createFeature(t.app)
    const dev = await clientToken('development')
    const prod = await clientToken('production')
    const [web, api] = [uniqueName('web'), uniqueName('api')]
    await report(dev, web, { [feature]: { yes: 3, no: 1, variants: { blue: 2 } } }, 2)
    await report(dev, web, { [feature]: { yes: 1, no: 0 } }, 2)
    await report(prod, api, { [feature]: { yes: 0, no: 5 } }, 0)
    const answer = await raw(feature)
    expect(answer).toMatchObject({ version: 1, maturity: 'stable' })
    // 24 hours × 2 environments × 2 applications.
    expect(answer.data).toHaveLength(96)
    const first = startOfHour(Date.now()) - 23 * HOUR
    expect(answer.data[0]).toEqual({ featureName: feature, appName: [web, api].sort()[0], environment: 'development', timestamp: new Date(first).toISOString(), yes: 0, no: 0 })
    expect(answer.data.at(-1).timestamp).toBe(new Date(startOfHour(Date.now())).toISOString())
    const reported = answer.data.filter((r: any) => r.yes + r.no > 0)
    expect(reported).toEqual([
      { featureName: feature, appName: web, environment: 'development', timestamp: new Date(startOfHour(Date.now() - 2 * HOUR)).toISOString(), yes: 4, no: 1, variants: { blue: 2 } },
      { featureName: feature, appName: api, environment: 'production', timestamp: new Date(startOfHour(Date.now())).toISOString(), yes: 0, no: 5, variants: {} },
    ])
    const times = answer.data.map((r: any) => Date.parse(r.timestamp))
    expect(times).toEqual([...times].sort((a, b) => a - b))
  })

  it('hoursBack bounds the window (up to the retention, 720 hours); anything else is 24; a bucket stopping in the future counts now', async () => {
    const feature = await createFeature(t.app)
    const secret = await clientToken()
    await report(secret, 'bounded', { [feature]: { yes: 1, no: 0 } }, 30)
    await report(secret, 'bounded', { [feature]: { yes: 2, no: 0 } }, -5)
    expect((await raw(feature, '?hoursBack=2')).data).toHaveLength(2)
    const week = await raw(feature, '?hoursBack=168')
    expect(week.data).toHaveLength(168)
    expect(week.data.filter((r: any) => r.yes > 0).map((r: any) => r.yes)).toEqual([1, 2])
    expect(week.data.at(-1).yes).toBe(2)
    expect((await raw(feature, '?hoursBack=720')).data).toHaveLength(720)
    for (const odd of ['0', '721', '-3', '1.5', 'abc']) expect((await raw(feature, `?hoursBack=${odd}`)).data).toHaveLength(24)
  })

  it('a flag that does not exist, or one of a project the token does not cover, has none: 200 with empty data', async () => {
    expect(await raw('no-such-flag')).toEqual({ version: 1, maturity: 'stable', data: [] })
    const summary = json(await admin.get('/api/admin/client-metrics/features/no-such-flag'))
    expect(summary).toEqual({ version: 1, maturity: 'stable', featureName: 'no-such-flag', lastHourUsage: [], seenApplications: [] })
    const feature = await createFeature(t.app)
    await report(await clientToken(), 'hidden', { [feature]: { yes: 1, no: 0 } })
    const elsewhere = await createToken(t.app, { type: 'admin', projects: ['nowhere'], environments: ['*'] })
    expect(await raw(feature, '', elsewhere)).toEqual({ version: 1, maturity: 'stable', data: [] })
    const otherEnvironment = await createToken(t.app, { type: 'admin', projects: ['*'], environments: ['production'] })
    expect(await raw(feature, '', otherEnvironment)).toEqual({ version: 1, maturity: 'stable', data: [] })
  })

  it('the summary: the last hour per environment, and the applications of the last day', async () => {
    const feature = await createFeature(t.app)
    const dev = await clientToken('development')
    const prod = await clientToken('production')
    await report(dev, 'sum-b', { [feature]: { yes: 2, no: 1 } })
    await report(dev, 'sum-a', { [feature]: { yes: 1, no: 1 } })
    await report(prod, 'sum-a', { [feature]: { yes: 7, no: 0 } })
    await report(prod, 'sum-old', { [feature]: { yes: 100, no: 100 } }, 5)
    const summary = json(await admin.get(`/api/admin/client-metrics/features/${feature}`))
    const hour = new Date(startOfHour(Date.now())).toISOString()
    expect(summary.lastHourUsage).toEqual([
      { environment: 'development', timestamp: hour, yes: 3, no: 2 },
      { environment: 'production', timestamp: hour, yes: 7, no: 0 },
    ])
    expect(summary.seenApplications).toEqual(['sum-a', 'sum-b', 'sum-old'])
  })
})

describe('applications', () => {
  it('an application that only posts metrics is listed with its instance', async () => {
    const feature = await createFeature(t.app)
    const name = uniqueName('metrics-only')
    await report(await clientToken('production'), name, { [feature]: { yes: 1, no: 0 } }, 0, { sdkVersion: 'unleash-client-node:5.0.0' })
    const list = json(await admin.get(`/api/admin/metrics/applications?query=${name}`))
    expect(list).toEqual({ total: 1, applications: [{ appName: name, strategies: [], usage: [{ project: '*', environments: ['production'] }] }] })
    const instances = json(await admin.get(`/api/admin/metrics/instances/${name}/environment/production`))
    expect(instances.instances).toEqual([{ instanceId: `${name}-1`, sdkVersion: 'unleash-client-node:5.0.0', clientIp: null, lastSeen: expect.any(String) }])
    const one = json(await admin.get(`/api/admin/metrics/applications/${name}`))
    expect(one).toMatchObject({ appName: name, instances: [{ instanceId: `${name}-1`, environment: 'production' }], seenToggles: [{ name: feature, project: 'default' }], links: { self: `/api/applications/${name}` } })
    const overview = json(await admin.get(`/api/admin/metrics/applications/${name}/overview`))
    expect(overview).toEqual({
      projects: ['default'],
      featureCount: 1,
      environments: [{ name: 'production', instanceCount: 1, sdks: ['unleash-client-node:5.0.0'], frontendSdks: [], backendSdks: ['unleash-client-node:5.0.0'], lastSeen: expect.any(String), issues: { missingFeatures: [], outdatedSdks: ['unleash-client-node:5.0.0'] } }],
      issues: { missingStrategies: [] },
    })
    const outdated = json(await admin.get('/api/admin/metrics/sdks/outdated'))
    expect(outdated.sdks).toContainEqual({ sdkVersion: 'unleash-client-node:5.0.0', applications: expect.arrayContaining([name]) })
    const projectOutdated = json(await admin.get('/api/admin/projects/default/sdks/outdated'))
    expect(projectOutdated.sdks.find((s: any) => s.sdkVersion === 'unleash-client-node:5.0.0').applications).toContain(name)
  })

  it('registered instances keep what they said; strategies without a definition are missing', async () => {
    const secret = await clientToken()
    const name = uniqueName('registered')
    const res = await send('POST', '/api/client/register', { appName: name, instanceId: 'r-1', strategies: ['default', 'homemade'], started: new Date().toISOString(), interval: 15000, sdkVersion: 'unleash-client-node:6.1.0' }, secret)
    expect(res.statusCode).toBe(202)
    const feature = await createFeature(t.app)
    await report(secret, name, { [feature]: { yes: 1, no: 1 }, [`typo-${feature}`]: { yes: 1, no: 0 } }, 0, { instanceId: 'r-1' })
    const one = json(await admin.get(`/api/admin/metrics/applications/${name}`))
    expect(one.strategies).toEqual([{ name: 'default', description: expect.any(String) }, { name: 'homemade', notFound: true }])
    expect(one.instances).toMatchObject([{ instanceId: 'r-1', sdkVersion: 'unleash-client-node:6.1.0' }])
    const overview = json(await admin.get(`/api/admin/metrics/applications/${name}/overview`))
    expect(overview.issues.missingStrategies).toEqual(['homemade'])
    expect(overview.environments[0].issues).toEqual({ missingFeatures: [`typo-${feature}`], outdatedSdks: [] })
  })

  it('people describe an application (application-created, then -updated); deleting forgets it and what it reported', async () => {
    const name = uniqueName('described')
    const created = await admin.post(`/api/admin/metrics/applications/${name}`, { description: 'Checkout', url: 'https://shop.example', color: 'red', strategies: ['default'] })
    expect(created.statusCode).toBe(202)
    expect(created.body).toBe('')
    const events = async () => (await t.database.db.selectFrom('events').select(['type', 'data', 'pre_data']).where('type', 'like', 'application-%').orderBy('id').execute())
      .map((e) => ({ type: e.type, data: JSON.parse(e.data ?? 'null'), pre_data: JSON.parse(e.pre_data ?? 'null') }))
    expect((await events()).at(-1)).toMatchObject({ type: 'application-created', data: { appName: name, description: 'Checkout', url: 'https://shop.example', color: 'red', icon: null, strategies: ['default'] } })
    await admin.post(`/api/admin/metrics/applications/${name}`, { icon: 'cart' })
    expect((await events()).at(-1)).toMatchObject({ type: 'application-updated', data: { icon: 'cart', description: 'Checkout' }, pre_data: { icon: null } })
    const count = (await events()).length
    await admin.post(`/api/admin/metrics/applications/${name}`, { icon: 'cart' })
    expect(await events()).toHaveLength(count)
    expect(json(await admin.get(`/api/admin/metrics/applications/${name}`))).toMatchObject({ description: 'Checkout', url: 'https://shop.example', color: 'red', icon: 'cart' })
    const listed = json(await admin.get(`/api/admin/metrics/applications?query=${name}`)).applications
    expect(listed).toEqual([{ appName: name, strategies: ['default'], url: 'https://shop.example', color: 'red', icon: 'cart', usage: [] }])

    const feature = await createFeature(t.app)
    await report(await clientToken(), name, { [feature]: { yes: 1, no: 0 } })
    expect((await admin.delete(`/api/admin/metrics/applications/${name}`)).statusCode).toBe(200)
    expect((await events()).at(-1)).toMatchObject({ type: 'application-deleted', data: { appName: name } })
    expectProblem(await admin.get(`/api/admin/metrics/applications/${name}`), 404, 'NotFoundError')
    expect((await raw(feature)).data).toEqual([])
    // Unknown: 200, and nothing changes.
    const before = await databaseFingerprint(t.database.db)
    expect((await admin.delete(`/api/admin/metrics/applications/${name}`)).statusCode).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('refusals change nothing: unknown members, an unknown application\'s overview', async () => {
    const before = await databaseFingerprint(t.database.db)
    expectProblem(await admin.post(`/api/admin/metrics/applications/${uniqueName('a')}`, { colour: 'red' }), 400, 'BadDataError')
    expectProblem(await admin.post(`/api/admin/metrics/applications/${uniqueName('a')}`, { strategies: 'default' }), 400, 'BadDataError')
    expectProblem(await admin.get('/api/admin/metrics/applications/nobody/overview'), 404, 'NotFoundError')
    expect(json(await admin.get('/api/admin/metrics/instances/nobody/environment/development'))).toEqual({ instances: [] })
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('unknown flags', () => {
  it('names SDKs reported that are no flag, per application and environment; a flag created since is no longer listed', async () => {
    const typo = uniqueName('typo')
    await report(await clientToken('development'), 'typo-app', { [typo]: { yes: 1, no: 0 } })
    await report(await clientToken('production'), 'typo-app', { [typo]: { yes: 0, no: 1 } })
    const listed = json(await admin.get('/api/admin/metrics/unknown-flags')).unknownFlags.find((f: any) => f.name === typo)
    expect(listed).toEqual({
      name: typo,
      lastSeenAt: expect.any(String),
      lastEventAt: null,
      reports: [{ appName: 'typo-app', environments: [{ environment: 'development', seenAt: expect.any(String) }, { environment: 'production', seenAt: expect.any(String) }] }],
    })
    await createFeature(t.app, 'default', typo)
    expect(json(await admin.get('/api/admin/metrics/unknown-flags')).unknownFlags.map((f: any) => f.name)).not.toContain(typo)
  })
})

describe('what usage moves and what feature reads say', () => {
  it('usage in production makes a flag live only where it is on; elsewhere, pre-live', async () => {
    const feature = await createFeature(t.app)
    const prod = await clientToken('production')
    const stages = async () => json(await admin.get(`/api/admin/projects/default/features/${feature}/lifecycle`)).map((s: any) => s.stage)
    await report(prod, 'live-app', { [feature]: { yes: 0, no: 3 } })
    expect(await stages()).toEqual(['initial', 'pre-live'])
    await admin.post(`/api/admin/projects/default/features/${feature}/environments/production/on`)
    await report(prod, 'live-app', { [feature]: { yes: 3, no: 0 } })
    expect(await stages()).toEqual(['initial', 'pre-live', 'live'])
    const types = await t.database.db.selectFrom('events').select(['type', 'environment']).where('feature_name', '=', feature).where('type', '=', 'feature-lifecycle-stage-entered').orderBy('id').execute()
    expect(types).toEqual([{ type: 'feature-lifecycle-stage-entered', environment: 'production' }, { type: 'feature-lifecycle-stage-entered', environment: 'production' }])
  })

  it('a feature\'s environments say when SDKs last evaluated it there; the flag says whether it is stale', async () => {
    const feature = await createFeature(t.app)
    await report(await clientToken('development'), 'seen-app', { [feature]: { yes: 1, no: 0 } })
    const read = json(await admin.get(`/api/admin/projects/default/features/${feature}`))
    expect(read.stale).toBe(false)
    const dev = read.environments.find((e: any) => e.name === 'development')
    expect(Date.parse(dev.lastSeenAt)).toBeGreaterThan(Date.now() - 60_000)
    expect(read.environments.find((e: any) => e.name === 'production').lastSeenAt).toBeNull()
    const listed = json(await admin.get('/api/admin/projects/default/features')).features.find((f: any) => f.name === feature)
    expect(listed.environments.find((e: any) => e.name === 'development').lastSeenAt).toBe(dev.lastSeenAt)
  })
})
