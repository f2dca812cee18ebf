import { describe, expect, it } from 'vitest'
import {
  auth,
  useTestApp,
  createFeature,
  createToken,
  expectProblem,
  json,
  uniqueName,
} from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'

const t = useTestApp()

const { admin: { get, post } } = requests(t)

describe('a fresh database', () => {
  it('has project default with development and production enabled', async () => {
    expect(json(await get('/api/admin/projects')).projects).toEqual([
      expect.objectContaining({ id: 'default', name: 'Default' }),
    ])
    const envs = json(await get('/api/admin/environments')).environments
    expect(envs.map((e: { name: string }) => e.name)).toEqual(['development', 'production'])
  })
})

describe('projects', () => {
  it('creates a project (201), reads it back, records project-created', async () => {
    const id = uniqueName('p')
    const res = await post('/api/admin/projects', { id, name: 'Payments', description: 'money' })
    expect(res.statusCode).toBe(201)
    expect(json(res)).toEqual({ id, name: 'Payments', description: 'money', createdAt: expect.any(String) })
    expect(json(await get(`/api/admin/projects/${id}`))).toEqual(json(res))
    const events = json(await get(`/api/admin/events?project=${id}`)).events
    expect(events).toEqual([expect.objectContaining({ type: 'project-created', project: id })])
  })

  it('refuses a duplicate id with 409 and an unknown project with 404', async () => {
    expectProblem(await post('/api/admin/projects', { id: 'default', name: 'again' }), 409, 'NameExistsError')
    expectProblem(await get('/api/admin/projects/nope'), 404, 'NotFoundError')
  })

  it.each([
    [{ id: 'has space', name: 'x' }, '/body/id'],
    [{ id: '..', name: 'x' }, '/body/id'],
    [{ id: 'x'.repeat(101), name: 'x' }, '/body/id'],
    [{ id: 'ok', name: 5 }, '/body/name'],
    [{ id: 'ok', name: 'x', extra: true }, '/body/extra'],
    [{ name: 'x' }, '/body/id'],
  ])('refuses %j with 400 at %s and stores nothing', async (payload, path) => {
    const before = await t.database.db.selectFrom('projects').select('id').execute()
    const body = expectProblem(await post('/api/admin/projects', payload), 400, 'BadDataError')
    expect(body.details[0].path).toBe(path)
    expect(await t.database.db.selectFrom('projects').select('id').execute()).toEqual(before)
  })
})

describe('environments', () => {
  it('creates an environment, enables it in a project, which gives existing features a feature-environment', async () => {
    const project = uniqueName('p')
    await post('/api/admin/projects', { id: project, name: 'P' })
    const feature = await createFeature(t.app, project)
    expect(json(await get(`/api/admin/projects/${project}/features/${feature}`)).environments).toEqual([])

    const name = uniqueName('env')
    const created = await post('/api/admin/environments', { name, type: 'staging' })
    expect(created.statusCode).toBe(201)
    expect(json(created)).toEqual({ name, type: 'staging', enabled: true, protected: false, sortOrder: expect.any(Number), requiredApprovals: null })
    expectProblem(await post('/api/admin/environments', { name, type: 'x' }), 409, 'NameExistsError')

    const enabled = await post(`/api/admin/projects/${project}/environments`, { environment: name })
    expect(enabled.statusCode).toBe(200)
    expect(enabled.body).toBe('')
    // enabling again changes nothing
    expect((await post(`/api/admin/projects/${project}/environments`, { environment: name })).statusCode).toBe(200)
    expect(json(await get(`/api/admin/projects/${project}/features/${feature}`)).environments).toEqual([
      { name, enabled: false, lastSeenAt: null, variants: [], strategies: [] },
    ])
    // a feature created afterwards gets it too
    const later = await createFeature(t.app, project)
    expect(json(await get(`/api/admin/projects/${project}/features/${later}`)).environments).toEqual([
      { name, enabled: false, lastSeenAt: null, variants: [], strategies: [] },
    ])
  })

  it('404s enabling in an unknown project or an unknown environment, storing nothing', async () => {
    const before = await t.database.db.selectFrom('project_environments').selectAll().execute()
    const p = expectProblem(
      await post('/api/admin/projects/nope/environments', { environment: 'development' }),
      404,
      'NotFoundError'
    )
    expect(p.message).toBe('Project nope does not exist')
    const e = expectProblem(
      await post('/api/admin/projects/default/environments', { environment: 'nope' }),
      404,
      'NotFoundError'
    )
    expect(e.message).toBe('Environment nope does not exist')
    expect(await t.database.db.selectFrom('project_environments').selectAll().execute()).toEqual(before)
  })
})

describe('features', () => {
  it('creates a feature with a feature-environment per enabled environment and stage initial', async () => {
    const name = uniqueName()
    const res = await post('/api/admin/projects/default/features', { name, description: 'd', type: 'experiment' })
    expect(res.statusCode).toBe(201)
    expect(json(res)).toEqual({
      name,
      project: 'default',
      description: 'd',
      type: 'experiment',
      stale: false,
      impressionData: false,
      createdAt: expect.any(String),
    })
    const details = json(await get(`/api/admin/projects/default/features/${name}`))
    expect(details).toEqual({
      ...json(res),
      lifecycle: { stage: 'initial', enteredStageAt: expect.any(String) },
      environments: [
        { name: 'development', enabled: false, lastSeenAt: null, variants: [], strategies: [] },
        { name: 'production', enabled: false, lastSeenAt: null, variants: [], strategies: [] },
      ],
      dependencies: [],
      children: [],
      favorite: false,
      links: [],
    })
    // As Unleash's projectFeaturesSchema (version 2, no project, no lifecycle unless asked for).
    const answer = json(await get('/api/admin/projects/default/features'))
    expect(answer.version).toBe(2)
    const listed = (environment: string, sortOrder: number) =>
      ({ name: environment, type: environment, enabled: false, sortOrder, variantCount: 0, lastSeenAt: null, hasStrategies: false, hasEnabledStrategies: false })
    const { project: _project, ...inList } = json(res)
    expect(answer.features).toContainEqual({ ...inList, favorite: false, environments: [listed('development', 2), listed('production', 3)], tags: [] })
    const withStages = json(await get('/api/admin/projects/default/features?include=lifecycle')).features
    expect(withStages.find((f: any) => f.name === name).lifecycle).toEqual({ stage: 'initial', enteredStageAt: details.lifecycle.enteredStageAt })
    const events = json(await get(`/api/admin/events?feature=${name}`)).events
    expect(events).toEqual([
      expect.objectContaining({ type: 'feature-created', project: 'default', featureName: name }),
    ])
  })

  it('lists each feature with its state per environment the token may see and its current stage; archived ones are left out', async () => {
    const project = uniqueName('p')
    expect((await post('/api/admin/projects', { id: project, name: project })).statusCode).toBe(201)
    expect((await post(`/api/admin/projects/${project}/environments`, { environment: 'development' })).statusCode).toBe(200)
    expect((await post(`/api/admin/projects/${project}/environments`, { environment: 'production' })).statusCode).toBe(200)
    const [on, completed, archived] = [uniqueName('on'), uniqueName('done'), uniqueName('gone')]
    for (const name of [on, completed, archived]) await createFeature(t.app, project, name)
    expect((await post(`/api/admin/projects/${project}/features/${on}/environments/production/on`, undefined)).statusCode).toBe(200)
    expect((await post(`/api/admin/projects/${project}/features/${completed}/lifecycle/complete`, { status: 'kept' })).statusCode).toBe(200)
    expect((await t.app.inject({ method: 'DELETE', url: `/api/admin/projects/${project}/features/${archived}`, headers: auth() })).statusCode).toBe(202)

    const list = json(await get(`/api/admin/projects/${project}/features?include=lifecycle`)).features
    const summary = list.map((f: any) => ({ name: f.name, environments: f.environments.map((e: any) => ({ name: e.name, enabled: e.enabled })), stage: f.lifecycle.stage }))
    expect(summary).toEqual([
      { name: completed, environments: [{ name: 'development', enabled: false }, { name: 'production', enabled: false }], stage: 'completed' },
      { name: on, environments: [{ name: 'development', enabled: false }, { name: 'production', enabled: true }], stage: 'initial' },
    ].sort((a, b) => (a.name < b.name ? -1 : 1)))

    // A token for production only sees production's state.
    const token = await createToken(t.app, { projects: [project], environments: ['production'] })
    const scoped = json(await t.app.inject({ method: 'GET', url: `/api/admin/projects/${project}/features`, headers: auth(token) })).features
    expect(scoped.find((f: any) => f.name === on).environments).toEqual([
      { name: 'production', type: 'production', enabled: true, sortOrder: 3, variantCount: 0, lastSeenAt: null, hasStrategies: true, hasEnabledStrategies: true },
    ])
  })

  it('lists each feature with its tags, in the order they were added', async () => {
    const project = uniqueName('p')
    expect((await post('/api/admin/projects', { id: project, name: project })).statusCode).toBe(201)
    const [tagged, plain] = [uniqueName('tagged'), uniqueName('plain')]
    for (const name of [tagged, plain]) await createFeature(t.app, project, name)
    expect((await post(`/api/admin/features/${tagged}/tags`, { type: 'simple', value: 'release-q4' })).statusCode).toBe(201)
    expect((await post(`/api/admin/features/${tagged}/tags`, { type: 'simple', value: 'checkout' })).statusCode).toBe(201)
    const list = json(await get(`/api/admin/projects/${project}/features`)).features
    expect(list.find((f: any) => f.name === tagged).tags).toEqual([{ type: 'simple', value: 'release-q4' }, { type: 'simple', value: 'checkout' }])
    expect(list.find((f: any) => f.name === plain).tags).toEqual([])
    // Removed tags leave the list.
    expect((await t.app.inject({ method: 'DELETE', url: `/api/admin/features/${tagged}/tags/simple/release-q4`, headers: auth() })).statusCode).toBe(200)
    expect(json(await get(`/api/admin/projects/${project}/features`)).features.find((f: any) => f.name === tagged).tags).toEqual([{ type: 'simple', value: 'checkout' }])
  })

  it('defaults type to release and description to null', async () => {
    const name = uniqueName()
    const res = await post('/api/admin/projects/default/features', { name })
    expect(json(res)).toMatchObject({ type: 'release', description: null })
  })

  it('refuses a duplicate name across projects with 409', async () => {
    const project = uniqueName('p')
    await post('/api/admin/projects', { id: project, name: 'P' })
    const name = await createFeature(t.app)
    expectProblem(await post(`/api/admin/projects/${project}/features`, { name }), 409, 'NameExistsError')
  })

  it('404s a feature in another project and an unknown project', async () => {
    const project = uniqueName('p')
    await post('/api/admin/projects', { id: project, name: 'P' })
    const name = await createFeature(t.app)
    const wrong = expectProblem(await get(`/api/admin/projects/${project}/features/${name}`), 404, 'NotFoundError')
    expect(wrong.message).toBe(`Feature ${name} does not exist in project ${project}`)
    expectProblem(await get('/api/admin/projects/nope/features'), 404, 'NotFoundError')
    expectProblem(await post('/api/admin/projects/nope/features', { name: uniqueName() }), 404, 'NotFoundError')
  })

  it('refuses a bad type or unknown property with 400, creating nothing', async () => {
    const name = uniqueName()
    for (const payload of [{ name, type: 'bogus' }, { name, color: 'red' }, { name: 7 }]) {
      expectProblem(await post('/api/admin/projects/default/features', payload), 400, 'BadDataError')
    }
    expectProblem(await get(`/api/admin/projects/default/features/${name}`), 404, 'NotFoundError')
  })
})

describe('events', () => {
  it('lists newest first, filters, and pages with a cursor', async () => {
    const names = [await createFeature(t.app), await createFeature(t.app), await createFeature(t.app)]
    const page1 = json(await get('/api/admin/events?type=feature-created&limit=2'))
    expect(page1.events).toHaveLength(2)
    expect(page1.events[0].featureName).toBe(names[2])
    expect(page1.events[1].featureName).toBe(names[1])
    expect(page1.events[0].id).toBeGreaterThan(page1.events[1].id)
    const page2 = json(await get(`/api/admin/events?type=feature-created&limit=2&cursor=${page1.nextCursor}`))
    expect(page2.events[0].featureName).toBe(names[0])
    for (const e of [...page1.events, ...page2.events]) expect(e.type).toBe('feature-created')
  })

  it('refuses a bad limit or cursor with 400', async () => {
    for (const q of ['limit=0', 'limit=100000', 'limit=abc', 'cursor=x']) {
      expectProblem(await get(`/api/admin/events?${q}`), 400, 'BadDataError')
    }
  })
})
