import { describe, expect, it } from 'vitest'
import {
  ADMIN_SECRET,
  auth,
  useTestApp,
  createFeature,
  createToken,
  expectProblem,
  json,
  uniqueName,
  documentedRoutes,
} from '../../helpers/app.js'

const t = useTestApp()

/** A concrete URL for a route pattern, with existing names filled in. */
const concrete = (url: string) =>
  url
    .replace(':projectId', 'default')
    .replace(':featureName', 'no-such-feature')
    .replace(':environment', 'development')
    .replace(':tokenName', 'no-such-token')
    .replace(':id', '1')
    .replace(':deliveryId', '1')

describe('authentication', () => {
  it('every registered route under /api/admin answers 401 without a token', async () => {
    const routes = (await documentedRoutes(t.app)).filter(
      (r) => r.url.startsWith('/api/admin') && r.method !== 'HEAD'
    )
    expect(routes.length).toBeGreaterThanOrEqual(18)
    for (const route of routes) {
      const res = await t.app.inject({ method: route.method as 'GET', url: concrete(route.url) })
      expectProblem(res, 401, 'AuthenticationRequired')
    }
  })

  it('answers 401 UnauthorizedError for an unknown secret, with or without Bearer', async () => {
    for (const authorization of ['nope', 'Bearer nope']) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/admin/projects',
        headers: { authorization },
      })
      expectProblem(res, 401, 'UnauthorizedError')
    }
  })

  it('accepts the secret bare and with a Bearer prefix', async () => {
    for (const authorization of [ADMIN_SECRET, `Bearer ${ADMIN_SECRET}`]) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/admin/projects',
        headers: { authorization },
      })
      expect(res.statusCode).toBe(200)
    }
  })

  it('leaves /health, /ready and /docs open', async () => {
    for (const url of ['/health', '/ready', '/docs/json']) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(200)
    }
  })

  it('answers 401 for unknown routes under /api/admin without a token, 404 with one', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/admin/nothing' }), 401, 'AuthenticationRequired')
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/nothing', headers: auth() })
    expectProblem(res, 404, 'NotFoundError')
  })
})

describe('scopes', () => {
  it('refuses a project outside the token scope with 403 naming it', async () => {
    const secret = await createToken(t.app, { projects: ['other'] })
    const feature = await createFeature(t.app)
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/admin/projects/default/features/${feature}`,
      headers: auth(secret),
    })
    const body = expectProblem(res, 403, 'PermissionError')
    expect(body.message).toContain('project default')
  })

  it('refuses an environment outside the scope, allows one inside', async () => {
    const secret = await createToken(t.app, { projects: ['default'], environments: ['development'] })
    const feature = await createFeature(t.app)
    const base = `/api/admin/projects/default/features/${feature}/environments`
    const denied = await t.app.inject({
      method: 'GET',
      url: `${base}/production/variants`,
      headers: auth(secret),
    })
    expect(expectProblem(denied, 403, 'PermissionError').message).toContain('environment production')
    const allowed = await t.app.inject({
      method: 'GET',
      url: `${base}/development/variants`,
      headers: auth(secret),
    })
    expect(allowed.statusCode).toBe(200)
  })

  it('needs a */* token to manage projects, environments and tokens', async () => {
    const secret = await createToken(t.app, { projects: ['default'] })
    const attempts = [
      { method: 'POST', url: '/api/admin/projects', payload: { id: uniqueName('p'), name: 'x' } },
      { method: 'POST', url: '/api/admin/environments', payload: { name: uniqueName('e'), type: 't' } },
      { method: 'POST', url: '/api/admin/projects/default/environments', payload: { environment: 'development' } },
      { method: 'POST', url: '/api/admin/api-tokens', payload: { tokenName: uniqueName() } },
      { method: 'GET', url: '/api/admin/api-tokens' },
      { method: 'DELETE', url: '/api/admin/api-tokens/whatever' },
    ] as const
    for (const a of attempts) {
      const res = await t.app.inject({ ...a, headers: auth(secret) })
      expectProblem(res, 403, 'PermissionError')
    }
  })

  it('lists only the projects in scope', async () => {
    const secret = await createToken(t.app, { projects: ['default'] })
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/projects', headers: auth(secret) })
    expect(json(res).projects.map((p: { id: string }) => p.id)).toEqual(['default'])
  })
})

describe('api tokens', () => {
  it('creates a token whose secret works, lists it without the secret, deletes it', async () => {
    const tokenName = uniqueName('token')
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/api-tokens',
      headers: auth(),
      payload: { tokenName, projects: ['default'] },
    })
    expect(created.statusCode).toBe(201)
    const body = json(created)
    expect(body).toMatchObject({ tokenName, projects: ['default'], project: 'default', environment: '*', expiresAt: null })
    expect(body.secret).toMatch(/^default:\*\.[0-9a-f]{48}$/)

    const stored = await t.database.db
      .selectFrom('api_tokens')
      .select(['secret_hash'])
      .where('name', '=', tokenName)
      .executeTakeFirstOrThrow()
    expect(stored.secret_hash).not.toContain(body.secret)
    expect(stored.secret_hash).toMatch(/^[0-9a-f]{64}$/)

    const list = await t.app.inject({ method: 'GET', url: '/api/admin/api-tokens', headers: auth() })
    const listed = json(list).tokens.find((x: { tokenName: string }) => x.tokenName === tokenName)
    expect(listed).toEqual({ tokenName, type: 'admin', projects: ['default'], project: 'default', environment: '*', expiresAt: null, createdAt: expect.any(String) })
    expect(list.body).not.toContain(body.secret)

    const use = () =>
      t.app.inject({ method: 'GET', url: '/api/admin/projects/default', headers: auth(body.secret) })
    expect((await use()).statusCode).toBe(200)

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/admin/api-tokens/${tokenName}`,
      headers: auth(),
    })
    expect(deleted.statusCode).toBe(200)
    expect(deleted.body).toBe('')
    expectProblem(await use(), 401, 'UnauthorizedError')

    const events = await t.app.inject({
      method: 'GET',
      url: '/api/admin/events?type=api-token-deleted',
      headers: auth(),
    })
    expect(json(events).events[0]).toMatchObject({
      type: 'api-token-deleted',
      createdBy: expect.stringMatching(/^init-admin-/),
      data: { tokenName },
    })
  })

  it('refuses a duplicate name with 409 and an unknown one on delete with 404', async () => {
    const tokenName = uniqueName('token')
    await createToken(t.app, {}, tokenName)
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/admin/api-tokens',
      headers: auth(),
      payload: { tokenName },
    })
    expectProblem(again, 409, 'NameExistsError')
    const missing = await t.app.inject({
      method: 'DELETE',
      url: '/api/admin/api-tokens/never-was',
      headers: auth(),
    })
    expectProblem(missing, 404, 'NotFoundError')
  })

  it('records createdBy as the name of the token that made the change', async () => {
    const tokenName = uniqueName('token')
    const secret = await createToken(t.app, { projects: ['default'] }, tokenName)
    const name = uniqueName()
    await t.app.inject({
      method: 'POST',
      url: '/api/admin/projects/default/features',
      headers: auth(secret),
      payload: { name },
    })
    const events = await t.app.inject({
      method: 'GET',
      url: `/api/admin/events?feature=${name}`,
      headers: auth(),
    })
    expect(json(events).events).toEqual([
      expect.objectContaining({ type: 'feature-created', createdBy: tokenName, featureName: name }),
    ])
  })
})
