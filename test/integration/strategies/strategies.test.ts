/**
 * Strategy definitions and feature strategies through Unleash's admin API paths and bodies:
 * what is stored, served to SDKs and recorded, and what is refused (with nothing stored).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { constraintProblems } from '../../../src/constraints/constraint-rules.js'
import { parameterProblems } from '../../../src/strategies/strategy-rules.js'
import { auth, createFeature, createToken, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { listen, signedIn } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint, eventsOf } from '../../helpers/state.js'

const t = useTestApp({ MAX_STRATEGIES: '5', MAX_CONSTRAINTS: '4', MAX_CONSTRAINT_VALUES: '6', CLIENT_STATE_CACHE_MS: '0' })
const limits = { maxStrategies: 5, maxConstraints: 4, maxConstraintValues: 6, maxValueLength: 100, maxRegexLength: 1000, maxSegments: 5, maxVariants: 1000 }

const featureUrl = (feature: string, env = 'development', project = 'default') =>
  `/api/admin/projects/${project}/features/${feature}/environments/${env}`
const strategiesUrl = (feature: string, env = 'development') => `${featureUrl(feature, env)}/strategies`
const { admin: { send }, send: sendAs } = requests(t)
const post = (url: string, payload?: unknown, secret?: string) => sendAs('POST', url, payload, secret)

async function addStrategy (feature: string, body: object = { name: 'default' }) {
  const res = await post(strategiesUrl(feature), body)
  expect(res.statusCode, res.body).toBe(200)
  return json(res)
}

async function clientFeature (feature: string) {
  const token = await t.app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: auth(), payload: { tokenName: uniqueName('sdk'), type: 'client', environment: 'development' } })
  const res = await t.app.inject({ method: 'GET', url: `/api/client/features?namePrefix=${feature}`, headers: auth(json(token).secret) })
  return json(res).features.find((f: { name: string }) => f.name === feature)
}

describe('strategy definitions', () => {
  it("lists the built-in ones in Unleash's order and shape; userWithId is built in and deprecated", async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/strategies', headers: auth() })
    expect(res.statusCode).toBe(200)
    const body = json(res)
    expect(body.version).toBe(1)
    expect(body.strategies.slice(0, 5).map((s: { name: string }) => s.name)).toEqual(['flexibleRollout', 'default', 'userWithId', 'remoteAddress', 'applicationHostname'])
    expect(body.strategies[0]).toEqual({
      name: 'flexibleRollout',
      displayName: 'Gradual rollout',
      title: null,
      description: expect.stringContaining('percentage of your userbase'),
      editable: false,
      deprecated: false,
      parameters: [
        { name: 'rollout', type: 'percentage', description: '', required: false },
        { name: 'stickiness', type: 'string', description: expect.any(String), required: true },
        { name: 'groupId', type: 'string', description: expect.any(String), required: true },
      ],
    })
    expect(body.strategies[2]).toMatchObject({ name: 'userWithId', editable: false, deprecated: true })
  })

  it('a custom definition: 201 with Location, readable, replaceable, deprecated and reactivated, each with its event', async () => {
    const name = uniqueName('legacy')
    const created = await post('/api/admin/strategies', { name, description: 'old', parameters: [{ name: 'percentage', type: 'percentage', required: true }] })
    expect(created.statusCode).toBe(201)
    expect(created.headers.location).toBe(`strategies/${name}`)
    expect(json(created)).toEqual({ name, displayName: null, title: null, description: 'old', editable: true, deprecated: false, parameters: [{ name: 'percentage', type: 'percentage', description: '', required: true }] })
    const read = json(await send('GET', `/api/admin/strategies/${name}`))
    // A body copied from a read is accepted back (as in Unleash).
    const replaced = await send('PUT', `/api/admin/strategies/${name}`, { ...read, description: 'new' })
    expect(replaced.statusCode).toBe(200)
    expect(replaced.body).toBe('')
    expect(json(await send('GET', `/api/admin/strategies/${name}`)).description).toBe('new')
    expect((await post(`/api/admin/strategies/${name}/deprecate`)).statusCode).toBe(200)
    expect(json(await send('GET', `/api/admin/strategies/${name}`)).deprecated).toBe(true)
    expect((await post(`/api/admin/strategies/${name}/reactivate`)).statusCode).toBe(200)
    const events = await t.database.db.selectFrom('events').select(['type', 'data']).where('type', 'like', 'strategy-%').orderBy('id', 'desc').limit(4).execute()
    expect(events.map((e) => e.type).reverse()).toEqual(['strategy-created', 'strategy-updated', 'strategy-deprecated', 'strategy-reactivated'])
  })

  it('refuses: taken name 409, built-in edit 400, unknown 404, bad bodies 400 with a path, a scoped token 403; nothing stored', async () => {
    const scoped = await createToken(t.app, { projects: ['default'] })
    const before = await databaseFingerprint(t.database.db)
    expectProblem(await post('/api/admin/strategies', { name: 'default', parameters: [] }), 409, 'NameExistsError')
    expect(expectProblem(await send('PUT', '/api/admin/strategies/flexibleRollout', { parameters: [] }), 400, 'BadDataError').message).toContain('built in')
    expectProblem(await send('PUT', '/api/admin/strategies/ghost', { parameters: [] }), 404, 'NotFoundError')
    expectProblem(await post('/api/admin/strategies/ghost/deprecate'), 404, 'NotFoundError')
    for (const [body, path] of [
      [{ name: 'a b', parameters: [] }, '/body/name'],
      [{ name: 'x' }, '/body/parameters'],
      [{ name: 'x', parameters: [{ name: 'p', type: 'date' }] }, '/body/parameters/0/type'],
      [{ name: 'x', parameters: [{ name: 'p', type: 'string' }, { name: 'p', type: 'list' }] }, '/body/parameters/1/name'],
      [{ name: 'x', parameters: [], extra: 1 }, '/body/extra'],
    ] as const) {
      expect(expectProblem(await post('/api/admin/strategies', body), 400, 'BadDataError').details[0].path).toBe(path)
    }
    expectProblem(await post('/api/admin/strategies', { name: 'x', parameters: [] }, scoped), 403, 'PermissionError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('deleting a strategy definition, as an Editor may (Unleash 8.2)', () => {
  it('an Editor creates, replaces, deprecates and deletes a custom definition (strategy-deleted with its name); a Viewer may not', async () => {
    const base = await listen(t)
    const editor = await signedIn(t, base, 'Editor')
    const name = uniqueName('editors')
    expect((await editor.browser.json('POST', '/api/admin/strategies', { name, parameters: [] })).status).toBe(201)
    expect((await editor.browser.json('PUT', `/api/admin/strategies/${name}`, { description: 'theirs', parameters: [] })).status).toBe(200)
    expect((await editor.browser.json('POST', `/api/admin/strategies/${name}/deprecate`)).status).toBe(200)
    const viewer = await signedIn(t, base, 'Viewer')
    expect((await viewer.browser.json('DELETE', `/api/admin/strategies/${name}`)).status).toBe(403)
    const deleted = await editor.browser.json('DELETE', `/api/admin/strategies/${name}`)
    expect(deleted.status).toBe(200)
    expect(await deleted.text()).toBe('')
    expectProblem(await send('GET', `/api/admin/strategies/${name}`), 404, 'NotFoundError')
    const [event] = await t.database.db.selectFrom('events').select(['type', 'data', 'created_by_user_id']).where('type', '=', 'strategy-deleted').orderBy('id', 'desc').limit(1).execute()
    expect(event).toMatchObject({ type: 'strategy-deleted', created_by_user_id: editor.id })
    expect(JSON.parse(event!.data!)).toEqual({ name })
  })

  it('refuses an unknown (404), a built-in (400) and a used definition (409 naming the strategies, archived features too); nothing changed', async () => {
    const used = uniqueName('used')
    expect((await post('/api/admin/strategies', { name: used, parameters: [] })).statusCode).toBe(201)
    const feature = await createFeature(t.app)
    await addStrategy(feature, { name: used })
    const archived = await createFeature(t.app)
    await addStrategy(archived, { name: used })
    expect((await send('DELETE', `/api/admin/projects/default/features/${archived}`)).statusCode).toBe(202)
    const before = await databaseFingerprint(t.database.db)
    expect(json(await send('DELETE', '/api/admin/strategies/ghost')).detail).toBe('No strategy definition named ghost')
    expect(expectProblem(await send('DELETE', '/api/admin/strategies/flexibleRollout'), 400, 'BadDataError').detail).toContain('built in')
    const inUse = expectProblem(await send('DELETE', `/api/admin/strategies/${used}`), 409, 'InUseError')
    expect(inUse.detail).toContain('used by 2 strategies')
    expect(inUse.detail).toContain(`${feature} in development`)
    expect(inUse.detail).toContain(`${archived} in development`)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('a strategy being added while its definition is deleted: one of them wins, never a 500', async () => {
    for (let round = 0; round < 5; round++) {
      const name = uniqueName('raced')
      expect((await post('/api/admin/strategies', { name, parameters: [] })).statusCode).toBe(201)
      const feature = await createFeature(t.app)
      const [added, deleted] = await Promise.all([post(strategiesUrl(feature), { name }), send('DELETE', `/api/admin/strategies/${name}`)])
      expect([added.statusCode, deleted.statusCode].sort()).toEqual(added.statusCode === 200 ? [200, 409] : [200, 400])
    }
  })
})

describe('feature strategies', () => {
  it('POST: 200 with the strategy and an ETag; flexibleRollout gets its defaults; constraints kept as sent; event feature-strategy-add', async () => {
    const feature = await createFeature(t.app)
    const constraints = [
      { contextName: 'appVersion', operator: 'SEMVER_GTE', value: '2.3.0' },
      { values: ['b', 'a'], contextName: 'userId', operator: 'IN', inverted: false },
      { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['10.0.0.0/8'] },
    ]
    const res = await post(strategiesUrl(feature), { name: 'flexibleRollout', parameters: { rollout: 25 }, constraints, title: 'quarter' })
    expect(res.statusCode, res.body).toBe(200)
    const strategy = json(res)
    expect(res.headers.etag).toBe('"1"')
    expect(strategy).toEqual({
      id: expect.stringMatching(/^[0-9A-Z]{26}$/),
      name: 'flexibleRollout',
      title: 'quarter',
      disabled: false,
      sortOrder: 0,
      constraints: [
        { contextName: 'appVersion', operator: 'SEMVER_GTE', value: '2.3.0' },
        { contextName: 'userId', operator: 'IN', values: ['b', 'a'], inverted: false },
        { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['10.0.0.0/8'] },
      ],
      parameters: { rollout: '25', stickiness: 'default', groupId: feature },
      variants: [],
      segments: [],
    })
    const [event] = (await eventsOf(t.database.db, feature)).filter((e) => e.type === 'feature-strategy-add')
    expect(event).toMatchObject({ environment: 'development', project: 'default', data: strategy })
    const again = await send('GET', `${strategiesUrl(feature)}/${strategy.id}`)
    expect(json(again)).toEqual(strategy)
    expect(again.headers.etag).toBe('"1"')
    expect(json(await send('GET', strategiesUrl(feature)))).toEqual([strategy])
  })

  it('the client API serves active strategies in sort order; the feature read lists them; switching on adds flexibleRollout only when none is active', async () => {
    const feature = await createFeature(t.app)
    const a = await addStrategy(feature, { name: 'default', sortOrder: 5 })
    const b = await addStrategy(feature, { name: 'userWithId', parameters: { userIds: 'u1,u2' }, sortOrder: 1 })
    await addStrategy(feature, { name: 'default', disabled: true, sortOrder: 0 })
    expect((await post(`${featureUrl(feature)}/on`)).statusCode).toBe(200)
    const served = await clientFeature(feature)
    expect(served.enabled).toBe(true)
    expect(served.strategies).toEqual([
      { name: 'userWithId', constraints: [], parameters: { userIds: 'u1,u2' }, variants: [] },
      { name: 'default', constraints: [], parameters: {}, variants: [] },
    ])
    const details = json(await send('GET', `/api/admin/projects/default/features/${feature}`))
    expect(details.environments.find((e: { name: string }) => e.name === 'development').strategies.map((s: { id: string }) => s.id)).toEqual([expect.any(String), b.id, a.id])
    // Off, and on again, in an environment with no strategy: a flexibleRollout at 100 % is added.
    const other = await createFeature(t.app)
    expect((await post(`${featureUrl(other)}/on`)).statusCode).toBe(200)
    expect(json(await send('GET', strategiesUrl(other)))).toEqual([
      expect.objectContaining({ name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: other } }),
    ])
    expect((await eventsOf(t.database.db, other)).map((e) => e.type)).toEqual(['feature-created', 'feature-strategy-add', 'feature-environment-enabled'])
  })

  it('PUT keeps name, title and disabled when left out, replaces parameters and constraints, checks If-Match; no change, no event', async () => {
    const feature = await createFeature(t.app)
    const s = await addStrategy(feature, { name: 'flexibleRollout', title: 'ten', parameters: { rollout: '10' }, constraints: [{ contextName: 'a', operator: 'IN', values: ['x'] }] })
    const url = `${strategiesUrl(feature)}/${s.id}`
    expectProblem(await send('PUT', url, { parameters: { rollout: '20' } }, { 'if-match': '"7"' }), 412, 'PreconditionFailedError')
    const res = await send('PUT', url, { parameters: { rollout: '20' } }, { 'if-match': '"1"' })
    expect(res.statusCode).toBe(200)
    expect(res.headers.etag).toBe('"2"')
    expect(json(res)).toMatchObject({ id: s.id, name: 'flexibleRollout', title: 'ten', parameters: { rollout: '20', stickiness: 'default', groupId: feature }, constraints: [] })
    const same = await send('PUT', url, { parameters: { rollout: '20' } })
    expect(same.headers.etag).toBe('"2"')
    const updates = (await eventsOf(t.database.db, feature)).filter((e) => e.type === 'feature-strategy-update')
    expect(updates).toHaveLength(1)
    expect(updates[0]).toMatchObject({ pre_data: s, data: json(res) })
  })

  it('PUT accepts the strategy as read back, its own id included (as Unleash); another id is 400 naming it, nothing changed', async () => {
    const feature = await createFeature(t.app)
    const s = await addStrategy(feature, { name: 'flexibleRollout', parameters: { rollout: '10' } })
    const url = `${strategiesUrl(feature)}/${s.id}`
    const read = json(await send('GET', url))
    expect(read.id).toBe(s.id)
    const res = await send('PUT', url, { ...read, parameters: { ...read.parameters, rollout: '30' } })
    expect(res.statusCode, res.body).toBe(200)
    expect(json(res)).toMatchObject({ id: s.id, parameters: { rollout: '30' } })
    const before = await databaseFingerprint(t.database.db)
    const other = expectProblem(await send('PUT', url, { ...read, id: 'another-id' }), 400, 'BadDataError')
    expect(other.details[0]).toEqual({ path: '/body/id', message: `/body/id must be ${s.id}, the id in the path, if given: a strategy's id cannot change` })
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('accepts semver values with build metadata, as Unleash 8.2; the SDK compares them without the build', async () => {
    const feature = await createFeature(t.app)
    for (const value of ['1.2.3+4000', '1.2.3-beta.1+build.5']) {
      const res = await post(strategiesUrl(feature), { name: 'default', constraints: [{ contextName: 'appVersion', operator: 'SEMVER_GTE', value }] })
      expect(res.statusCode, res.body).toBe(200)
      expect(json(res).constraints[0].value).toBe(value)
    }
    for (const value of ['v1.2.3+4000', ' 1.2.3', '1.2.3+']) {
      const res = await post(strategiesUrl(feature), { name: 'default', constraints: [{ contextName: 'appVersion', operator: 'SEMVER_GTE', value }] })
      expect(expectProblem(res, 400, 'BadDataError').details[0].path).toBe('/body/constraints/0/value')
    }
    const checked = await post('/api/admin/constraints/validate', { contextName: 'appVersion', operator: 'SEMVER_EQ', value: '1.2.3+4000' })
    expect(checked.statusCode, checked.body).toBe(204)
  })

  it('PATCH applies RFC 6902 to the strategy document, all or nothing; the result must be valid (paths into /strategy)', async () => {
    const feature = await createFeature(t.app)
    const s = await addStrategy(feature, { name: 'flexibleRollout', parameters: { rollout: '10' } })
    const url = `${strategiesUrl(feature)}/${s.id}`
    const ok = await send('PATCH', url, [
      { op: 'replace', path: '/parameters/rollout', value: '35' },
      { op: 'add', path: '/constraints/-', value: { contextName: 'appName', operator: 'STR_STARTS_WITH', values: ['web'] } },
      { op: 'replace', path: '/title', value: 'web apps' },
    ])
    expect(ok.statusCode, ok.body).toBe(200)
    expect(json(ok)).toMatchObject({ title: 'web apps', parameters: { rollout: '35' }, constraints: [{ contextName: 'appName', operator: 'STR_STARTS_WITH', values: ['web'] }] })
    const before = await databaseFingerprint(t.database.db)
    const cases: [unknown[], string][] = [
      [[{ op: 'remove', path: '/constraints/5' }], '/body/0'],
      [[{ op: 'replace', path: '/parameters/rollout', value: '150' }], '/strategy/parameters/rollout'],
      [[{ op: 'add', path: '/constraints/0/operator', value: 'LIKE' }], '/strategy/constraints/0/operator'],
      [[{ op: 'add', path: '/id', value: 'x' }], '/strategy/id'],
      [[{ op: 'replace', path: '/name', value: 'no-such' }], '/strategy/name'],
      [[{ op: 'replace', path: '/constraints/0/values', value: [] }], '/strategy/constraints/0/values'],
      [[{ op: 'add', path: '/constraints/-', value: { contextName: 'x', operator: 'REGEX', value: '(' } }], '/strategy/constraints/1/value'],
    ]
    for (const [operations, path] of cases) {
      const res = await send('PATCH', url, operations)
      expect(expectProblem(res, 400, 'BadDataError').details[0].path, JSON.stringify(operations)).toBe(path)
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('DELETE: 200 with no body; removing the last active strategy of a feature switched on switches it off, with its events', async () => {
    const feature = await createFeature(t.app)
    await post(`${featureUrl(feature)}/on`)
    const [only] = json(await send('GET', strategiesUrl(feature)))
    const res = await send('DELETE', `${strategiesUrl(feature)}/${only.id}`)
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
    expect(json(await send('GET', strategiesUrl(feature)))).toEqual([])
    expect((await clientFeature(feature)).enabled).toBe(false)
    expect((await eventsOf(t.database.db, feature)).map((e) => e.type).slice(-2)).toEqual(['feature-strategy-remove', 'feature-environment-disabled'])
    // Disabling the last active one does the same.
    const other = await createFeature(t.app)
    await post(`${featureUrl(other)}/on`)
    const [strategy] = json(await send('GET', strategiesUrl(other)))
    expect((await send('PATCH', `${strategiesUrl(other)}/${strategy.id}`, [{ op: 'replace', path: '/disabled', value: true }])).statusCode).toBe(200)
    expect((await clientFeature(other)).enabled).toBe(false)
  })

  it('set-sort-order: reorders (strategy-order-changed with before and after); an id of another feature-environment is 400, nothing changed', async () => {
    const feature = await createFeature(t.app)
    const a = await addStrategy(feature)
    const b = await addStrategy(feature)
    expect((await post(`${strategiesUrl(feature)}/set-sort-order`, [{ id: a.id, sortOrder: 9 }, { id: b.id, sortOrder: 2 }])).statusCode).toBe(200)
    expect(json(await send('GET', strategiesUrl(feature))).map((s: { id: string }) => s.id)).toEqual([b.id, a.id])
    const [event] = (await eventsOf(t.database.db, feature)).filter((e) => e.type === 'strategy-order-changed')
    expect(event).toMatchObject({ data: { strategyIds: [b.id, a.id] }, pre_data: { strategyIds: [a.id, b.id] } })
    const elsewhere = await addStrategy(await createFeature(t.app))
    const before = await databaseFingerprint(t.database.db)
    const res = await post(`${strategiesUrl(feature)}/set-sort-order`, [{ id: a.id, sortOrder: 0 }, { id: elsewhere.id, sortOrder: 1 }])
    expect(expectProblem(res, 400, 'BadDataError').details[0].path).toBe('/body/1/id')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('refuses invalid strategies with a 400 naming the rule and its path; nothing stored', async () => {
    const feature = await createFeature(t.app)
    const before = await databaseFingerprint(t.database.db)
    const cases: [object, string, RegExp][] = [
      [{ name: 'ghost' }, '/body/name', /names no strategy definition: ghost/],
      [{ name: 'flexibleRollout', parameters: { rollout: '150' } }, '/body/parameters/rollout', /percentage: an integer from 0 to 100/],
      [{ name: 'remoteAddress' }, '/body/parameters/IPs', /is required by the strategy/],
      [{ name: 'default', constraints: [{ contextName: 'a', operator: 'LIKE', values: ['x'] }] }, '/body/constraints/0/operator', /must be one of/],
      [{ name: 'default', constraints: [{ contextName: 'a', operator: 'IN', values: [] }] }, '/body/constraints/0/values', /at least one value/],
      [{ name: 'default', constraints: [{ contextName: 'a', operator: 'NUM_GT', value: 'ten' }] }, '/body/constraints/0/value', /finite number/],
      [{ name: 'default', constraints: [{ contextName: 'a', operator: 'DATE_AFTER', value: '2024-13-01T00:00:00Z' }] }, '/body/constraints/0/value', /RFC 3339/],
      [{ name: 'default', constraints: [{ contextName: 'a', operator: 'SEMVER_EQ', value: 'v1.0.0' }] }, '/body/constraints/0/value', /valid semver version/],
      [{ name: 'default', constraints: [{ contextName: 'a', operator: 'REGEX', value: '^(a)\\1$' }] }, '/body/constraints/0/value', /RE2/],
      [{ name: 'default', constraints: [{ contextName: 'a', operator: 'REGEX', value: 'a', inverted: true }] }, '/body/constraints/0/inverted', /cannot be inverted/],
      [{ name: 'default', constraints: [{ contextName: 'a', operator: 'IN_CIDR', values: ['300.1.1.1/8'] }] }, '/body/constraints/0/values/0', /CIDR/],
      [{ name: 'default', constraints: [{ contextName: 'a', operator: 'IN', values: ['x'], extra: true }] }, '/body/constraints/0/extra', /not an allowed property/],
      [{ name: 'default', segments: [999] }, '/body/segments/0', /names no segment: 999/],
      [{ name: 'default', variants: [{ name: 'v', weight: 1000, weightType: 'fix' }] }, '/body/variants', /There must be at least one "variable" variant/],
      [{ name: 'default', variants: [{ name: 'a b', weight: 0 }] }, '/body/variants/0/name', /must match pattern/],
      [{ name: 'default', parameters: { [`p${'x'.repeat(100)}`]: 'v' } }, `/body/parameters/p${'x'.repeat(100)}`, /member name/],
    ]
    for (const [body, path, rule] of cases) {
      const problem = expectProblem(await post(strategiesUrl(feature), body), 400, 'BadDataError')
      expect(problem.details[0].path, JSON.stringify(body)).toBe(path)
      expect(problem.details[0].message).toMatch(rule)
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('bounds every document before any work: strategies, constraints and values per constraint, value lengths (400 naming the limit)', async () => {
    const feature = await createFeature(t.app)
    for (let i = 0; i < limits.maxStrategies; i++) await addStrategy(feature)
    const sixth = expectProblem(await post(strategiesUrl(feature), { name: 'default' }), 400, 'BadDataError')
    expect(sixth.message).toContain('MAX_STRATEGIES')
    const other = await createFeature(t.app)
    const constraint = { contextName: 'a', operator: 'IN', values: ['x'] }
    const checks: [object, string][] = [
      [{ name: 'default', constraints: Array(limits.maxConstraints + 1).fill(constraint) }, '/body/constraints'],
      [{ name: 'default', constraints: [{ ...constraint, values: Array.from({ length: limits.maxConstraintValues + 1 }, (_, i) => `v${i}`) }] }, '/body/constraints/0/values'],
      [{ name: 'default', constraints: [{ ...constraint, values: ['x'.repeat(101)] }] }, '/body/constraints/0/values/0'],
      [{ name: 'default', constraints: [{ contextName: 'a', operator: 'REGEX', value: 'a'.repeat(1001) }] }, '/body/constraints/0/value'],
    ]
    for (const [body, path] of checks) expect(expectProblem(await post(strategiesUrl(other), body), 400, 'BadDataError').details[0].path).toBe(path)
  })

  it('404 naming what is missing, 403 outside the scope, 409 when archived; nothing stored', async () => {
    const feature = await createFeature(t.app)
    const s = await addStrategy(feature)
    const scoped = await createToken(t.app, { environments: ['production'] })
    const archived = await createFeature(t.app)
    const archivedStrategy = await addStrategy(archived)
    await t.app.inject({ method: 'DELETE', url: `/api/admin/projects/default/features/${archived}`, headers: auth() })
    const before = await databaseFingerprint(t.database.db)
    expect(expectProblem(await post(strategiesUrl('ghost'), { name: 'default' }), 404, 'NotFoundError').message).toContain('ghost')
    expect(expectProblem(await post(strategiesUrl(feature, 'nowhere'), { name: 'default' }), 404, 'NotFoundError').message).toContain('nowhere')
    expect(expectProblem(await send('GET', `${strategiesUrl(feature)}/01ARZ3NDEKTSV4RRFFQ69G5FAV`), 404, 'NotFoundError').message).toContain('01ARZ3NDEKTSV4RRFFQ69G5FAV')
    // A strategy of this feature is not one of another environment.
    expectProblem(await send('DELETE', `${strategiesUrl(feature, 'production')}/${s.id}`), 404, 'NotFoundError')
    expectProblem(await post(strategiesUrl(feature), { name: 'default' }, scoped), 403, 'PermissionError')
    expectProblem(await post(strategiesUrl(archived), { name: 'default' }), 409, 'FeatureArchivedError')
    expectProblem(await send('PUT', `${strategiesUrl(archived)}/${archivedStrategy.id}`, {}), 409, 'FeatureArchivedError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('concurrent writers on one strategy serialise: every PATCH lands', async () => {
    const feature = await createFeature(t.app)
    const s = await addStrategy(feature, { name: 'default' })
    const results = await Promise.all(Array.from({ length: 4 }, (_, i) =>
      send('PATCH', `${strategiesUrl(feature)}/${s.id}`, [{ op: 'add', path: '/constraints/-', value: { contextName: `c${i}`, operator: 'IN', values: ['x'] } }])
    ))
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200])
    const stored = json(await send('GET', `${strategiesUrl(feature)}/${s.id}`))
    expect(stored.constraints.map((c: { contextName: string }) => c.contextName).sort()).toEqual(['c0', 'c1', 'c2', 'c3'])
  })
})

describe('random strategy documents and patches', () => {
  const constraint = fc.record(
    {
      contextName: fc.constantFrom('userId', 'appName', 'x', ''),
      operator: fc.constantFrom('IN', 'NOT_IN', 'STR_CONTAINS', 'NUM_EQ', 'DATE_AFTER', 'SEMVER_GT', 'REGEX', 'IN_CIDR', 'BOGUS'),
      values: fc.array(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('10.0.0.0/8', '1.2.3', '2024-01-01T00:00:00Z', '5')), { maxLength: 4 }),
      value: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('(a', '^a$', '1.2.3', 'v1', '12', '2024-01-01T00:00:00Z')),
      inverted: fc.boolean(),
      caseInsensitive: fc.boolean(),
    },
    { requiredKeys: ['contextName', 'operator'] }
  )
  const parameters = fc.dictionary(fc.constantFrom('rollout', 'stickiness', 'groupId', 'IPs', 'other'), fc.oneof(fc.string({ maxLength: 8 }), fc.integer({ min: -5, max: 200 }).map(String), fc.integer(), fc.boolean()))
  const strategy = fc.record(
    { name: fc.constantFrom('default', 'flexibleRollout', 'remoteAddress', 'userWithId', 'ghost'), parameters, constraints: fc.array(constraint, { maxLength: 3 }), disabled: fc.boolean(), title: fc.option(fc.string({ maxLength: 5 })) },
    { requiredKeys: ['name'] }
  )

  /** Whatever is stored passes the rules that refuse (so nothing refused was stored). */
  async function storedIsValid (feature: string) {
    const definitions = json(await send('GET', '/api/admin/strategies')).strategies as { name: string; parameters: [] }[]
    for (const s of json(await send('GET', strategiesUrl(feature))) as { name: string; parameters: Record<string, string>; constraints: [] }[]) {
      const definition = definitions.find((d) => d.name === s.name)
      expect(definition, s.name).toBeDefined()
      expect(constraintProblems(s.constraints, limits)).toEqual([])
      expect(parameterProblems(s.parameters, definition!.parameters)).toEqual([])
    }
  }

  it('never a 5xx; what is stored is valid', async () => {
    const feature = await createFeature(t.app)
    await fc.assert(
      fc.asyncProperty(strategy, async (body) => {
        const res = await post(strategiesUrl(feature), body)
        expect(res.statusCode, res.body).toBeLessThan(500)
        if (res.statusCode === 200) await send('DELETE', `${strategiesUrl(feature)}/${json(res).id}`)
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150) }
    )
    await storedIsValid(feature)
  })

  it('random patches never give a 5xx, and never store what validation refuses', async () => {
    const feature = await createFeature(t.app)
    const s = await addStrategy(feature, { name: 'flexibleRollout', constraints: [{ contextName: 'a', operator: 'IN', values: ['x'] }] })
    const operation = fc.record({
      op: fc.constantFrom('add', 'remove', 'replace', 'copy', 'move'),
      path: fc.constantFrom('', '/name', '/title', '/disabled', '/sortOrder', '/parameters/rollout', '/parameters/x', '/constraints/-', '/constraints/0', '/constraints/0/values/-', '/constraints/0/operator', '/segments/-', '/variants/-'),
      from: fc.constantFrom('/parameters', '/constraints/0', '/title', '/constraints/0/values/0'),
      value: fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), constraint, fc.constant(null), fc.constant([])),
    })
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 4 }), async (operations) => {
        const res = await send('PATCH', `${strategiesUrl(feature)}/${s.id}`, operations)
        expect(res.statusCode, res.body).toBeLessThan(500)
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150) }
    )
    await storedIsValid(feature)
  })
})
