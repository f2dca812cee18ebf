/**
 * POST /api/client/metrics/bulk, as Unleash takes Unleash Edge's (and a relay's) batches: the
 * applications registered (browser SDKs' not stored), the counts of the token's environment
 * added per application with the rules of one SDK's reports, others ignored; a refused
 * application does not stop the others, and the batch is then 400.
 */
import { describe, expect, it } from 'vitest'
import { createFeature, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp({ CLIENT_MAX_APPLICATIONS: '2' })
const { clientToken, frontendToken, send } = requests(t)

const bulk = (secret: string, body: object) => send('POST', '/api/client/metrics/bulk', body, secret)
const countsOf = (appName: string) =>
  t.database.db
    .selectFrom('usage_counts as c')
    .innerJoin('usage_applications as a', 'a.id', 'c.application_id')
    .select(['c.feature_name', 'c.yes', 'c.no', 'c.variants', 'a.environment', 'a.token_name'])
    .where('a.app_name', '=', appName)
    .execute()
const instancesOf = (appName: string) =>
  t.database.db
    .selectFrom('usage_instances as i')
    .innerJoin('usage_applications as a', 'a.id', 'i.application_id')
    .select(['i.instance_id', 'i.sdk_version'])
    .where('a.app_name', '=', appName)
    .execute()

describe('POST /api/client/metrics/bulk', () => {
  it('registers backend applications, counts the token environment\'s metrics per application and moves the lifecycle', async () => {
    const secret = await clientToken('development')
    const [a, b] = [await createFeature(t.app), await createFeature(t.app)]
    const app = uniqueName('edge-app')
    const web = uniqueName('web-app')
    const res = await bulk(secret, {
      applications: [
        { appName: app, instanceId: 'pod-1', environment: 'development', interval: 15, started: new Date().toISOString(), strategies: ['default'], sdkVersion: 'unleash-client-node:6.12.1', sdkType: 'backend', connectVia: [{ appName: 'relay', instanceId: 'r1' }] },
        { appName: web, instanceId: 'browser-1', environment: 'development', sdkType: 'frontend', sdkVersion: 'unleash-client-js:3.8.2' },
      ],
      metrics: [
        { featureName: a, appName: app, environment: 'development', timestamp: new Date().toISOString(), yes: 3, no: 1, variants: { blue: 2 } },
        { featureName: a, appName: app, environment: 'development', yes: 1, no: 0, variants: { blue: 1 } },
        { featureName: b, appName: app, environment: 'production', yes: 5, no: 5 },
        { featureName: b, appName: web, environment: 'development', yes: 1, no: 0 },
      ],
      seenTokens: [secret],
      impactMetrics: [],
    })
    expect(res.statusCode, res.body).toBe(202)
    expect(res.body).toBe('')
    await t.app.usage.flush()
    const counts = await countsOf(app)
    expect(counts).toEqual([expect.objectContaining({ feature_name: a, yes: '4', no: '1', variants: { blue: 3 }, environment: 'development' })])
    expect(await instancesOf(app)).toEqual([{ instance_id: 'pod-1', sdk_version: 'unleash-client-node:6.12.1' }])
    // A browser SDK's registration is not stored; its counts are.
    expect(await instancesOf(web)).toEqual([])
    expect((await countsOf(web)).map((c) => c.feature_name)).toEqual([b])
    const lifecycle = json(await send('GET', `/api/admin/projects/default/features/${a}/lifecycle`))
    expect(lifecycle.map((s: any) => s.stage)).toContain('pre-live')
  })

  it('an application past the cap is refused (400) while the others are recorded', async () => {
    const secret = await clientToken('development')
    const feature = await createFeature(t.app)
    const apps = [uniqueName('one'), uniqueName('two'), uniqueName('three')]
    const res = await bulk(secret, { applications: [], metrics: apps.map((appName) => ({ featureName: feature, appName, environment: 'development', yes: 1, no: 0 })) })
    expect(expectProblem(res, 400, 'BadDataError').detail).toMatch(/1 of the batch's applications were refused.*CLIENT_MAX_APPLICATIONS/)
    await t.app.usage.flush()
    expect(await countsOf(apps[0]!)).toHaveLength(1)
    expect(await countsOf(apps[1]!)).toHaveLength(1)
    expect(await countsOf(apps[2]!)).toHaveLength(0)
  })

  it('refuses bodies that are not Unleash\'s, a frontend token (403) and no token (401), storing nothing', async () => {
    const secret = await clientToken('development')
    const frontend = await frontendToken()
    await t.app.usage.flush()
    const before = await databaseFingerprint(t.database.db)
    for (const body of [
      {},
      { applications: [] },
      { applications: [{ appName: 'x' }], metrics: [] },
      { applications: [], metrics: [{ featureName: 'f', appName: 'a', environment: 'development', yes: -1 }] },
      { applications: [], metrics: [{ featureName: 'f'.repeat(101), appName: 'a', environment: 'development', yes: 1 }] },
      { applications: [], metrics: Array.from({ length: 10_001 }, () => ({ featureName: 'f', appName: 'a', environment: 'development' })) },
      { applications: [{ appName: 'a', instanceId: 'i', environment: 'development', started: 9e15 }], metrics: [] },
    ]) {
      const res = await bulk(secret, body)
      expect([400, 413], res.body).toContain(res.statusCode)
    }
    expectProblem(await bulk(frontend, { applications: [], metrics: [] }), 403, 'PermissionError')
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/client/metrics/bulk', payload: { applications: [], metrics: [] } }), 401, 'AuthenticationRequired')
    await t.app.usage.flush()
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})
