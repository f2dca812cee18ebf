/**
 * Guarded environments: a person's direct write (session or personal access token) to a
 * feature in an environment with change requests on is refused with 403 saying to use a change
 * request; changes acting on every environment (archive, revive, dependencies, the project's
 * segments) while any environment of the project is guarded; admin API tokens still write
 * directly, recorded as tokens. Every write route of a feature, an environment or a segment
 * declares its guard (a new route cannot forget it).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { documentedRoutes, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { Browser, listen } from '../../helpers/people.js'
import { databaseFingerprint } from '../../helpers/state.js'
import { call, changeRequestKit, type Person, refused } from './helpers.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })
const kit = changeRequestKit(t)
const { admin } = kit
let base = ''
let alice: Person
let pat: Browser
let patSecret = ''
beforeAll(async () => {
  base = await listen(t)
  alice = await kit.person(base, 'Editor')
  patSecret = (await call(alice, 'POST', '/api/admin/user/tokens', { description: uniqueName('pat'), expiresAt: new Date(Date.now() + 3_600_000).toISOString() })).body.secret
  pat = new Browser(base)
  // Seen once now, so that its last use is not written during a refusal.
  expect((await pat.fetch('/api/admin/user', { headers: { authorization: patSecret } })).status).toBe(200)
})

const asPat = async (method: string, path: string, body?: unknown) => {
  const res = await pat.fetch(path, { method, headers: { authorization: patSecret, ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { body: JSON.stringify(body) }) })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers }
}

describe('a person\'s direct writes', () => {
  it('to a guarded environment: 403 (session and personal access token) saying to use a change request, nothing stored; to another environment: allowed', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const s = json(await admin.post(`/api/admin/projects/${p}/features/${f}/environments/production/strategies`, { name: 'default' })).id
    const fe = `/api/admin/projects/${p}/features/${f}/environments/production`
    const writes: [string, string, unknown?][] = [
      ['POST', `${fe}/on`],
      ['POST', `${fe}/strategies`, { name: 'default' }],
      ['PUT', `${fe}/strategies/${s}`, { name: 'default' }],
      ['PATCH', `${fe}/strategies/${s}`, []],
      ['DELETE', `${fe}/strategies/${s}`],
      ['POST', `${fe}/strategies/set-sort-order`, [{ id: s, sortOrder: 1 }]],
      ['PATCH', `${fe}/variants`, []],
      ['PUT', `${fe}/variants`, []],
      ['PUT', `/api/admin/projects/${p}/features/${f}/variants-batch`, { variants: [], environments: ['development', 'production'] }],
      ['POST', '/api/admin/features-batch/import', { project: p, environment: 'production', data: { features: [], featureStrategies: [] } }],
    ]
    const before = await databaseFingerprint(t.database.db)
    for (const [method, path, body] of writes) {
      const viaSession = refused(await call(alice, method, path, body), 403, 'PermissionError')
      expect(viaSession.detail, `${method} ${path}`).toMatch(new RegExp(`Environment production of project ${p} requires change requests: .*POST /api/admin/projects/${p}/environments/production/change-requests`))
      refused(await asPat(method, path, body), 403, 'PermissionError')
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect((await call(alice, 'POST', `/api/admin/projects/${p}/features/${f}/environments/development/on`)).status).toBe(200)
    expect((await call(alice, 'PATCH', `/api/admin/projects/${p}/features/${f}/environments/development/variants`, [])).status).toBe(200)
    // Not guarded: a new feature, its metadata, tags, lifecycle.
    expect((await call(alice, 'POST', `/api/admin/projects/${p}/features`, { name: uniqueName('new') })).status).toBe(201)
    expect((await call(alice, 'PUT', `/api/admin/projects/${p}/features/${f}`, { description: 'fine' })).status).toBe(200)
  })

  it('acting on every environment (archive, revive and delete for good, also by name, dependencies, the project\'s segments): 403 while any environment of the project is guarded', async () => {
    const p = await kit.project()
    const [f, parent, old] = [await kit.feature(p), await kit.feature(p), await kit.feature(p)]
    await admin.delete(`/api/admin/projects/${p}/features/${old}`)
    const segment = json(await admin.post('/api/admin/segments', { name: uniqueName('seg'), project: p, constraints: [] })).id
    const global = json(await admin.post('/api/admin/segments', { name: uniqueName('seg'), constraints: [] })).id
    const before = await databaseFingerprint(t.database.db)
    for (const [method, path, body] of [
      ['DELETE', `/api/admin/projects/${p}/features/${f}`],
      ['POST', `/api/admin/projects/${p}/revive`, { features: [old] }],
      ['POST', `/api/admin/archive/revive/${old}`],
      ['DELETE', `/api/admin/archive/${old}`],
      ['POST', `/api/admin/projects/${p}/features/${f}/dependencies`, { feature: parent }],
      ['DELETE', `/api/admin/projects/${p}/features/${f}/dependencies`],
      ['DELETE', `/api/admin/projects/${p}/features/${f}/dependencies/${parent}`],
      ['PUT', `/api/admin/segments/${segment}`, { name: uniqueName('seg'), project: p, constraints: [] }],
      ['DELETE', `/api/admin/segments/${segment}`],
    ] as const) {
      expect(refused(await call(alice, method, path, body), 403, 'PermissionError').detail, `${method} ${path}`).toMatch(new RegExp(`Project ${p} requires change requests in production`))
    }
    // Switching several flags on at once in the guarded environment is refused as one switch is.
    expect(refused(await call(alice, 'POST', `/api/admin/projects/${p}/bulk_features/environments/production/on`, { features: [f] }), 403, 'PermissionError').detail)
      .toMatch(new RegExp(`Environment production of project ${p} requires change requests`))
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    // A segment of no project is changed directly.
    expect((await call(alice, 'PUT', `/api/admin/segments/${global}`, { name: uniqueName('seg'), constraints: [] })).status).toBe(204)
  })

  it('admin API tokens still write directly, recorded as the token (no user); turning change requests off lets people write again', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    expect((await admin.post(`/api/admin/projects/${p}/features/${f}/environments/production/on`)).statusCode).toBe(200)
    const [event] = json(await admin.get(`/api/admin/events?feature=${f}&type=feature-environment-enabled`)).events
    expect(event).toMatchObject({ environment: 'production', createdByUserId: null })
    expect(event.changeRequest).toBeUndefined()
    await admin.put(`/api/admin/projects/${p}/environments/production/change-requests/config`, { changeRequestsEnabled: false })
    expect((await call(alice, 'POST', `/api/admin/projects/${p}/features/${f}/environments/production/off`)).status).toBe(200)
  })
})

describe('the route table', () => {
  it('every write route of a feature, an environment or a segment declares its guard (a new route must add one: config.guard)', async () => {
    const documented = (await documentedRoutes(t.app)).filter((r) => !['GET', 'HEAD'].includes(r.method))
    const guardedKind = (url: string) => /:featureName|:environment|\/segments\/:id|\/features-batch\/import|\/revive/.test(url)
    const subject = documented.filter((r) => guardedKind(r.url))
    expect(subject.length).toBeGreaterThan(20)
    const undeclared = subject.filter((r) => t.app.routeGuards.get(`${r.method} ${r.url}`) === undefined).map((r) => `${r.method} ${r.url}`)
    expect(undeclared).toEqual([])
    // The ones that change what SDKs see in one environment are guarded by it. A project's default
    // strategy there is a setting of the project (Admins), used only when a flag is switched on later.
    for (const r of subject.filter((x) => x.url.includes('/environments/:environment/') && !x.url.includes('change-requests') && !x.url.endsWith('/default-strategy'))) {
      expect(t.app.routeGuards.get(`${r.method} ${r.url}`), `${r.method} ${r.url}`).toBe('environment')
    }
  })
})
