/**
 * Environments as Unleash's environment routes serve them: the list (with counts), one
 * environment, every environment as a project sees it, where they are listed (sort order),
 * and enabling or disabling (deprecating) one.
 */
import { describe, expect, it } from 'vitest'
import { createFeature, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })
const { admin, clientToken, send } = requests(t)

const newEnvironment = async (type = 'test') => {
  const name = uniqueName('env')
  expect((await admin.post('/api/admin/environments', { name, type })).statusCode).toBe(201)
  return name
}

const eventsOf = async (environment: string) =>
  (await t.database.db.selectFrom('events').select(['type', 'environment', 'data', 'pre_data']).where('environment', '=', environment).orderBy('id').execute())
    .map((e) => ({ ...e, data: e.data === null ? null : JSON.parse(e.data), pre_data: e.pre_data === null ? null : JSON.parse(e.pre_data) }))

/** Refused with `status` (naming `name`), and nothing stored changed. */
async function refusedUnchanged (request: () => Promise<{ statusCode: number; body: string }>, status: number, name: string) {
  const before = await databaseFingerprint(t.database.db)
  const res = await request()
  const body = expectProblem(res as never, status, name)
  expect(await databaseFingerprint(t.database.db)).toEqual(before)
  return body
}

describe('GET /api/admin/environments', () => {
  it("answers Unleash's shape: version 1, in list order, each with enabled, protected, sortOrder and counts", async () => {
    const res = await admin.get('/api/admin/environments')
    expect(res.statusCode).toBe(200)
    const body = json(res)
    expect(body.version).toBe(1)
    expect(body.environments.slice(0, 2)).toEqual([
      { name: 'development', type: 'development', enabled: true, protected: false, sortOrder: 2, requiredApprovals: null, projectCount: expect.any(Number), apiTokenCount: expect.any(Number), enabledToggleCount: expect.any(Number) },
      { name: 'production', type: 'production', enabled: true, protected: false, sortOrder: 3, requiredApprovals: null, projectCount: expect.any(Number), apiTokenCount: expect.any(Number), enabledToggleCount: expect.any(Number) },
    ])
  })

  it('counts the projects it is enabled in, the tokens that name it and the features on in it', async () => {
    const name = await newEnvironment()
    const count = async () => json(await admin.get('/api/admin/environments')).environments.find((e: { name: string }) => e.name === name)
    expect(await count()).toMatchObject({ projectCount: 0, apiTokenCount: 0, enabledToggleCount: 0, sortOrder: expect.any(Number) })
    await admin.post('/api/admin/projects/default/environments', { environment: name })
    await clientToken(name)
    const feature = await createFeature(t.app)
    expect((await admin.post(`/api/admin/projects/default/features/${feature}/environments/${name}/on`)).statusCode).toBe(200)
    expect(await count()).toMatchObject({ projectCount: 1, apiTokenCount: 1, enabledToggleCount: 1 })
  })

  it('lists a new environment after the last one', async () => {
    const first = await newEnvironment()
    const second = await newEnvironment()
    const list = json(await admin.get('/api/admin/environments')).environments as { name: string; sortOrder: number }[]
    const [a, b] = [list.find((e) => e.name === first)!, list.find((e) => e.name === second)!]
    expect(b.sortOrder).toBe(a.sortOrder + 1)
    expect(list.map((e) => e.sortOrder)).toEqual([...list.map((e) => e.sortOrder)].sort((x, y) => x - y))
  })
})

describe('GET /api/admin/environments/{name}', () => {
  it('answers one environment as environmentSchema has it', async () => {
    const res = await admin.get('/api/admin/environments/production')
    expect(res.statusCode).toBe(200)
    expect(json(res)).toEqual({ name: 'production', type: 'production', enabled: true, protected: false, sortOrder: 3, requiredApprovals: null })
  })

  it('answers 404 naming an environment that does not exist (not a missing route)', async () => {
    const body = expectProblem(await admin.get('/api/admin/environments/nowhere'), 404, 'NotFoundError')
    expect(body.detail).toBe('Environment nowhere does not exist')
  })
})

describe('GET /api/admin/environments/project/{projectId}', () => {
  it('lists every environment, visible where the project has it, with its tokens, features on, and default strategy', async () => {
    const project = uniqueName('p')
    await admin.post('/api/admin/projects', { id: project, name: 'P' })
    await admin.post(`/api/admin/projects/${project}/environments`, { environment: 'production' })
    const feature = await createFeature(t.app, project)
    await admin.post(`/api/admin/projects/${project}/features/${feature}/environments/production/on`)
    await clientToken('production', [project])
    await clientToken('production', ['default'])
    await admin.post(`/api/admin/projects/${project}/environments/production/default-strategy`, { name: 'flexibleRollout', parameters: { rollout: '25' } })

    const res = await admin.get(`/api/admin/environments/project/${project}`)
    expect(res.statusCode).toBe(200)
    const body = json(res)
    expect(body.version).toBe(1)
    const byName = new Map(body.environments.map((e: { name: string }) => [e.name, e]))
    expect(byName.get('development')).toEqual({
      name: 'development',
      type: 'development',
      enabled: true,
      protected: false,
      sortOrder: 2,
      requiredApprovals: null,
      projectApiTokenCount: 0,
      projectEnabledToggleCount: 0,
      visible: false,
    })
    expect(byName.get('production')).toEqual({
      name: 'production',
      type: 'production',
      enabled: true,
      protected: false,
      sortOrder: 3,
      requiredApprovals: null,
      projectApiTokenCount: 1,
      projectEnabledToggleCount: 1,
      visible: true,
      defaultStrategy: { name: 'flexibleRollout', title: null, disabled: false, sortOrder: 0, parameters: { rollout: '25', stickiness: 'default' }, constraints: [], variants: [], segments: [] },
    })
    expect(body.environments.length).toBe(json(await admin.get('/api/admin/environments')).environments.length)
  })

  it('answers 404 naming a project that does not exist (Unleash answers every environment)', async () => {
    const body = expectProblem(await admin.get('/api/admin/environments/project/nowhere'), 404, 'NotFoundError')
    expect(body.detail).toBe('Project nowhere does not exist')
  })
})

describe('PUT /api/admin/environments/sort-order', () => {
  it('gives the named environments their order; each that changes records environment-updated; the same again changes nothing', async () => {
    const [a, b] = [await newEnvironment(), await newEnvironment()]
    const res = await send('PUT', '/api/admin/environments/sort-order', { [a]: 900, [b]: -5 })
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
    const list = json(await admin.get('/api/admin/environments')).environments.map((e: { name: string }) => e.name)
    expect(list[0]).toBe(b)
    expect(list.at(-1)).toBe(a)
    const events = await eventsOf(a)
    expect(events.at(-1)).toEqual({
      type: 'environment-updated',
      environment: a,
      data: { name: a, type: 'test', enabled: true, protected: false, sortOrder: 900 },
      pre_data: expect.objectContaining({ name: a, sortOrder: expect.any(Number) }),
    })
    const before = await databaseFingerprint(t.database.db)
    expect((await send('PUT', '/api/admin/environments/sort-order', { [a]: 900 })).statusCode).toBe(200)
    expect((await send('PUT', '/api/admin/environments/sort-order', {})).statusCode).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('refuses, changing nothing: an environment that does not exist (404 naming it), a value that is not an integer, a bad name (400)', async () => {
    const a = await newEnvironment()
    const body = await refusedUnchanged(() => send('PUT', '/api/admin/environments/sort-order', { [a]: 7, nowhere: 1 }), 404, 'NotFoundError')
    expect(body.detail).toBe('Environment nowhere does not exist')
    expect((await refusedUnchanged(() => send('PUT', '/api/admin/environments/sort-order', { [a]: 'first' }), 400, 'BadDataError')).details[0].path).toBe(`/body/${a}`)
    await refusedUnchanged(() => send('PUT', '/api/admin/environments/sort-order', { [a]: 1.5 }), 400, 'BadDataError')
    await refusedUnchanged(() => send('PUT', '/api/admin/environments/sort-order', { 'a b': 1 }), 400, 'BadDataError')
    await refusedUnchanged(() => send('PUT', '/api/admin/environments/sort-order', [1]), 400, 'BadDataError')
  })
})

describe('POST /api/admin/environments/{name}/on and /off', () => {
  it('disables and enables (204), each change recording environment-updated; the same state again changes nothing', async () => {
    const name = await newEnvironment()
    const off = await admin.post(`/api/admin/environments/${name}/off`)
    expect(off.statusCode).toBe(204)
    expect(off.body).toBe('')
    expect(json(await admin.get(`/api/admin/environments/${name}`)).enabled).toBe(false)
    const before = await databaseFingerprint(t.database.db)
    expect((await admin.post(`/api/admin/environments/${name}/off`)).statusCode).toBe(204)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect((await admin.post(`/api/admin/environments/${name}/on`)).statusCode).toBe(204)
    expect(json(await admin.get(`/api/admin/environments/${name}`)).enabled).toBe(true)
    expect((await eventsOf(name)).map((e) => [e.type, e.data?.enabled, e.pre_data?.enabled])).toEqual([
      ['environment-created', undefined, undefined],
      ['environment-updated', false, true],
      ['environment-updated', true, false],
    ])
  })

  it('a disabled environment is still served to SDKs and still writable', async () => {
    const name = await newEnvironment()
    await admin.post('/api/admin/projects/default/environments', { environment: name })
    const feature = await createFeature(t.app)
    const secret = await clientToken(name)
    expect((await admin.post(`/api/admin/environments/${name}/off`)).statusCode).toBe(204)
    expect((await admin.post(`/api/admin/projects/default/features/${feature}/environments/${name}/on`)).statusCode).toBe(200)
    const served = json(await send('GET', '/api/client/features', undefined, secret)).features
    expect(served.find((f: { name: string }) => f.name === feature)).toMatchObject({ enabled: true })
  })

  it('answers 404 naming an environment that does not exist, changing nothing', async () => {
    for (const state of ['on', 'off']) {
      const body = await refusedUnchanged(() => admin.post(`/api/admin/environments/nowhere/${state}`), 404, 'NotFoundError')
      expect(body.detail).toBe('Environment nowhere does not exist')
    }
  })

  it('needs a */* token, changing nothing', async () => {
    const name = await newEnvironment()
    const scoped = await requests(t).apiToken('client')
    await refusedUnchanged(() => send('POST', `/api/admin/environments/${name}/off`, undefined, scoped), 403, 'PermissionError')
    const projectAdmin = json(await admin.post('/api/admin/api-tokens', { tokenName: uniqueName('admin'), type: 'admin', projects: ['default'] })).secret
    await refusedUnchanged(() => send('PUT', '/api/admin/environments/sort-order', { [name]: 1 }, projectAdmin), 403, 'PermissionError')
  })
})
