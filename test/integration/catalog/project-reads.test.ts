/**
 * What Unleash's project screens read: the project list, a project's overview (with its
 * onboarding status), status, flag creators and applications, and whether its flags have
 * dependencies.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createFeature, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { listen, signedIn } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })
const { admin, clientToken, send } = requests(t)
let base = ''
beforeAll(async () => {
  base = await listen(t)
})

const now = () => new Date().toISOString()
const register = (secret: string, appName: string, instanceId: string, sdkVersion: string) =>
  send('POST', '/api/client/register', { appName, instanceId, sdkVersion, strategies: ['default'], started: now(), interval: 60000 }, secret)
const metrics = (secret: string, appName: string, toggles: object, instanceId = 'i-1') =>
  send('POST', '/api/client/metrics', { appName, instanceId, bucket: { start: now(), stop: now(), toggles } }, secret)

async function newProject (name = 'P') {
  const id = uniqueName('p')
  expect((await admin.post('/api/admin/projects', { id, name })).statusCode).toBe(201)
  await admin.post(`/api/admin/projects/${id}/environments`, { environment: 'development' })
  return id
}

/** Makes the flag look created `days` ago (the lifetime of its type decides whether it is potentially stale). */
const age = (feature: string, days: number) =>
  t.database.db.updateTable('features').set({ created_at: new Date(Date.now() - days * 86_400_000) } as never).where('name', '=', feature).execute()

describe('GET /api/admin/projects', () => {
  it("answers Unleash's list: version 1, by name, each with counts, health, onboarding and owners", async () => {
    const id = await newProject('aaa first by name')
    const flag = await createFeature(t.app, id)
    const body = json(await admin.get('/api/admin/projects'))
    expect(body.version).toBe(1)
    const names = body.projects.map((p: { name: string }) => p.name)
    expect(names).toEqual([...names].sort())
    expect(body.projects.find((p: { id: string }) => p.id === id)).toEqual({
      id,
      name: 'aaa first by name',
      description: null,
      createdAt: expect.any(String),
      health: 100,
      technicalDebt: 0,
      featureCount: 1,
      memberCount: 0,
      cleanupCount: 0,
      mode: 'open',
      archivedAt: null,
      lastUpdatedAt: expect.any(String),
      lastReportedFlagUsage: null,
      onboardingStatus: { status: 'first-flag-created', feature: flag },
      owners: [{ ownerType: 'system' }],
    })
  })

  it('a token of some projects sees only those', async () => {
    const id = await newProject()
    const scoped = json(await admin.post('/api/admin/api-tokens', { tokenName: uniqueName('admin'), type: 'admin', projects: [id] })).secret
    expect(json(await send('GET', '/api/admin/projects', undefined, scoped)).projects.map((p: { id: string }) => p.id)).toEqual([id])
  })
})

describe('GET /api/admin/projects/{projectId}/overview', () => {
  it('walks the onboarding: started, first flag, SDK connected, onboarded', async () => {
    const id = await newProject()
    const status = async () => json(await admin.get(`/api/admin/projects/${id}/overview`)).onboardingStatus
    expect(await status()).toEqual({ status: 'onboarding-started' })
    const flag = await createFeature(t.app, id)
    expect(await status()).toEqual({ status: 'first-flag-created', feature: flag })
    const secret = await clientToken('development', [id])
    expect((await metrics(secret, 'onboarding-app', { [flag]: { yes: 1, no: 0 } })).statusCode).toBe(202)
    await t.app.usage.flush()
    expect(await status()).toEqual({ status: 'sdk-connected' })
    await admin.post(`/api/admin/projects/${id}/features/${flag}/environments/development/on`)
    expect(await status()).toEqual({ status: 'onboarded' })
    const listed = json(await admin.get('/api/admin/projects')).projects.find((p: { id: string }) => p.id === id)
    expect(listed).toMatchObject({ onboardingStatus: { status: 'onboarded' }, lastReportedFlagUsage: expect.any(String) })
  })

  it('answers settings, health, members, environments, flag types and 30-day counts', async () => {
    const id = await newProject('Overview')
    await admin.post(`/api/admin/projects/${id}/environments`, { environment: 'production' })
    const [a, b, c] = [await createFeature(t.app, id), await createFeature(t.app, id), await createFeature(t.app, id)]
    await admin.put(`/api/admin/projects/${id}/features/${c}`, { type: 'kill-switch' })
    await age(a, 41)
    await admin.post(`/api/admin/projects/${id}/features/${b}/environments/production/on`)
    const user = await signedIn(t, base, 'Viewer')
    await admin.put(`/api/admin/projects/${id}/users/${user.id}/roles`, { roles: [5] })

    const res = await admin.get(`/api/admin/projects/${id}/overview`)
    expect(res.statusCode).toBe(200)
    expect(json(res)).toEqual({
      version: 1,
      name: 'Overview',
      description: null,
      mode: 'open',
      featureLimit: null,
      featureNaming: { pattern: null, example: null, description: null },
      linkTemplates: [],
      defaultStickiness: 'default',
      members: 1,
      health: 67,
      technicalDebt: 33,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      archivedAt: null,
      onboardingStatus: { status: 'first-flag-created', feature: a },
      environments: [{ environment: 'development' }, { environment: 'production' }],
      featureTypeCounts: [{ type: 'kill-switch', count: 1 }, { type: 'release', count: 2 }],
      stats: {
        avgTimeToProdCurrentWindow: 0.1,
        createdCurrentWindow: 2,
        createdPastWindow: 1,
        archivedCurrentWindow: 0,
        archivedPastWindow: 0,
        projectActivityCurrentWindow: expect.any(Number),
        projectActivityPastWindow: 0,
        projectMembersAddedCurrentWindow: 1,
      },
    })
  })

  it('answers 404 naming a project that does not exist', async () => {
    expect(expectProblem(await admin.get('/api/admin/projects/nowhere/overview'), 404, 'NotFoundError').detail).toBe('Project nowhere does not exist')
  })
})

describe('GET /api/admin/projects/{projectId}/status', () => {
  it('answers activity per day, resources, health, the lifecycle summary and stale flags', async () => {
    const id = await newProject()
    const [a, b] = [await createFeature(t.app, id), await createFeature(t.app, id)]
    await age(a, 100)
    const archived = await createFeature(t.app, id)
    await send('DELETE', `/api/admin/projects/${id}/features/${archived}`)
    await admin.post('/api/admin/api-tokens', { tokenName: uniqueName('sdk'), type: 'client', environment: 'development', projects: [id] })
    await admin.post('/api/admin/segments', { name: uniqueName('seg'), project: id, constraints: [] })
    await admin.post(`/api/admin/projects/${id}/features/${b}/lifecycle/complete`, { status: 'kept' })

    const res = await admin.get(`/api/admin/projects/${id}/status`)
    expect(res.statusCode).toBe(200)
    const body = json(res)
    const today = new Date().toISOString().slice(0, 10)
    expect(body.activityCountByDate).toEqual([{ date: today, count: expect.any(Number) }])
    expect(body.activityCountByDate[0].count).toBeGreaterThanOrEqual(5)
    expect(body).toMatchObject({
      resources: { members: 0, apiTokens: 1, segments: 1 },
      health: { current: 50 },
      technicalDebt: { current: 50 },
      lifecycleSummary: {
        // The archived flag and the completed one left initial the day they entered it.
        initial: { averageDays: 0, currentFlags: 1 },
        preLive: { averageDays: null, currentFlags: 0 },
        live: { averageDays: null, currentFlags: 0 },
        completed: { averageDays: null, currentFlags: 1 },
        archived: { currentFlags: 1, last30Days: 1 },
      },
      staleFlags: { total: 1 },
    })
  })

  it('answers 404 naming a project that does not exist (Unleash answers zeros)', async () => {
    expect(expectProblem(await admin.get('/api/admin/projects/nowhere/status'), 404, 'NotFoundError').detail).toBe('Project nowhere does not exist')
  })
})

describe('GET /api/admin/projects/{projectId}/flag-creators', () => {
  it('lists the people who created flags (not archived) of the project; flags a token created name no one', async () => {
    const id = await newProject()
    await createFeature(t.app, id)
    const editor = await signedIn(t, base, 'Editor')
    const archiver = await signedIn(t, base, 'Editor')
    expect((await editor.browser.json('POST', `/api/admin/projects/${id}/features`, { name: uniqueName('mine') })).status).toBe(201)
    const archived = uniqueName('archived')
    expect((await archiver.browser.json('POST', `/api/admin/projects/${id}/features`, { name: archived })).status).toBe(201)
    await send('DELETE', `/api/admin/projects/${id}/features/${archived}`)

    const res = await admin.get(`/api/admin/projects/${id}/flag-creators`)
    expect(res.statusCode).toBe(200)
    expect(json(res)).toEqual([{ id: editor.id, name: editor.login }])
    expect(expectProblem(await admin.get('/api/admin/projects/nowhere/flag-creators'), 404, 'NotFoundError').detail).toBe('Project nowhere does not exist')
  })
})

describe('GET /api/admin/projects/{projectId}/applications', () => {
  it("lists the applications that reported the project's flags, with environments, instances and SDKs; searches and pages", async () => {
    const id = await newProject()
    await admin.post(`/api/admin/projects/${id}/environments`, { environment: 'production' })
    const flag = await createFeature(t.app, id)
    const other = await createFeature(t.app)
    const dev = await clientToken('development')
    const prod = await clientToken('production')
    await register(dev, 'checkout', 'dev-1', 'unleash-client-node:6.1.0')
    await register(dev, 'checkout', 'dev-2', 'unleash-client-java:9.2.0')
    await register(prod, 'checkout', 'prod-1', 'unleash-client-node:6.0.0')
    await register(dev, 'billing', 'b-1', 'unleash-client-go:4.1.0')
    await register(dev, 'elsewhere', 'e-1', 'unleash-client-node:6.1.0')
    await metrics(dev, 'checkout', { [flag]: { yes: 1, no: 0 } }, 'dev-1')
    await metrics(prod, 'checkout', { [flag]: { yes: 1, no: 0 } }, 'prod-1')
    await metrics(dev, 'billing', { [flag]: { yes: 0, no: 2 } }, 'b-1')
    await metrics(dev, 'elsewhere', { [other]: { yes: 1, no: 0 } }, 'e-1')
    await t.app.usage.flush()

    const res = await admin.get(`/api/admin/projects/${id}/applications`)
    expect(res.statusCode).toBe(200)
    expect(json(res)).toEqual({
      total: 2,
      applications: [
        { name: 'billing', environments: ['development'], instances: ['b-1'], sdks: [{ name: 'unleash-client-go', versions: ['4.1.0'] }] },
        {
          name: 'checkout',
          environments: ['development', 'production'],
          instances: ['dev-1', 'dev-2', 'prod-1'],
          sdks: [{ name: 'unleash-client-java', versions: ['9.2.0'] }, { name: 'unleash-client-node', versions: ['6.0.0', '6.1.0'] }],
        },
      ],
    })
    const names = async (query: string) => {
      const body = json(await admin.get(`/api/admin/projects/${id}/applications?${query}`))
      return [body.total, body.applications.map((a: { name: string }) => a.name)]
    }
    expect(await names('sortOrder=desc')).toEqual([2, ['checkout', 'billing']])
    expect(await names('limit=1')).toEqual([2, ['billing']])
    expect(await names('limit=1&offset=1')).toEqual([2, ['checkout']])
    expect(await names('offset=5')).toEqual([2, []])
    expect(await names('query=JAVA')).toEqual([1, ['checkout']])
    expect(await names('query=nothing,go')).toEqual([1, ['billing']])
    expect(await names('limit=500&offset=-3&sortOrder=sideways')).toEqual([2, ['billing', 'checkout']])
    expect(json(await admin.get(`/api/admin/projects/${id}/applications?query=java`)).applications[0].instances).toEqual(['dev-2'])
  })

  it('answers an empty page for a project no SDK reported, 404 for one that does not exist', async () => {
    const id = await newProject()
    expect(json(await admin.get(`/api/admin/projects/${id}/applications`))).toEqual({ total: 0, applications: [] })
    expect(expectProblem(await admin.get('/api/admin/projects/nowhere/applications'), 404, 'NotFoundError').detail).toBe('Project nowhere does not exist')
  })
})

describe('GET /api/admin/projects/{projectId}/dependencies', () => {
  it('answers a bare boolean: whether a flag of the project depends on another; 404 for a project that does not exist', async () => {
    const id = await newProject()
    const [parent, child] = [await createFeature(t.app, id), await createFeature(t.app, id)]
    const exists = async () => {
      const res = await admin.get(`/api/admin/projects/${id}/dependencies`)
      expect(res.statusCode).toBe(200)
      return res.body
    }
    expect(await exists()).toBe('false')
    await admin.post(`/api/admin/projects/${id}/features/${child}/dependencies`, { feature: parent })
    expect(await exists()).toBe('true')
    expect(await (async () => (await admin.get('/api/admin/projects/default/dependencies')).body)()).toBe('false')
    expect(expectProblem(await admin.get('/api/admin/projects/nowhere/dependencies'), 404, 'NotFoundError').detail).toBe('Project nowhere does not exist')
  })
})
