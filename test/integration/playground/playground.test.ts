/**
 * The playground on the real app: every flag of an environment with its trace in Unleash 8.2's
 * shapes (the whole answers are compared with Unleash's in test/unleash/playground.test.ts),
 * the advanced playground's combinations, warnings and bound, who may ask and what they see,
 * and the refusals, which change nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })
const { admin: { post, put }, as, clientToken, frontendToken } = requests(t)
const features = (project = 'default') => `/api/admin/projects/${project}/features`

const ask = (body: object, secret?: string) => as(secret).post('/api/admin/playground', body)
const askAdvanced = (body: object, secret?: string) => as(secret).post('/api/admin/playground/advanced', body)

/** A flag of the project, with these strategies in development, switched on there unless `off`. */
async function flag (name: string, strategies: object[], { project = 'default', off = false } = {}) {
  expect((await post(features(project), { name })).statusCode).toBe(201)
  const ids: string[] = []
  for (const s of strategies) ids.push(json(await post(`${features(project)}/${name}/environments/development/strategies`, s)).id)
  if (!off) expect((await post(`${features(project)}/${name}/environments/development/on`)).statusCode).toBe(200)
  return ids
}

let segment = 0
let checkoutStrategy = ''
beforeAll(async () => {
  segment = json(await post('/api/admin/segments', { name: 'beta', constraints: [{ contextName: 'version', operator: 'SEMVER_GTE', value: '2.0.0' }] })).id
  expect((await post('/api/admin/strategies', { name: 'by-region', parameters: [{ name: 'regions', type: 'list' }] })).statusCode).toBe(201)
  ;[checkoutStrategy] = await flag('checkout', [{
    name: 'flexibleRollout',
    title: 'Dutch and Belgian users',
    parameters: { rollout: '100', stickiness: 'default', groupId: 'checkout' },
    constraints: [{ contextName: 'country', operator: 'IN', values: ['NL', 'BE'] }],
    segments: [segment],
    variants: [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'b' } }],
  }]) as [string]
  await flag('banner', [{ name: 'default' }], { off: true })
  await flag('child', [{ name: 'default' }])
  expect((await post(`${features()}/child/dependencies`, { feature: 'checkout' })).statusCode).toBe(200)
  await flag('host', [{ name: 'applicationHostname', parameters: { hostNames: 'web-1' } }])
  await flag('custom', [{ name: 'by-region', parameters: { regions: 'eu' } }, { name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u-1'] }] }, { name: 'userWithId', disabled: true, parameters: { userIds: 'u-2' } }])
  expect((await put(`${features()}/custom/environments/development/variants`, [{ name: 'red', weight: 1000, weightType: 'variable', stickiness: 'default' }])).statusCode).toBe(200)
  expect((await post('/api/admin/projects', { id: 'other', name: 'Other' })).statusCode).toBe(201)
  expect((await post('/api/admin/projects/other/environments', { environment: 'development' })).statusCode).toBeLessThan(300)
  await flag('elsewhere', [{ name: 'default' }], { project: 'other' })
})

const dutch = { appName: 'shop', userId: 'u-1', properties: { country: 'NL', version: '2.1.0' } }
const american = { appName: 'shop', userId: 'u-1', properties: { country: 'US', version: '2.1.0' } }

describe('POST /api/admin/playground', () => {
  it("answers every flag of the environment with its trace, in Unleash's shapes; input echoes the request", async () => {
    const body = { environment: 'development', projects: ['default'], context: american }
    const res = await ask(body)
    expect(res.statusCode).toBe(200)
    const answer = json(res)
    expect(answer.input).toEqual(body)
    expect(answer.features.map((f: { name: string }) => f.name)).toEqual(['banner', 'checkout', 'child', 'custom', 'host'])
    const checkout = answer.features[1]
    expect(checkout).toEqual({
      isEnabled: false,
      isEnabledInCurrentEnvironment: true,
      hasUnsatisfiedDependency: false,
      variant: { name: 'disabled', enabled: false, feature_enabled: false },
      variants: [],
      name: 'checkout',
      projectId: 'default',
      strategies: {
        result: false,
        data: [{
          name: 'flexibleRollout',
          id: checkoutStrategy,
          title: 'Dutch and Belgian users',
          disabled: false,
          parameters: { rollout: '100', stickiness: 'default', groupId: 'checkout' },
          // Picked for the context although the strategy did not match, as Unleash shows it.
          result: {
            enabled: false,
            evaluationStatus: 'complete',
            variant: { name: 'blue', enabled: true, payload: { type: 'string', value: 'b' } },
            variants: [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'b' } }],
          },
          constraints: [{ contextName: 'country', operator: 'IN', values: ['NL', 'BE'], inverted: false, result: false }],
          segments: [{ id: segment, name: 'beta', result: true, constraints: [{ contextName: 'version', operator: 'SEMVER_GTE', value: '2.0.0', result: true }] }],
          links: { edit: `/projects/default/features/checkout/strategies/edit?environmentId=development&strategyId=${checkoutStrategy}` },
        }],
      },
    })
    // Its child is off: the parent is.
    expect(answer.features[2]).toMatchObject({ name: 'child', isEnabled: false, hasUnsatisfiedDependency: true, strategies: { result: true } })
    // Off in the environment: its strategies are evaluated all the same.
    expect(answer.features[0]).toMatchObject({ name: 'banner', isEnabled: false, isEnabledInCurrentEnvironment: false, strategies: { result: true } })
    // applicationHostname depends on the SDK's host: not evaluated here.
    expect(answer.features[4].strategies).toMatchObject({ result: 'unknown', data: [{ result: { enabled: 'unknown', evaluationStatus: 'incomplete' } }] })
    // A custom strategy: incomplete; the next strategy matched; the disabled one is listed, not evaluated.
    expect(answer.features[3]).toMatchObject({
      isEnabled: true,
      variant: { name: 'red', enabled: true, feature_enabled: true, featureEnabled: true },
      variants: [{ name: 'red', weight: 1000, weightType: 'variable', stickiness: 'default' }],
      strategies: {
        result: true,
        data: [
          { name: 'by-region', result: { enabled: 'unknown', evaluationStatus: 'incomplete' } },
          { name: 'default', result: { enabled: true, evaluationStatus: 'complete' }, constraints: [{ result: true }] },
          { name: 'userWithId', disabled: true, result: { enabled: 'unknown', evaluationStatus: 'unevaluated' } },
        ],
      },
    })
  })

  it('a context that matches: the strategy variant, and the child on', async () => {
    const answer = json(await ask({ environment: 'development', context: dutch }))
    const byName = Object.fromEntries(answer.features.map((f: { name: string }) => [f.name, f]))
    expect(byName.checkout).toMatchObject({ isEnabled: true, variant: { name: 'blue', enabled: true, payload: { type: 'string', value: 'b' }, feature_enabled: true }, strategies: { result: true } })
    expect(byName.checkout.variant).not.toHaveProperty('featureEnabled')
    expect(byName.child).toMatchObject({ isEnabled: true, hasUnsatisfiedDependency: false, variant: { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true } })
    // Without `projects`: every project.
    expect(Object.keys(byName)).toContain('elsewhere')
  })

  it('reads the context as the SDK does: top-level custom fields, empty values as not given, currentTime', async () => {
    const top = json(await ask({ environment: 'development', projects: ['default'], context: { appName: 'shop', country: 'BE', properties: { version: '3.0.0' } } }))
    expect(top.features.find((f: { name: string }) => f.name === 'checkout').isEnabled).toBe(true)
    const empty = json(await ask({ environment: 'development', projects: ['default'], context: { appName: 'shop', country: '', properties: { country: 'NL', version: '3.0.0' } } }))
    expect(empty.features.find((f: { name: string }) => f.name === 'checkout').isEnabled).toBe(true)
    // A member that is not a string is read as a string, as the SDK reads it (the unit tests show a string operator reading it; Unleash's playground answers 500 there).
    const number = json(await ask({ environment: 'development', projects: ['default'], context: { appName: 'shop', userId: 'u-2', country: 1, properties: { version: '3.0.0' } } }))
    expect(number.features.find((f: { name: string }) => f.name === 'checkout').strategies.data[0].constraints[0]).toMatchObject({ values: ['NL', 'BE'], result: false })
  })

  it('an environment that does not exist, or no project: every flag off, or none', async () => {
    const nowhere = json(await ask({ environment: 'nowhere', projects: ['default'], context: dutch }))
    expect(nowhere.features).toHaveLength(5)
    for (const f of nowhere.features) expect(f).toMatchObject({ isEnabled: false, isEnabledInCurrentEnvironment: false, strategies: { result: false, data: [] } })
    expect(json(await ask({ environment: 'development', projects: [], context: dutch })).features).toEqual([])
    expect(json(await ask({ environment: 'development', projects: ['no-such-project'], context: dutch })).features).toEqual([])
  })

  it('answers a change at once: the compiled state is kept per state version, not for a time', async () => {
    const project = uniqueName('pg')
    expect((await post('/api/admin/projects', { id: project, name: project })).statusCode).toBe(201)
    expect((await post(`/api/admin/projects/${project}/environments`, { environment: 'development' })).statusCode).toBeLessThan(300)
    const names = async (projects: string[]) => json(await ask({ environment: 'development', projects, context: dutch })).features.map((f: { name: string; isEnabled: boolean }) => [f.name, f.isEnabled])
    expect(await names([project])).toEqual([])
    await flag('fresh', [{ name: 'default' }], { project, off: true })
    expect(await names([project])).toEqual([['fresh', false]])
    expect((await post(`${features(project)}/fresh/environments/development/on`)).statusCode).toBe(200)
    expect(await names([project])).toEqual([['fresh', true]])
    // The same projects asked for twice, or in another order, are the same set.
    expect(await names([project, project])).toEqual([['fresh', true]])
    expect((await names(['default', project])).length).toBe(6)
    expect(await names([project, 'default'])).toEqual(await names(['default', project]))
  })

  it('refuses a request without environment, context or appName (400 naming it); changes nothing', async () => {
    const before = await databaseFingerprint(t.database.db)
    for (const [body, path] of [
      [{ context: dutch }, '/body/environment'],
      [{ environment: 'development' }, '/body/context'],
      [{ environment: 'development', context: {} }, '/body/context/appName'],
      [{ environment: 'development', context: { appName: '' } }, '/body/context/appName'],
      [{ environment: 'development', context: { appName: 'a', userId: 5 } }, '/body/context/userId'],
      [{ environment: 'development', context: { appName: 'a', currentTime: 'yesterday' } }, '/body/context/currentTime'],
      [{ environment: 'development', context: { appName: 'a', properties: { plan: 1 } } }, '/body/context/properties/plan'],
      [{ environment: 'development', projects: 'default', context: dutch }, '/body/projects'],
    ] as const) {
      expect(expectProblem(await ask(body), 400, 'BadDataError').details[0].path, JSON.stringify(body)).toBe(path)
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('who may ask', () => {
  it('any admin token, within its projects and environments; never an SDK token', async () => {
    const body = { environment: 'development', context: dutch }
    const scoped = json(await post('/api/admin/api-tokens', { tokenName: uniqueName('pg'), type: 'admin', projects: ['other'], environments: ['development'] })).secret
    expect(json(await ask(body, scoped)).features.map((f: { name: string }) => f.name)).toEqual(['elsewhere'])
    expect(json(await ask({ ...body, projects: ['default', 'other'] }, scoped)).features.map((f: { name: string }) => f.name)).toEqual(['elsewhere'])
    expectProblem(await ask({ ...body, environment: 'production' }, scoped), 403, 'PermissionError')
    expectProblem(await askAdvanced({ environments: ['development', 'production'], context: dutch }, scoped), 403, 'PermissionError')
    expectProblem(await ask(body, await clientToken()), 403, 'PermissionError')
    expectProblem(await ask(body, await frontendToken()), 403, 'PermissionError')
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/admin/playground', payload: body }), 401, 'AuthenticationRequired')
  })
})

describe('POST /api/admin/playground/advanced', () => {
  it('every combination of the comma-separated values, per environment, each with its environment and context', async () => {
    const body = { environments: ['development', 'production'], projects: ['default'], context: { appName: 'shop', userId: 'u-1,u-2', properties: { country: 'NL,US,BE', version: '2.0.0' } } }
    const answer = json(await askAdvanced(body))
    expect(answer.input).toEqual(body)
    expect(answer).not.toHaveProperty('warnings')
    expect(answer.features.map((f: { name: string }) => f.name)).toEqual(['banner', 'checkout', 'child', 'custom', 'host'])
    const checkout = answer.features[1]
    expect(Object.keys(checkout)).toEqual(['name', 'projectId', 'environments'])
    expect(Object.keys(checkout.environments)).toEqual(['development', 'production'])
    const development = checkout.environments.development
    expect(development.map((e: { context: object }) => e.context)).toEqual(
      ['u-1', 'u-2'].flatMap((userId) => ['NL', 'US', 'BE'].map((country) => ({ userId, country, version: '2.0.0', appName: 'shop' })))
    )
    expect(development.map((e: { isEnabled: boolean }) => e.isEnabled)).toEqual([true, false, true, true, false, true])
    expect(development[0]).toMatchObject({ name: 'checkout', environment: 'development', projectId: 'default', variant: { name: 'blue' } })
    expect(development[0].strategies.data[0].links.edit).toBe(`/projects/default/features/checkout/strategies/edit?environmentId=development&strategyId=${checkoutStrategy}`)
    expect(checkout.environments.production.every((e: { isEnabled: boolean; environment: string }) => !e.isEnabled && e.environment === 'production')).toBe(true)
  })

  it('leaves out top-level members that are not strings, and says so in warnings', async () => {
    const answer = json(await askAdvanced({ environments: ['development'], projects: ['default'], context: { appName: 'shop', tenant: 7, beta: true, userId: 'u-1' } }))
    expect(answer.warnings).toEqual({ invalidContextProperties: ['tenant', 'beta'] })
    expect(answer.features[0].environments.development[0].context).toEqual({ userId: 'u-1', appName: 'shop' })
  })

  it('refuses more than 15,000 evaluations before making any, with Unleash\'s sentence; environments: [] is a 400', async () => {
    const before = await databaseFingerprint(t.database.db)
    const userIds = Array.from({ length: 1501 }, (_, i) => `u-${i}`).join(',')
    const refused = expectProblem(await askAdvanced({ environments: ['development', 'production'], projects: ['default'], context: { appName: 'shop', userId: userIds } }), 400, 'BadDataError')
    expect(refused.detail).toBe('Rejecting evaluation as it would generate 15010 combinations exceeding 15000 limit. Please reduce the number of selected environments (2), features (5), context field combinations (1501).')
    // Combinations counted, never made: 10^40 of them for no flag answer at once.
    const huge = { appName: 'shop', ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, '0,1,2,3,4,5,6,7,8,9'])) }
    const started = performance.now()
    expectProblem(await askAdvanced({ environments: ['development'], context: huge }), 400, 'BadDataError')
    expect(json(await askAdvanced({ environments: ['development'], projects: [], context: huge })).features).toEqual([])
    expect(performance.now() - started).toBeLessThan(2000)
    expect(expectProblem(await askAdvanced({ environments: [], context: dutch }), 400, 'BadDataError').details[0].path).toBe('/body/environments')
    expect(expectProblem(await askAdvanced({ environments: ['development'] }), 400, 'BadDataError').details[0].path).toBe('/body/context')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})
