/**
 * Terraform's calls about environments, as the Unleash provider (terraform-provider-unleash,
 * through the generated Go client) makes them: the `unleash_environment` data source reads
 * one environment; the `unleash_project_environment` resource enables an environment in a
 * project (200, or 409 when it is there already), reads the project's environments to see it,
 * and takes it out again on destroy. The Go client refuses an answer that lacks a member its
 * schema requires, so every required member is checked here.
 */
import { describe, expect, it } from 'vitest'
import { expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'

const t = useTestApp()
const { admin, send } = requests(t)

/** What Unleash's environmentSchema requires, the members the Go client insists on. */
const ENVIRONMENT_REQUIRED = ['name', 'type', 'enabled', 'protected', 'sortOrder']

describe("Terraform's calls", () => {
  it('data "unleash_environment": GET /api/admin/environments/{name} answers name, type, requiredApprovals and the required members', async () => {
    const res = await admin.get('/api/admin/environments/development')
    expect(res.statusCode).toBe(200)
    const environment = json(res)
    for (const member of ENVIRONMENT_REQUIRED) expect(environment).toHaveProperty(member)
    expect(environment).toMatchObject({ name: 'development', type: 'development', requiredApprovals: null })
    // An environment that is not there fails the plan with a 404 (not a missing route).
    expect(expectProblem(await admin.get('/api/admin/environments/staging'), 404, 'NotFoundError').detail).toBe('Environment staging does not exist')
  })

  it('resource "unleash_project_environment": create, read, destroy, destroy again, create again', async () => {
    const project = uniqueName('tf')
    expect((await admin.post('/api/admin/projects', { id: project, name: 'Terraform' })).statusCode).toBe(201)
    const listed = async () => {
      const res = await admin.get(`/api/admin/environments/project/${project}`)
      expect(res.statusCode).toBe(200)
      const body = json(res)
      expect(body.version).toBe(1)
      for (const e of body.environments) for (const member of ENVIRONMENT_REQUIRED) expect(e).toHaveProperty(member)
      return body.environments as { name: string; visible: boolean }[]
    }

    // Create: AddEnvironmentToProject, then GetProjectEnvironments finds it by name.
    expect((await admin.post(`/api/admin/projects/${project}/environments`, { environment: 'production' })).statusCode).toBe(200)
    expect((await listed()).find((e) => e.name === 'production')).toMatchObject({ visible: true })
    // Applying the same plan again is accepted.
    expect([200, 409]).toContain((await admin.post(`/api/admin/projects/${project}/environments`, { environment: 'production' })).statusCode)

    // Destroy: RemoveEnvironmentFromProject answers 200; the environment is no longer visible in the project.
    const removed = await send('DELETE', `/api/admin/projects/${project}/environments/production`)
    expect(removed.statusCode).toBe(200)
    expect((await listed()).find((e) => e.name === 'production')).toMatchObject({ visible: false })
    // A destroy that runs again (state out of date) still answers 200.
    expect((await send('DELETE', `/api/admin/projects/${project}/environments/production`)).statusCode).toBe(200)

    expect((await admin.post(`/api/admin/projects/${project}/environments`, { environment: 'production' })).statusCode).toBe(200)
    expect((await listed()).find((e) => e.name === 'production')).toMatchObject({ visible: true })
  })

  it('a project the plan names that does not exist is a 404 naming it on each call', async () => {
    for (const res of [
      await admin.get('/api/admin/environments/project/nowhere'),
      await admin.post('/api/admin/projects/nowhere/environments', { environment: 'development' }),
      await send('DELETE', '/api/admin/projects/nowhere/environments/development'),
    ]) {
      expect(expectProblem(res, 404, 'NotFoundError').detail).toBe('Project nowhere does not exist')
    }
  })
})
