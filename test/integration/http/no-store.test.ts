/**
 * Answers for one caller (the admin API, the session's routes) are never kept by a browser or a
 * proxy: `Cache-Control: no-store` on every one of them, refusals included. The SDK APIs keep
 * their own caching (ETags and revalidation), untouched.
 */
import { describe, expect, it } from 'vitest'
import { auth, createToken, documentedRoutes, json, useTestApp } from '../../helpers/app.js'
import { createUser, listen, PASSWORD } from '../../helpers/people.js'

const t = useTestApp()

/** A documented route's pattern with a plausible value for every parameter. */
const fill = (url: string) =>
  url.replace(/:(\w+)/g, (_, name: string) => ({ projectId: 'default', environment: 'development', id: '1', userId: '1', deliveryId: '1' } as Record<string, string>)[name] ?? 'x')

const isPrivate = (url: string) => url.startsWith('/api/admin/') || url.startsWith('/auth/') || url === '/logout'

describe('Cache-Control: no-store', () => {
  it('on every answer of every documented admin and session route, with a token, without one, and for HEAD', async () => {
    const routes = (await documentedRoutes(t.app)).filter((r) => isPrivate(r.url))
    expect(routes.length).toBeGreaterThan(60)
    const missing: string[] = []
    for (const route of routes) {
      const url = fill(route.url)
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}'
      for (const headers of [auth(), {}]) {
        for (const method of route.method === 'GET' ? ['GET', 'HEAD'] as const : [route.method as 'POST']) {
          const res = await t.app.inject({ method, url, headers: { ...headers, ...(body && { 'content-type': 'application/json' }), 'sec-fetch-site': 'same-origin' }, ...(body && { payload: body }) })
          if (res.headers['cache-control'] !== 'no-store') missing.push(`${method} ${url} → ${res.statusCode}: ${String(res.headers['cache-control'])}`)
        }
      }
    }
    expect(missing).toEqual([])
  })

  it('on the answers that carry personal data: users, the profile, tokens, webhooks, events; and on a session\'s log-in and log-out', async () => {
    const base = await listen(t)
    const { login } = await createUser(t, 'Viewer')
    const signIn = await fetch(`${base}/auth/simple/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' }, body: JSON.stringify({ username: login, password: PASSWORD }) })
    expect(signIn.status).toBe(200)
    expect(signIn.headers.get('cache-control')).toBe('no-store')
    const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!
    for (const path of ['/api/admin/user', '/api/admin/user/profile', '/api/admin/user/tokens']) {
      const res = await fetch(`${base}${path}`, { headers: { cookie } })
      expect(res.status, path).toBe(200)
      expect(res.headers.get('cache-control'), path).toBe('no-store')
    }
    for (const path of ['/api/admin/user-admin', '/api/admin/user-admin/1', '/api/admin/api-tokens', '/api/admin/addons', '/api/admin/events', '/api/admin/projects']) {
      const res = await t.app.inject({ method: 'GET', url: path, headers: auth() })
      expect(res.statusCode, path).toBe(200)
      expect(res.headers['cache-control'], path).toBe('no-store')
    }
    const wrong = await fetch(`${base}/auth/simple/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' }, body: JSON.stringify({ username: login, password: 'wrong-password-1' }) })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('cache-control')).toBe('no-store')
    const out = await fetch(`${base}/logout`, { method: 'POST', redirect: 'manual', headers: { cookie, 'sec-fetch-site': 'same-origin' } })
    expect(out.status).toBe(302)
    expect(out.headers.get('cache-control')).toBe('no-store')
  })

  it('not on the SDK APIs, /health or the document: they keep what they sent before', async () => {
    const client = await createToken(t.app, { type: 'client', environment: 'development' })
    const frontend = await createToken(t.app, { type: 'frontend', environment: 'development' })
    const features = await t.app.inject({ method: 'GET', url: '/api/client/features', headers: auth(client) })
    expect(features.statusCode).toBe(200)
    expect(features.headers['cache-control']).toBeUndefined()
    const again = await t.app.inject({ method: 'GET', url: '/api/client/features', headers: { ...auth(client), 'if-none-match': String(features.headers.etag) } })
    expect(again.statusCode).toBe(304)
    expect(again.headers['cache-control']).toBeUndefined()
    const proxy = await t.app.inject({ method: 'GET', url: '/api/frontend', headers: auth(frontend) })
    expect(proxy.statusCode).toBe(200)
    expect(proxy.headers['cache-control']).toBe('no-cache')
    const ofrep = await t.app.inject({ method: 'POST', url: '/ofrep/v1/evaluate/flags', headers: { ...auth(frontend), 'content-type': 'application/json' }, payload: { context: {} } })
    expect(ofrep.statusCode).toBe(200)
    expect(ofrep.headers['cache-control']).toBeUndefined()
    for (const url of ['/health', '/docs/json']) {
      expect((await t.app.inject({ method: 'GET', url })).headers['cache-control'], url).toBeUndefined()
    }
  })

  it('the OpenAPI document says so, for every response of those routes and of no other', async () => {
    const doc = json(await t.app.inject({ method: 'GET', url: '/docs/json' }))
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const header = response.headers?.['cache-control']
          if (isPrivate(path)) expect(header, `${method} ${path} ${status}`).toEqual({ required: true, description: 'Never kept by browsers or proxies', schema: { type: 'string', const: 'no-store' } })
          else expect(header, `${method} ${path} ${status}`).toBeUndefined()
        }
      }
    }
  })
})
