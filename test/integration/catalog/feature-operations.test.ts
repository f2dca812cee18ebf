/**
 * Unleash 8.2's feature operations beyond create, read, update and archive: PATCH of a flag's
 * metadata, clone, a flag in one environment, the name check, switching several flags on or off.
 * Each success with what is stored and its events; each refusal changes nothing.
 */
import { describe, expect, it } from 'vitest'
import { createFeature, createToken, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint, eventsOf } from '../../helpers/state.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })
const base = '/api/admin/projects/default/features'
const { send, clientToken } = requests(t)
const post = (url: string, payload?: unknown, secret?: string) => send('POST', url, payload, secret)
const get = (url: string, secret?: string) => send('GET', url, undefined, secret)
const typesOf = async (feature: string) => (await eventsOf(t.database.db, feature)).map((e) => e.type)

/** Expects a refusal that changes nothing stored. */
async function refusedUnchanged (request: () => ReturnType<typeof send>, status: number, name: string) {
  const before = await databaseFingerprint(t.database.db)
  const body = expectProblem(await request(), status, name)
  expect(await databaseFingerprint(t.database.db)).toEqual(before)
  return body
}

describe('PATCH a feature', () => {
  it('applies JSON Patch to description, type, stale and impressionData; answers the feature; records metadata and stale events', async () => {
    const name = await createFeature(t.app)
    const res = await send('PATCH', `${base}/${name}`, [
      { op: 'replace', path: '/description', value: 'patched' },
      { op: 'replace', path: '/type', value: 'kill-switch' },
      { op: 'replace', path: '/stale', value: true },
      { op: 'replace', path: '/impressionData', value: true },
    ])
    expect(res.statusCode).toBe(200)
    expect(json(res)).toEqual({ name, project: 'default', description: 'patched', type: 'kill-switch', stale: true, impressionData: true, createdAt: expect.any(String) })
    expect(json(await get(`${base}/${name}`))).toMatchObject({ description: 'patched', type: 'kill-switch', stale: true, impressionData: true })
    const events = await eventsOf(t.database.db, name)
    expect(events.map((e) => e.type)).toEqual(['feature-created', 'feature-metadata-updated', 'feature-stale-on'])
    expect(events[1]).toMatchObject({
      data: { name, description: 'patched', type: 'kill-switch', impressionData: true },
      pre_data: { name, description: null, type: 'release', impressionData: false },
    })
    // SDKs see stale; the same patch again changes nothing; stale off is its own event.
    const served = json(await get(`/api/client/features?namePrefix=${name}`, await clientToken())).features
    expect(served[0].stale).toBe(true)
    const before = await databaseFingerprint(t.database.db)
    expect((await send('PATCH', `${base}/${name}`, [{ op: 'replace', path: '/stale', value: true }])).statusCode).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect((await send('PATCH', `${base}/${name}`, [{ op: 'replace', path: '/stale', value: false }])).statusCode).toBe(200)
    expect((await typesOf(name)).at(-1)).toBe('feature-stale-off')
  })

  it('refuses variants, a rename, a move, an unknown type, a missing member and a feature that is not there: 400 or 404, nothing changed', async () => {
    const name = await createFeature(t.app)
    const patch = (operations: unknown) => () => send('PATCH', `${base}/${name}`, operations)
    expect((await refusedUnchanged(patch([{ op: 'replace', path: '/variants', value: [] }]), 400, 'BadDataError')).message).toMatch(/variants are patched with PATCH .*\/environments\/\{environment\}\/variants/)
    expect((await refusedUnchanged(patch([{ op: 'replace', path: '/name', value: 'other' }]), 400, 'BadDataError')).message).toMatch(/cannot be renamed/)
    expect((await refusedUnchanged(patch([{ op: 'replace', path: '/project', value: 'other' }]), 400, 'BadDataError')).message).toMatch(/does not move a feature/)
    const type = await refusedUnchanged(patch([{ op: 'replace', path: '/type', value: 'nonsense' }]), 400, 'BadDataError')
    expect(type.details[0]).toMatchObject({ path: '/feature/type' })
    expect((await refusedUnchanged(patch([{ op: 'remove', path: '/nothing' }]), 400, 'BadDataError')).details[0].path).toBe('/body/0')
    await refusedUnchanged(patch([{ op: 'add', path: '/extra', value: 1 }]), 400, 'BadDataError')
    await refusedUnchanged(patch({ op: 'replace' }), 400, 'BadDataError')
    expect((await refusedUnchanged(() => send('PATCH', `${base}/ghost`, []), 404, 'NotFoundError')).message).toBe('Feature ghost does not exist in project default')
  })
})

describe('clone', () => {
  it('copies metadata, variants, strategies (groupId replaced), dependencies; the copy is off; 201 with the new feature', async () => {
    const parent = await createFeature(t.app)
    const source = await createFeature(t.app)
    await send('PATCH', `${base}/${source}`, [{ op: 'replace', path: '/description', value: 'original' }, { op: 'replace', path: '/stale', value: true }])
    const env = `${base}/${source}/environments/development`
    await post(`${env}/strategies`, { name: 'flexibleRollout', parameters: { rollout: '30', stickiness: 'userId', groupId: source } })
    await post(`${env}/strategies`, { name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }] })
    await send('PUT', `${env}/variants`, [{ name: 'blue', weight: 1000 }])
    await post(`${env}/on`)
    await post(`${base}/${source}/dependencies`, { feature: parent })
    const name = uniqueName('copy')
    const res = await post(`${base}/${source}/clone`, { name })
    expect(res.statusCode).toBe(201)
    expect(json(res)).toEqual({ name, project: 'default', description: 'original', type: 'release', stale: true, impressionData: false, createdAt: expect.any(String) })
    const copy = json(await get(`${base}/${name}`))
    const development = copy.environments.find((e: any) => e.name === 'development')
    expect(development.enabled).toBe(false)
    expect(development.variants).toEqual([{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }])
    expect(development.strategies.map((s: any) => [s.name, s.parameters, s.constraints])).toEqual([
      ['flexibleRollout', { rollout: '30', stickiness: 'userId', groupId: name }, []],
      ['default', {}, [{ contextName: 'userId', operator: 'IN', values: ['u1'] }]],
    ])
    expect(copy.dependencies).toEqual([{ feature: parent, enabled: true, variants: [] }])
    expect(await typesOf(name)).toEqual(expect.arrayContaining(['feature-created', 'feature-environment-variants-updated', 'feature-strategy-add', 'feature-dependency-added', 'feature-stale-on']))
    // replaceGroupId false keeps the groupId.
    const kept = uniqueName('kept')
    await post(`${base}/${source}/clone`, { name: kept, replaceGroupId: false })
    const keptEnv = json(await get(`${base}/${kept}/environments/development`))
    expect(keptEnv.strategies[0].parameters.groupId).toBe(source)
  })

  it('refuses a taken name (409), a bad name (400), a missing source (404), a token without an environment to copy (403): nothing changed', async () => {
    const source = await createFeature(t.app)
    await post(`${base}/${source}/environments/production/strategies`, { name: 'default' })
    const taken = await createFeature(t.app)
    await refusedUnchanged(() => post(`${base}/${source}/clone`, { name: taken }), 409, 'NameExistsError')
    await refusedUnchanged(() => post(`${base}/${source}/clone`, { name: 'a b' }), 400, 'BadDataError')
    await refusedUnchanged(() => post(`${base}/${source}/clone`, { name: uniqueName('c'), extra: 1 }), 400, 'BadDataError')
    expect((await refusedUnchanged(() => post(`${base}/ghost/clone`, { name: uniqueName('c') }), 404, 'NotFoundError')).message).toBe('Feature ghost does not exist in project default')
    const development = await createToken(t.app, { projects: ['default'], environments: ['development'] })
    expect((await refusedUnchanged(() => post(`${base}/${source}/clone`, { name: uniqueName('c') }, development), 403, 'PermissionError')).message).toMatch(/environment production/)
  })
})

describe('a feature in one environment', () => {
  it("answers Unleash's featureEnvironmentSchema; 404 names what is missing", async () => {
    const name = await createFeature(t.app)
    await post(`${base}/${name}/environments/development/strategies`, { name: 'default' })
    await send('PUT', `${base}/${name}/environments/development/variants`, [{ name: 'v', weight: 1000 }])
    const res = json(await get(`${base}/${name}/environments/development`))
    expect(res).toEqual({
      name,
      featureName: name,
      environment: 'development',
      type: 'development',
      enabled: false,
      variantCount: 1,
      variants: [{ name: 'v', weight: 1000, weightType: 'variable', stickiness: 'default' }],
      strategies: [expect.objectContaining({ name: 'default', sortOrder: expect.any(Number) })],
      lastSeenAt: null,
    })
    expect(expectProblem(await get(`${base}/ghost/environments/development`), 404, 'NotFoundError').message).toBe('Feature ghost does not exist in project default')
    expect(expectProblem(await get(`${base}/${name}/environments/nowhere`), 404, 'NotFoundError').message).toBe('Environment nowhere does not exist')
    expect(expectProblem(await get(`/api/admin/projects/ghost/features/${name}/environments/development`), 404, 'NotFoundError').message).toBe('Project ghost does not exist')
  })
})

describe('the name check', () => {
  it('200 for a free name, 409 for a taken one (archived or not), 400 for a bad one; reads only', async () => {
    const live = await createFeature(t.app)
    const archived = await createFeature(t.app)
    await send('DELETE', `${base}/${archived}`)
    const before = await databaseFingerprint(t.database.db)
    const ok = await post('/api/admin/features/validate', { name: uniqueName('free'), projectId: 'default' })
    expect(ok.statusCode).toBe(200)
    expect(ok.body).toBe('')
    expect(expectProblem(await post('/api/admin/features/validate', { name: live }), 409, 'NameExistsError').message).toBe('A flag with that name already exists')
    expect(expectProblem(await post('/api/admin/features/validate', { name: archived }), 409, 'NameExistsError').message).toBe('An archived flag with that name already exists')
    expectProblem(await post('/api/admin/features/validate', { name: 'a b' }), 400, 'BadDataError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('switching several features on or off', () => {
  const bulk = (state: 'on' | 'off', features: string[], query = '') => post(`/api/admin/projects/default/bulk_features/environments/development/${state}${query}`, { features })

  it('switches each as the single route does (the default strategy, events), in one change', async () => {
    const [a, b] = [await createFeature(t.app), await createFeature(t.app)]
    expect((await bulk('on', [b, a])).statusCode).toBe(200)
    for (const name of [a, b]) {
      const development = json(await get(`${base}/${name}`)).environments.find((e: any) => e.name === 'development')
      expect(development.enabled).toBe(true)
      expect(development.strategies.map((s: any) => s.name)).toEqual(['flexibleRollout'])
      expect(await typesOf(name)).toEqual(['feature-created', 'feature-strategy-add', 'feature-environment-enabled'])
    }
    expect((await bulk('off', [a, b])).statusCode).toBe(200)
    expect((await typesOf(a)).at(-1)).toBe('feature-environment-disabled')
    // Empty: nothing to do.
    const before = await databaseFingerprint(t.database.db)
    expect((await bulk('on', [])).statusCode).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('with shouldActivateDisabledStrategies, enables disabled strategies instead of adding the default one', async () => {
    const name = await createFeature(t.app)
    await post(`${base}/${name}/environments/development/strategies`, { name: 'default', disabled: true })
    expect((await bulk('on', [name], '?shouldActivateDisabledStrategies=true')).statusCode).toBe(200)
    const development = json(await get(`${base}/${name}`)).environments.find((e: any) => e.name === 'development')
    expect(development.strategies.map((s: any) => [s.name, s.disabled])).toEqual([['default', false]])
    expect(development.enabled).toBe(true)
  })

  it('all or none: a feature that is not in the project (404), an archived one (409), a duplicate (400) change nothing', async () => {
    const [a, archived] = [await createFeature(t.app), await createFeature(t.app)]
    await send('DELETE', `${base}/${archived}`)
    expect((await refusedUnchanged(() => bulk('on', [a, 'ghost']), 404, 'NotFoundError')).message).toBe('Feature ghost does not exist in project default')
    await refusedUnchanged(() => bulk('on', [a, archived]), 409, 'FeatureArchivedError')
    await refusedUnchanged(() => bulk('on', [a, a]), 400, 'BadDataError')
    const scoped = await createToken(t.app, { projects: ['default'], environments: ['production'] })
    await refusedUnchanged(() => post('/api/admin/projects/default/bulk_features/environments/development/on', { features: [a] }, scoped), 403, 'PermissionError')
  })
})
