/**
 * Context fields of one project (Unleash 7.4+, `/api/admin/projects/{p}/context…`): names
 * unique across root and project fields, a project's routes change only its own fields, the
 * root list leaves them out unless asked (`include=project`), a project's list adds the root
 * ones with `include=root`.
 */
import { describe, expect, it } from 'vitest'
import { createFeature, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp()
const { admin, send } = requests(t)

async function newProject () {
  const id = uniqueName('p')
  expect((await admin.post('/api/admin/projects', { id, name: 'P' })).statusCode).toBe(201)
  return id
}

async function refusedUnchanged (request: () => Promise<{ statusCode: number; body: string }>, status: number, name: string) {
  const before = await databaseFingerprint(t.database.db)
  const body = expectProblem((await request()) as never, status, name)
  expect(await databaseFingerprint(t.database.db)).toEqual(before)
  return body
}

const names = (fields: { name: string }[]) => fields.map((f) => f.name)

describe("a project's context fields", () => {
  it('create (201, Location, project), list, read, change, legal values, delete: each write with its event filed under the project', async () => {
    const project = await newProject()
    const name = uniqueName('plan')
    const created = await admin.post(`/api/admin/projects/${project}/context`, { name, description: 'the plan', legalValues: [{ value: 'gold' }] })
    expect(created.statusCode).toBe(201)
    expect(created.headers.location).toBe(`context/${name}`)
    expect(json(created)).toEqual({ name, description: 'the plan', stickiness: false, sortOrder: 0, legalValues: [{ value: 'gold' }], createdAt: expect.any(String), project })

    expect(json(await admin.get(`/api/admin/projects/${project}/context`))).toEqual([
      { name, description: 'the plan', stickiness: false, sortOrder: 0, legalValues: [{ value: 'gold' }], createdAt: expect.any(String), project, usedInFeatures: 0, usedInProjects: 0 },
    ])
    expect(json(await admin.get(`/api/admin/projects/${project}/context/${name}`))).toEqual(json(created))

    expect((await admin.put(`/api/admin/projects/${project}/context/${name}`, { description: 'plans', stickiness: true, legalValues: [{ value: 'gold' }], project })).statusCode).toBe(200)
    expect((await admin.post(`/api/admin/projects/${project}/context/${name}/legal-values`, { value: 'silver', description: 'second' })).statusCode).toBe(200)
    expect((await send('DELETE', `/api/admin/projects/${project}/context/${name}/legal-values/gold`)).statusCode).toBe(200)
    expect(json(await admin.get(`/api/admin/projects/${project}/context/${name}`))).toMatchObject({ description: 'plans', stickiness: true, legalValues: [{ value: 'silver', description: 'second' }], project })
    expect((await send('DELETE', `/api/admin/projects/${project}/context/${name}`)).statusCode).toBe(200)
    expectProblem(await admin.get(`/api/admin/projects/${project}/context/${name}`), 404, 'NotFoundError')

    const events = json(await admin.get(`/api/admin/events?project=${project}`)).events.filter((e: { type: string }) => e.type.startsWith('context-field'))
    expect(events.map((e: { type: string }) => e.type)).toEqual(['context-field-deleted', 'context-field-updated', 'context-field-updated', 'context-field-updated', 'context-field-created'])
    expect(events.at(-1).data).toEqual({ name, description: 'the plan', stickiness: false, sortOrder: 0, legalValues: [{ value: 'gold' }], project })
  })

  it("lists: a project's own fields, the root ones too with include=root; the root list leaves project fields out unless include=project", async () => {
    const [a, b] = [await newProject(), await newProject()]
    const [ofA, ofB] = [uniqueName('a'), uniqueName('b')]
    await admin.post(`/api/admin/projects/${a}/context`, { name: ofA })
    await admin.post(`/api/admin/projects/${b}/context`, { name: ofB })
    expect(names(json(await admin.get(`/api/admin/projects/${a}/context`)))).toEqual([ofA])
    const withRoot = names(json(await admin.get(`/api/admin/projects/${a}/context?include=ROOT`)))
    expect(withRoot).toEqual(expect.arrayContaining([ofA, 'appName', 'userId']))
    expect(withRoot).not.toContain(ofB)
    expect(withRoot).toEqual([...withRoot].sort())

    const root = names(json(await admin.get('/api/admin/context')))
    expect(root).toContain('appName')
    expect(root).not.toContain(ofA)
    expect(names(json(await admin.get('/api/admin/context?include=project')))).toEqual(expect.arrayContaining([ofA, ofB, 'appName']))
    const scoped = json(await admin.post('/api/admin/api-tokens', { tokenName: uniqueName('admin'), type: 'admin', projects: [a] })).secret
    const seen = names(json(await send('GET', '/api/admin/context?include=project', undefined, scoped)))
    expect(seen).toContain(ofA)
    expect(seen).not.toContain(ofB)
  })

  it("reads a root field through a project's route, never another project's", async () => {
    const [a, b] = [await newProject(), await newProject()]
    const ofB = uniqueName('b')
    await admin.post(`/api/admin/projects/${b}/context`, { name: ofB })
    expect(json(await admin.get(`/api/admin/projects/${a}/context/appName`))).toMatchObject({ name: 'appName' })
    expect(json(await admin.get(`/api/admin/projects/${a}/context/appName`))).not.toHaveProperty('project')
    expect(expectProblem(await admin.get(`/api/admin/projects/${a}/context/${ofB}`), 404, 'NotFoundError').detail).toBe('Could not find context field')
    expect(json(await admin.get(`/api/admin/context/${ofB}`))).toMatchObject({ name: ofB, project: b })
  })

  it("changes only its own fields: a root field or another project's is a 404 naming it, changing nothing", async () => {
    const [a, b] = [await newProject(), await newProject()]
    const ofB = uniqueName('b')
    await admin.post(`/api/admin/projects/${b}/context`, { name: ofB, legalValues: [{ value: 'x' }] })
    for (const field of ['appName', ofB]) {
      const message = `Could not find context field ${field} in project ${a}`
      expect((await refusedUnchanged(() => admin.put(`/api/admin/projects/${a}/context/${field}`, { stickiness: true }), 404, 'NotFoundError')).detail).toBe(message)
      expect((await refusedUnchanged(() => send('DELETE', `/api/admin/projects/${a}/context/${field}`), 404, 'NotFoundError')).detail).toBe(message)
      expect((await refusedUnchanged(() => admin.post(`/api/admin/projects/${a}/context/${field}/legal-values`, { value: 'y' }), 404, 'NotFoundError')).detail).toBe(message)
      expect((await refusedUnchanged(() => send('DELETE', `/api/admin/projects/${a}/context/${field}/legal-values/x`), 404, 'NotFoundError')).detail).toBe(message)
    }
    expect((await refusedUnchanged(() => admin.put(`/api/admin/projects/${a}/context/ghost`, {}), 404, 'NotFoundError')).detail).toBe(`Could not find context field ghost in project ${a}`)
  })

  it('names are unique across root and project fields; validate answers 200 or 409', async () => {
    const [a, b] = [await newProject(), await newProject()]
    const name = uniqueName('shared')
    await admin.post(`/api/admin/projects/${a}/context`, { name })
    await refusedUnchanged(() => admin.post(`/api/admin/projects/${b}/context`, { name }), 409, 'NameExistsError')
    await refusedUnchanged(() => admin.post('/api/admin/context', { name }), 409, 'NameExistsError')
    await refusedUnchanged(() => admin.post(`/api/admin/projects/${a}/context`, { name: 'userId' }), 409, 'NameExistsError')
    expect((await admin.post(`/api/admin/projects/${b}/context/validate`, { name: uniqueName('free') })).statusCode).toBe(200)
    expectProblem(await admin.post(`/api/admin/projects/${b}/context/validate`, { name }), 409, 'NameExistsError')
    expectProblem(await admin.post(`/api/admin/projects/${b}/context/validate`, { name: 'a b' }), 400, 'BadDataError')
  })

  it('refuses, changing nothing: a project that does not exist (404 naming it), a body naming another project, a field moved between projects', async () => {
    const [a, b] = [await newProject(), await newProject()]
    const name = uniqueName('f')
    await admin.post(`/api/admin/projects/${a}/context`, { name })
    for (const request of [
      () => admin.get('/api/admin/projects/nowhere/context'),
      () => admin.post('/api/admin/projects/nowhere/context', { name: uniqueName('f') }),
      () => admin.post('/api/admin/projects/nowhere/context/validate', { name: uniqueName('f') }),
      () => admin.get(`/api/admin/projects/nowhere/context/${name}`),
      () => admin.put(`/api/admin/projects/nowhere/context/${name}`, {}),
      () => admin.get(`/api/admin/projects/nowhere/context/${name}/strategies`),
      () => admin.post('/api/admin/context', { name: uniqueName('f'), project: 'nowhere' }),
    ]) {
      expect((await refusedUnchanged(request, 404, 'NotFoundError')).detail).toBe('Project nowhere does not exist')
    }
    expect((await refusedUnchanged(() => admin.post(`/api/admin/projects/${a}/context`, { name: uniqueName('f'), project: b }), 400, 'BadDataError')).details[0].path).toBe('/body/project')
    expect((await refusedUnchanged(() => admin.put(`/api/admin/projects/${a}/context/${name}`, { project: b }), 400, 'BadDataError')).details[0].path).toBe('/body/project')
    expect((await refusedUnchanged(() => admin.put(`/api/admin/context/${name}`, { project: b }), 400, 'BadDataError')).details[0].path).toBe('/body/project')
    expect((await refusedUnchanged(() => admin.put('/api/admin/context/appName', { project: a }), 400, 'BadDataError')).detail).toBe('/body/project must be left out: the field is a root field')
  })

  it('the root routes create a project field with project, and change or delete any field by name', async () => {
    const project = await newProject()
    const name = uniqueName('root-made')
    expect(json(await admin.post('/api/admin/context', { name, project }))).toMatchObject({ name, project })
    expect(names(json(await admin.get(`/api/admin/projects/${project}/context`)))).toEqual([name])
    expect((await admin.put(`/api/admin/context/${name}`, { stickiness: true, project })).statusCode).toBe(200)
    expect((await send('DELETE', `/api/admin/context/${name}`)).statusCode).toBe(200)
    expect(json(await admin.get(`/api/admin/projects/${project}/context`))).toEqual([])
  })

  it('a field constraints read cannot be deleted (409); the strategies using it are listed', async () => {
    const project = await newProject()
    await admin.post(`/api/admin/projects/${project}/environments`, { environment: 'development' })
    const name = uniqueName('tier')
    await admin.post(`/api/admin/projects/${project}/context`, { name })
    const feature = await createFeature(t.app, project)
    const strategy = json(await admin.post(`/api/admin/projects/${project}/features/${feature}/environments/development/strategies`, {
      name: 'flexibleRollout', constraints: [{ contextName: name, operator: 'IN', values: ['x'] }],
    }))
    expect(json(await admin.get(`/api/admin/projects/${project}/context/${name}/strategies`))).toEqual({
      strategies: [{ id: strategy.id, projectId: project, featureName: feature, strategyName: 'flexibleRollout', environment: 'development' }],
    })
    expect(json(await admin.get(`/api/admin/projects/${project}/context`))[0]).toMatchObject({ usedInFeatures: 1, usedInProjects: 1 })
    await refusedUnchanged(() => send('DELETE', `/api/admin/projects/${project}/context/${name}`), 409, 'InUseError')
  })

  it("a token of one project manages that project's fields, not another's (403, changing nothing)", async () => {
    const [a, b] = [await newProject(), await newProject()]
    const scoped = json(await admin.post('/api/admin/api-tokens', { tokenName: uniqueName('admin'), type: 'admin', projects: [a] })).secret
    expect((await send('POST', `/api/admin/projects/${a}/context`, { name: uniqueName('mine') }, scoped)).statusCode).toBe(201)
    await refusedUnchanged(() => send('POST', `/api/admin/projects/${b}/context`, { name: uniqueName('theirs') }, scoped), 403, 'PermissionError')
    await refusedUnchanged(() => send('POST', '/api/admin/context', { name: uniqueName('root'), project: a }, scoped), 403, 'PermissionError')
  })
})
