/**
 * A project's environments: taking one out (DELETE …/environments/{env}) and the project's
 * default strategy in one, which a flag switched on there with no active strategy gets.
 */
import { describe, expect, it } from 'vitest'
import { createFeature, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint, eventsOf } from '../../helpers/state.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })
const { admin, clientToken, send } = requests(t)

/** A new project with development enabled. */
async function newProject () {
  const project = uniqueName('p')
  expect((await admin.post('/api/admin/projects', { id: project, name: 'P' })).statusCode).toBe(201)
  expect((await admin.post(`/api/admin/projects/${project}/environments`, { environment: 'development' })).statusCode).toBe(200)
  return project
}

async function refusedUnchanged (request: () => Promise<{ statusCode: number; body: string }>, status: number, name: string) {
  const before = await databaseFingerprint(t.database.db)
  const body = expectProblem((await request()) as never, status, name)
  expect(await databaseFingerprint(t.database.db)).toEqual(before)
  return body
}

const strategiesOf = async (project: string, feature: string, environment = 'development') =>
  json(await admin.get(`/api/admin/projects/${project}/features/${feature}/environments/${environment}/strategies`))

describe('DELETE /api/admin/projects/{projectId}/environments/{environment}', () => {
  it("takes the environment out: the project's features lose it with their strategies, SDKs stop getting them; project-environment-removed", async () => {
    const project = await newProject()
    await admin.post(`/api/admin/projects/${project}/environments`, { environment: 'production' })
    const feature = await createFeature(t.app, project)
    await admin.post(`/api/admin/projects/${project}/features/${feature}/environments/production/on`)
    await admin.put(`/api/admin/projects/${project}/features/${feature}/environments/production/variants`, [{ name: 'blue', weight: 1000 }])
    const other = await createFeature(t.app)
    await admin.post(`/api/admin/projects/default/features/${other}/environments/production/on`)
    const secret = await clientToken('production')
    const served = async () => json(await send('GET', '/api/client/features', undefined, secret)).features.map((f: { name: string }) => f.name)
    expect(await served()).toEqual(expect.arrayContaining([feature, other]))

    const res = await send('DELETE', `/api/admin/projects/${project}/environments/production`)
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
    expect(json(await admin.get(`/api/admin/projects/${project}/features/${feature}`)).environments.map((e: { name: string }) => e.name)).toEqual(['development'])
    expect(await t.database.db.selectFrom('feature_strategies').select('id').where('feature_name', '=', feature).where('environment_name', '=', 'production').execute()).toEqual([])
    expect(await served()).toContain(other)
    expect(await served()).not.toContain(feature)
    expectProblem(await admin.post(`/api/admin/projects/${project}/features/${feature}/environments/production/on`), 404, 'NotFoundError')
    const visible = json(await admin.get(`/api/admin/environments/project/${project}`)).environments.filter((e: { visible: boolean }) => e.visible)
    expect(visible.map((e: { name: string }) => e.name)).toEqual(['development'])
    const events = json(await admin.get(`/api/admin/events?project=${project}&type=project-environment-removed`)).events
    expect(events).toEqual([expect.objectContaining({ type: 'project-environment-removed', project, environment: 'production' })])
  })

  it('an environment not enabled in the project changes nothing (200); the last one may go; enabling it again starts afresh', async () => {
    const project = await newProject()
    const feature = await createFeature(t.app, project)
    const before = await databaseFingerprint(t.database.db)
    expect((await send('DELETE', `/api/admin/projects/${project}/environments/production`)).statusCode).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    await admin.post(`/api/admin/projects/${project}/environments/development/default-strategy`, { name: 'flexibleRollout', parameters: { rollout: '10' } })
    expect((await send('DELETE', `/api/admin/projects/${project}/environments/development`)).statusCode).toBe(200)
    expect(json(await admin.get(`/api/admin/projects/${project}/features/${feature}`)).environments).toEqual([])
    expect(await admin.post(`/api/admin/projects/${project}/environments`, { environment: 'development' })).toMatchObject({ statusCode: 200 })
    expect(json(await admin.get(`/api/admin/projects/${project}/features/${feature}`)).environments).toEqual([{ name: 'development', enabled: false, variants: [], strategies: [], lastSeenAt: null }])
    const overview = json(await admin.get(`/api/admin/projects/${project}/overview`))
    expect(overview.environments).toEqual([{ environment: 'development' }])
  })

  it('refuses, changing nothing: a project or environment that does not exist (404 naming it), a token without */* (403)', async () => {
    const project = await newProject()
    expect((await refusedUnchanged(() => send('DELETE', `/api/admin/projects/${project}/environments/nowhere`), 404, 'NotFoundError')).detail).toBe('Environment nowhere does not exist')
    expect((await refusedUnchanged(() => send('DELETE', '/api/admin/projects/nowhere/environments/development'), 404, 'NotFoundError')).detail).toBe('Project nowhere does not exist')
    const scoped = json(await admin.post('/api/admin/api-tokens', { tokenName: uniqueName('admin'), type: 'admin', projects: [project] })).secret
    await refusedUnchanged(() => send('DELETE', `/api/admin/projects/${project}/environments/development`, undefined, scoped), 403, 'PermissionError')
  })
})

describe('POST /api/admin/projects/{projectId}/environments/{environment}/default-strategy', () => {
  const strategy = {
    name: 'flexibleRollout',
    title: 'Half of the beta users',
    parameters: { rollout: '50', stickiness: 'userId' },
    constraints: [{ contextName: 'appName', operator: 'IN', values: ['beta'] }],
  }

  it('answers the strategy as stored; records default-strategy-updated (data, preData); the same again changes nothing', async () => {
    const project = await newProject()
    const res = await admin.post(`/api/admin/projects/${project}/environments/development/default-strategy`, strategy)
    expect(res.statusCode).toBe(200)
    const stored = {
      name: 'flexibleRollout',
      title: 'Half of the beta users',
      disabled: false,
      sortOrder: 0,
      parameters: { rollout: '50', stickiness: 'userId' },
      constraints: [{ contextName: 'appName', operator: 'IN', values: ['beta'] }],
      variants: [],
      segments: [],
    }
    expect(json(res)).toEqual(stored)
    expect(json(await admin.get(`/api/admin/projects/${project}/overview`)).environments).toEqual([{ environment: 'development', defaultStrategy: stored }])
    const before = await databaseFingerprint(t.database.db)
    expect((await admin.post(`/api/admin/projects/${project}/environments/development/default-strategy`, strategy)).statusCode).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    await admin.post(`/api/admin/projects/${project}/environments/development/default-strategy`, { name: 'flexibleRollout', parameters: { rollout: '75', groupId: 'shared' } })
    const events = json(await admin.get(`/api/admin/events?project=${project}&type=default-strategy-updated`)).events
    expect(events.map((e: { environment: string, data: any, preData: any }) => [e.environment, e.data.parameters, e.preData?.parameters ?? null])).toEqual([
      ['development', { rollout: '75', stickiness: 'default', groupId: 'shared' }, { rollout: '50', stickiness: 'userId' }],
      ['development', { rollout: '50', stickiness: 'userId' }, null],
    ])
  })

  it('is what a flag switched on with no active strategy gets (groupId its name unless one is set); feature-strategy-add names the environment', async () => {
    const project = await newProject()
    await admin.post(`/api/admin/projects/${project}/environments/development/default-strategy`, strategy)
    const feature = await createFeature(t.app, project)
    expect((await admin.post(`/api/admin/projects/${project}/features/${feature}/environments/development/on`)).statusCode).toBe(200)
    const [added, ...rest] = await strategiesOf(project, feature)
    expect(rest).toEqual([])
    expect(added).toMatchObject({
      name: 'flexibleRollout',
      title: 'Half of the beta users',
      disabled: false,
      parameters: { rollout: '50', stickiness: 'userId', groupId: feature },
      constraints: [{ contextName: 'appName', operator: 'IN', values: ['beta'] }],
    })
    const events = await eventsOf(t.database.db, feature)
    expect(events.map((e) => [e.type, e.environment])).toEqual([['feature-created', null], ['feature-strategy-add', 'development'], ['feature-environment-enabled', 'development']])
    expect(events[1]!.data).toMatchObject({ id: added.id, parameters: { groupId: feature } })

    await admin.post(`/api/admin/projects/${project}/environments/development/default-strategy`, { name: 'flexibleRollout', parameters: { rollout: '5', groupId: 'shared' } })
    const second = await createFeature(t.app, project)
    await admin.post(`/api/admin/projects/${project}/features/${second}/environments/development/on`)
    expect((await strategiesOf(project, second))[0].parameters).toEqual({ rollout: '5', stickiness: 'default', groupId: 'shared' })
  })

  it('without one, a flag switched on gets flexibleRollout at 100 %, its event naming the environment too', async () => {
    const feature = await createFeature(t.app)
    await admin.post(`/api/admin/projects/default/features/${feature}/environments/production/on`)
    expect((await strategiesOf('default', feature, 'production')).map((s: { parameters: object }) => s.parameters)).toEqual([{ rollout: '100', stickiness: 'default', groupId: feature }])
    const added = (await eventsOf(t.database.db, feature)).find((e) => e.type === 'feature-strategy-add')
    expect(added).toMatchObject({ project: 'default', environment: 'production' })
    const listed = json(await admin.get(`/api/admin/events?feature=${feature}&type=feature-strategy-add`)).events
    expect(listed).toEqual([expect.objectContaining({ environment: 'production' })])
  })

  it('segments: of the project or of none; one deleted since makes switching on a 404 naming it, changing nothing', async () => {
    const project = await newProject()
    const other = await newProject()
    const segment = json(await admin.post('/api/admin/segments', { name: uniqueName('seg'), constraints: [{ contextName: 'userId', operator: 'IN', values: ['a'] }] })).id
    const foreign = json(await admin.post('/api/admin/segments', { name: uniqueName('seg'), project: other, constraints: [] })).id
    const url = `/api/admin/projects/${project}/environments/development/default-strategy`
    expect((await refusedUnchanged(() => admin.post(url, { name: 'flexibleRollout', segments: [segment, foreign] }), 400, 'BadDataError')).details[0].path).toBe('/body/segments/1')
    expect((await refusedUnchanged(() => admin.post(url, { name: 'flexibleRollout', segments: [999999] }), 400, 'BadDataError')).details[0].path).toBe('/body/segments/0')
    expect(json(await admin.post(url, { name: 'flexibleRollout', segments: [segment] })).segments).toEqual([segment])

    const feature = await createFeature(t.app, project)
    await admin.post(`/api/admin/projects/${project}/features/${feature}/environments/development/on`)
    const [used] = await strategiesOf(project, feature)
    expect(used.segments).toEqual([segment])
    // The segment can go once no strategy uses it: the project's default is not a strategy.
    expect((await send('DELETE', `/api/admin/projects/${project}/features/${feature}/environments/development/strategies/${used.id}`)).statusCode).toBe(200)
    expect((await send('DELETE', `/api/admin/segments/${segment}`)).statusCode).toBe(204)
    const later = await createFeature(t.app, project)
    const body = await refusedUnchanged(() => admin.post(`/api/admin/projects/${project}/features/${later}/environments/development/on`), 404, 'NotFoundError')
    expect(body.detail).toBe(`Segment ${segment} of the default strategy of project ${project} in environment development does not exist: set the default strategy again`)
  })

  it('refuses, changing nothing: another strategy (Unleash\'s sentence), a disabled one, broken parameters, an environment not in the project, no */* token', async () => {
    const project = await newProject()
    const url = `/api/admin/projects/${project}/environments/development/default-strategy`
    const other = await refusedUnchanged(() => admin.post(url, { name: 'default' }), 400, 'BadDataError')
    expect(other.detail).toBe('Only "flexibleRollout" strategy can be used as a default strategy for an environment')
    expect(other.details[0].path).toBe('/body/name')
    expect((await refusedUnchanged(() => admin.post(url, { name: 'flexibleRollout', disabled: true }), 400, 'BadDataError')).details[0].path).toBe('/body/disabled')
    expect((await refusedUnchanged(() => admin.post(url, { name: 'flexibleRollout', parameters: { rollout: '101' } }), 400, 'BadDataError')).details[0].path).toBe('/body/parameters/rollout')
    expect((await refusedUnchanged(() => admin.post(url, { name: 'flexibleRollout', constraints: [{ contextName: 'x', operator: 'NOPE', values: [] }] }), 400, 'BadDataError')).details[0].path).toMatch(/^\/body\/constraints\/0/)
    await refusedUnchanged(() => admin.post(url, {}), 400, 'BadDataError')
    expect((await refusedUnchanged(() => admin.post(`/api/admin/projects/${project}/environments/production/default-strategy`, { name: 'flexibleRollout' }), 404, 'NotFoundError')).detail)
      .toBe(`Environment production is not enabled in project ${project}`)
    expect((await refusedUnchanged(() => admin.post('/api/admin/projects/nowhere/environments/development/default-strategy', { name: 'flexibleRollout' }), 404, 'NotFoundError')).detail)
      .toBe('Project nowhere does not exist')
    const scoped = json(await admin.post('/api/admin/api-tokens', { tokenName: uniqueName('admin'), type: 'admin', projects: [project] })).secret
    await refusedUnchanged(() => send('POST', url, { name: 'flexibleRollout' }, scoped), 403, 'PermissionError')
  })
})
