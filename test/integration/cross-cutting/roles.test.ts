/**
 * The role table, walked: every documented route, for every kind of person (each root role, a
 * Member of one project, a Member of another, an Editor through a personal access token). A
 * refusal is exactly 403 and changes nothing; an allowed call is never 401 or 403. A route
 * added later without an entry here fails the first test: every route needs a role decision.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { auth, documentedRoutes, expectProblem, uniqueName, useTestApp } from '../../helpers/app.js'
import { Browser, listen, signedIn } from '../../helpers/people.js'
import { databaseFingerprint } from '../../helpers/state.js'

/**
 * What each route asks of a person (docs/people.md has the same table):
 * viewer: anyone signed in; editor: an Editor or Admin, or a Member of the route's project;
 * admin: an Admin; self: anyone signed in, on their own account; public: no one need sign in;
 * sdk: API tokens of the client or frontend type only (never a person).
 */
type Need = 'public' | 'viewer' | 'editor' | 'admin' | 'self' | 'sdk'

const TABLE: Record<string, Need> = {
  'GET /metrics': 'public',
  'GET /health': 'public',
  'GET /ready': 'public',
  'POST /auth/simple/login': 'public',
  'POST /logout': 'public',
  'GET /api/admin/projects': 'viewer',
  'POST /api/admin/projects': 'admin',
  'GET /api/admin/projects/:projectId': 'viewer',
  'POST /api/admin/projects/:projectId/environments': 'admin',
  'GET /api/admin/environments': 'viewer',
  'POST /api/admin/environments': 'admin',
  'POST /api/admin/projects/:projectId/features': 'editor',
  'GET /api/admin/projects/:projectId/features': 'viewer',
  'GET /api/admin/projects/:projectId/features/:featureName': 'viewer',
  'PUT /api/admin/projects/:projectId/features/:featureName': 'editor',
  'DELETE /api/admin/projects/:projectId/features/:featureName': 'editor',
  'POST /api/admin/projects/:projectId/features/:featureName/environments/:environment/on': 'editor',
  'POST /api/admin/projects/:projectId/features/:featureName/environments/:environment/off': 'editor',
  'POST /api/admin/projects/:projectId/revive': 'editor',
  'PATCH /api/admin/projects/:projectId/features/:featureName': 'editor',
  'GET /api/admin/projects/:projectId/features/:featureName/environments/:environment': 'viewer',
  'POST /api/admin/projects/:projectId/features/:featureName/clone': 'editor',
  'POST /api/admin/features/validate': 'viewer',
  'POST /api/admin/projects/:projectId/bulk_features/environments/:environment/on': 'editor',
  'POST /api/admin/projects/:projectId/bulk_features/environments/:environment/off': 'editor',
  'POST /api/admin/projects/:projectId/archive': 'editor',
  'POST /api/admin/projects/:projectId/archive/validate': 'editor',
  'POST /api/admin/projects/:projectId/delete': 'editor',
  'DELETE /api/admin/archive/:featureName': 'editor',
  'POST /api/admin/archive/revive/:featureName': 'editor',
  'POST /api/admin/projects/:projectId/features/:featureName/link': 'editor',
  'PUT /api/admin/projects/:projectId/features/:featureName/link/:linkId': 'editor',
  'DELETE /api/admin/projects/:projectId/features/:featureName/link/:linkId': 'editor',
  'POST /api/admin/projects/:projectId/features/:featureName/favorites': 'self',
  'DELETE /api/admin/projects/:projectId/features/:featureName/favorites': 'self',
  'POST /api/admin/projects/:projectId/favorites': 'self',
  'DELETE /api/admin/projects/:projectId/favorites': 'self',
  'GET /api/admin/personal-dashboard': 'self',
  'GET /api/admin/personal-dashboard/:projectId': 'self',
  'GET /api/admin/lifecycle/count': 'viewer',
  'GET /api/admin/projects/:projectId/features/:featureName/parents': 'viewer',
  'GET /api/admin/projects/:projectId/features/:featureName/parent-variants': 'viewer',
  'PUT /api/admin/projects/:projectId/tags': 'editor',
  'GET /api/client/features/:featureName': 'sdk',
  'GET /api/admin/projects/:projectId/features/:featureName/environments/:environment/variants': 'viewer',
  'PATCH /api/admin/projects/:projectId/features/:featureName/environments/:environment/variants': 'editor',
  'PUT /api/admin/projects/:projectId/features/:featureName/environments/:environment/variants': 'editor',
  'PUT /api/admin/projects/:projectId/features/:featureName/variants-batch': 'editor',
  'GET /api/admin/strategies': 'viewer',
  'POST /api/admin/strategies': 'editor',
  'GET /api/admin/strategies/:name': 'viewer',
  'PUT /api/admin/strategies/:name': 'editor',
  'DELETE /api/admin/strategies/:name': 'editor',
  'POST /api/admin/strategies/:name/deprecate': 'editor',
  'POST /api/admin/strategies/:name/reactivate': 'editor',
  'GET /api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies': 'viewer',
  'POST /api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies': 'editor',
  'GET /api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/:strategyId': 'viewer',
  'PUT /api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/:strategyId': 'editor',
  'PATCH /api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/:strategyId': 'editor',
  'DELETE /api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/:strategyId': 'editor',
  'POST /api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/set-sort-order': 'editor',
  'GET /api/admin/context': 'viewer',
  'POST /api/admin/context': 'editor',
  'POST /api/admin/context/validate': 'editor',
  'GET /api/admin/context/:name': 'viewer',
  'PUT /api/admin/context/:name': 'editor',
  'DELETE /api/admin/context/:name': 'editor',
  'POST /api/admin/context/:name/legal-values': 'editor',
  'DELETE /api/admin/context/:name/legal-values/:legalValue': 'editor',
  'GET /api/admin/context/:name/strategies': 'viewer',
  'POST /api/admin/constraints/validate': 'viewer',
  'POST /api/admin/playground': 'viewer',
  'POST /api/admin/playground/advanced': 'viewer',
  'POST /api/admin/playground/change-request/:id': 'viewer',
  'GET /api/admin/tag-types': 'viewer',
  'POST /api/admin/tag-types': 'editor',
  'POST /api/admin/tag-types/validate': 'editor',
  'GET /api/admin/tag-types/:name': 'viewer',
  'PUT /api/admin/tag-types/:name': 'editor',
  'DELETE /api/admin/tag-types/:name': 'editor',
  'GET /api/admin/tags': 'viewer',
  'POST /api/admin/tags': 'editor',
  'GET /api/admin/tags/:type': 'viewer',
  'GET /api/admin/tags/:type/:value': 'viewer',
  'DELETE /api/admin/tags/:type/:value': 'editor',
  'GET /api/admin/features/:featureName/tags': 'viewer',
  'POST /api/admin/features/:featureName/tags': 'editor',
  'PUT /api/admin/features/:featureName/tags': 'editor',
  'DELETE /api/admin/features/:featureName/tags/:type/:value': 'editor',
  'GET /api/admin/feature-types': 'viewer',
  'PUT /api/admin/feature-types/:id/lifetime': 'admin',
  'POST /api/admin/features-batch/export': 'viewer',
  'POST /api/admin/features-batch/validate': 'viewer',
  'POST /api/admin/features-batch/import': 'editor',
  'GET /api/admin/segments': 'viewer',
  'POST /api/admin/segments': 'editor',
  'POST /api/admin/segments/validate': 'editor',
  'GET /api/admin/segments/:id': 'viewer',
  'PUT /api/admin/segments/:id': 'editor',
  'DELETE /api/admin/segments/:id': 'editor',
  'GET /api/admin/segments/:id/strategies': 'viewer',
  'GET /api/admin/segments/strategies/:strategyId': 'viewer',
  'POST /api/admin/segments/strategies': 'editor',
  'POST /api/admin/projects/:projectId/features/:featureName/dependencies': 'editor',
  'DELETE /api/admin/projects/:projectId/features/:featureName/dependencies': 'editor',
  'DELETE /api/admin/projects/:projectId/features/:featureName/dependencies/:parent': 'editor',
  'POST /api/admin/projects/:projectId/features/:featureName/lifecycle/complete': 'editor',
  'POST /api/admin/projects/:projectId/features/:featureName/lifecycle/uncomplete': 'editor',
  'GET /api/admin/projects/:projectId/features/:featureName/lifecycle': 'viewer',
  'GET /api/admin/events': 'viewer',
  'GET /api/admin/events/:featureName': 'viewer',
  'GET /api/admin/search/events': 'viewer',
  'GET /api/admin/event-creators': 'viewer',
  'POST /api/admin/api-tokens': 'admin',
  'GET /api/admin/api-tokens': 'editor',
  'GET /api/admin/api-tokens/:token': 'editor',
  'PUT /api/admin/api-tokens/:token': 'admin',
  'DELETE /api/admin/api-tokens/:token': 'admin',
  'GET /api/admin/projects/:projectId/api-tokens': 'editor',
  'POST /api/admin/projects/:projectId/api-tokens': 'editor',
  'DELETE /api/admin/projects/:projectId/api-tokens/:token': 'editor',
  'GET /api/admin/user': 'self',
  'GET /api/admin/user/profile': 'self',
  'POST /api/admin/user/change-password': 'self',
  'GET /api/admin/user/roles': 'self',
  'GET /api/admin/user/tokens': 'self',
  'POST /api/admin/user/tokens': 'self',
  'DELETE /api/admin/user/tokens/:id': 'self',
  'GET /api/admin/user-admin': 'admin',
  'POST /api/admin/user-admin': 'admin',
  'GET /api/admin/user-admin/search': 'admin',
  'POST /api/admin/user-admin/validate-password': 'self',
  'GET /api/admin/user-admin/:id': 'admin',
  'PUT /api/admin/user-admin/:id': 'admin',
  'DELETE /api/admin/user-admin/:id': 'admin',
  'POST /api/admin/user-admin/:id/change-password': 'admin',
  'GET /api/admin/projects/:projectId/access': 'admin',
  'PUT /api/admin/projects/:projectId/users/:userId/roles': 'admin',
  'DELETE /api/admin/projects/:projectId/users/:userId/roles': 'admin',
  'GET /api/client/features': 'sdk',
  'GET /api/client/streaming': 'sdk',
  'GET /api/client/delta': 'sdk',
  'POST /api/client/register': 'sdk',
  'POST /api/client/metrics': 'sdk',
  'POST /api/client/metrics/bulk': 'sdk',
  'POST /edge/validate': 'public',
  'POST /edge/issue-token': 'public',
  'GET /api/frontend': 'sdk',
  'POST /api/frontend': 'sdk',
  'POST /api/frontend/client/metrics': 'sdk',
  'POST /api/frontend/client/register': 'sdk',
  'POST /ofrep/v1/evaluate/flags/:key': 'sdk',
  'POST /ofrep/v1/evaluate/flags': 'sdk',
  'GET /auth/oidc/login': 'public',
  'GET /auth/oidc/callback': 'public',
  'GET /api/admin/auth/oidc/settings': 'admin',
  'POST /api/admin/auth/oidc/settings': 'admin',
  'GET /api/admin/auth/simple/settings': 'admin',
  'POST /api/admin/auth/simple/settings': 'admin',
  'GET /api/admin/groups': 'admin',
  'POST /api/admin/groups': 'admin',
  'GET /api/admin/groups/:groupId': 'admin',
  'PUT /api/admin/groups/:groupId': 'admin',
  'DELETE /api/admin/groups/:groupId': 'admin',
  'PUT /api/admin/projects/:projectId/groups/:groupId/roles': 'admin',
  'DELETE /api/admin/projects/:projectId/groups/:groupId/roles': 'admin',
  'GET /api/admin/addons': 'admin',
  'POST /api/admin/addons': 'admin',
  'GET /api/admin/addons/:id': 'admin',
  'PUT /api/admin/addons/:id': 'admin',
  'DELETE /api/admin/addons/:id': 'admin',
  'POST /api/admin/addons/:id/rotate-secret': 'admin',
  'GET /api/admin/addons/:id/deliveries': 'admin',
  'GET /api/admin/addons/:id/events': 'admin',
  'POST /api/admin/addons/:id/deliveries/:deliveryId/redeliver': 'admin',
  'GET /api/admin/search/features': 'viewer',
  'GET /api/admin/client-metrics/features/:name/raw': 'viewer',
  'GET /api/admin/client-metrics/features/:name': 'viewer',
  'GET /api/admin/metrics/applications': 'viewer',
  'GET /api/admin/metrics/applications/:appName': 'viewer',
  'POST /api/admin/metrics/applications/:appName': 'editor',
  'DELETE /api/admin/metrics/applications/:appName': 'editor',
  'GET /api/admin/metrics/applications/:appName/overview': 'viewer',
  'GET /api/admin/metrics/instances/:appName/environment/:environment': 'viewer',
  'GET /api/admin/metrics/sdks/outdated': 'viewer',
  'GET /api/admin/metrics/unknown-flags': 'viewer',
  'POST /api/admin/projects/:projectId/stale': 'editor',
  'GET /api/admin/projects/:projectId/health-report': 'viewer',
  'GET /api/admin/projects/:projectId/insights': 'viewer',
  'GET /api/admin/projects/:projectId/dora': 'viewer',
  'GET /api/admin/projects/:projectId/sdks/outdated': 'viewer',
  'GET /api/admin/projects/:projectId/change-requests/config': 'viewer',
  'PUT /api/admin/projects/:projectId/environments/:environment/change-requests/config': 'admin',
  'POST /api/admin/projects/:projectId/environments/:environment/change-requests': 'editor',
  'GET /api/admin/projects/:projectId/change-requests/scheduled': 'viewer',
  'GET /api/admin/projects/:projectId/change-requests/count': 'viewer',
  'GET /api/admin/projects/:projectId/change-requests/open': 'viewer',
  'GET /api/admin/projects/:projectId/change-requests/pending': 'viewer',
  'GET /api/admin/projects/:projectId/change-requests/actionable': 'viewer',
  'GET /api/admin/projects/:projectId/change-requests': 'viewer',
  'GET /api/admin/projects/:projectId/change-requests/pending/:featureName': 'viewer',
  'GET /api/admin/projects/:projectId/change-requests/:id': 'viewer',
  'DELETE /api/admin/projects/:projectId/change-requests/:id': 'editor',
  'PUT /api/admin/projects/:projectId/change-requests/:changeRequestId/changes/:changeId': 'editor',
  'DELETE /api/admin/projects/:projectId/change-requests/:changeRequestId/changes/:changeId': 'editor',
  'PUT /api/admin/projects/:projectId/change-requests/:id/state': 'editor',
  'PUT /api/admin/projects/:projectId/change-requests/:id/title': 'editor',
  'GET /api/admin/projects/:projectId/change-requests/:id/approvers': 'viewer',
  'PUT /api/admin/projects/:projectId/change-requests/:id/approvers': 'editor',
  'POST /api/admin/projects/:projectId/change-requests/:id/comments': 'editor',
  'GET /api/admin/projects/:projectId/change-requests/available-reviewers/:environment': 'viewer',
  'GET /api/admin/user-admin/inactive': 'admin',
  'POST /api/admin/user-admin/inactive/delete': 'admin',
  'GET /api/admin/user-admin/access': 'admin',
  'GET /api/admin/user-admin/admin-count': 'admin',
  'DELETE /api/admin/user-admin/scim-users': 'admin',
  'POST /api/admin/user-admin/reset-password': 'admin',
  'GET /auth/reset/validate': 'public',
  'POST /auth/reset/password': 'public',
  'POST /auth/reset/validate-password': 'public',
  'POST /auth/reset/password-email': 'public',
  'GET /api/admin/invite-link/tokens': 'admin',
  'POST /api/admin/invite-link/tokens': 'admin',
  'GET /api/admin/invite-link/tokens/:token': 'admin',
  'PUT /api/admin/invite-link/tokens/:token': 'admin',
  'GET /invite/:token/validate': 'public',
  'POST /invite/:token/signup': 'public',
  'GET /api/admin/maintenance': 'admin',
  'POST /api/admin/maintenance': 'admin',
  'GET /api/admin/instance-admin/statistics': 'viewer',
  'GET /api/admin/instance-admin/statistics/csv': 'viewer',
  'GET /api/admin/telemetry/settings': 'viewer',
  'GET /api/admin/ui-config': 'viewer',
  'POST /api/admin/ui-config/cors': 'admin',
  'POST /api/admin/record-ui-error': 'self',
  'POST /api/admin/feedback': 'self',
  'PUT /api/admin/feedback/:id': 'self',
  'POST /api/admin/splash/:id': 'self',
  'GET /api/admin/environments/:name': 'viewer',
  'GET /api/admin/environments/project/:projectId': 'viewer',
  'PUT /api/admin/environments/sort-order': 'admin',
  'POST /api/admin/environments/:name/on': 'admin',
  'POST /api/admin/environments/:name/off': 'admin',
  'GET /api/admin/projects/:projectId/overview': 'viewer',
  'GET /api/admin/projects/:projectId/status': 'viewer',
  'GET /api/admin/projects/:projectId/flag-creators': 'viewer',
  'GET /api/admin/projects/:projectId/applications': 'viewer',
  'DELETE /api/admin/projects/:projectId/environments/:environment': 'admin',
  'POST /api/admin/projects/:projectId/environments/:environment/default-strategy': 'admin',
  'GET /api/admin/projects/:projectId/dependencies': 'viewer',
  'GET /api/admin/projects/:projectId/context': 'viewer',
  'POST /api/admin/projects/:projectId/context': 'editor',
  'POST /api/admin/projects/:projectId/context/validate': 'editor',
  'GET /api/admin/projects/:projectId/context/:contextField': 'viewer',
  'PUT /api/admin/projects/:projectId/context/:contextField': 'editor',
  'DELETE /api/admin/projects/:projectId/context/:contextField': 'editor',
  'POST /api/admin/projects/:projectId/context/:contextField/legal-values': 'editor',
  'DELETE /api/admin/projects/:projectId/context/:contextField/legal-values/:legalValue': 'editor',
  'GET /api/admin/projects/:projectId/context/:contextField/strategies': 'viewer',
}

interface Caller {
  label: string
  rootRole: 'Admin' | 'Editor' | 'Viewer'
  /** A Member of this project. */
  member?: string
  /** Through a personal access token instead of the session. */
  pat?: boolean
}

const CALLERS: Caller[] = [
  { label: 'Viewer', rootRole: 'Viewer' },
  { label: 'Editor', rootRole: 'Editor' },
  { label: 'Admin', rootRole: 'Admin' },
  { label: 'Viewer, Member of default', rootRole: 'Viewer', member: 'default' },
  { label: 'Viewer, Member of another project', rootRole: 'Viewer', member: 'other' },
  { label: 'Editor through a personal access token', rootRole: 'Editor', pat: true },
  { label: 'Viewer through a personal access token', rootRole: 'Viewer', pat: true },
]

function allowed (need: Need, caller: Caller, url: string): boolean {
  switch (need) {
    case 'public': case 'viewer': case 'self': return true
    case 'sdk': return false
    case 'admin': return caller.rootRole === 'Admin'
    case 'editor':
      return caller.rootRole !== 'Viewer' || (url.includes(':projectId') && caller.member === 'default')
  }
}

/** A concrete URL: names that exist where the route needs a project, and ids that do not, so that an allowed call changes nothing. */
const concrete = (url: string) =>
  url
    // Taking an environment out of a project: one that does not exist, so that an allowed call changes nothing.
    .replace(/\/environments\/:environment$/, '/environments/no-such-environment')
    .replace(':projectId', 'default')
    .replace(':contextField', 'no-such-field')
    .replace(':legalValue', 'no-such-value')
    .replace(':featureName', 'no-such-feature')
    .replace(':environment', 'development')
    .replace(':tokenName', 'no-such-token')
    .replace(':token', 'no-such-token')
    .replace(':strategyId', 'no-such-strategy')
    .replace(':name', 'no-such-definition')
    .replace(':parent', 'no-such-parent')
    .replace(':key', 'no-such-flag')
    .replace(':linkId', '01ARZ3NDEKTSV4RRFFQ69G5FAV')
    .replace(':deliveryId', '999999')
    .replace(':appName', 'no-such-app')
    .replace(':changeRequestId', '999999')
    .replace(':changeId', '999999')
    .replace(':groupId', '999999')
    .replace(':userId', '999999')
    .replace(':id', '999999')

const t = useTestApp()
let base = ''
beforeAll(async () => {
  base = await listen(t)
  await t.app.inject({ method: 'POST', url: '/api/admin/projects', headers: auth(), payload: { id: 'other', name: 'Other' } })
})

describe('the role table', () => {
  it('has a decision for every documented route, and only for those', async () => {
    const documented = (await documentedRoutes(t.app)).filter((r) => r.method !== 'HEAD').map((r) => `${r.method} ${r.url}`)
    expect(Object.keys(TABLE).sort()).toEqual(documented.sort())
  })

  for (const caller of CALLERS) {
    it(`${caller.label}: every route answers as the table says (refusals exactly 403, changing nothing)`, async () => {
      const person = await signedIn(t, base, caller.rootRole)
      if (caller.member) {
        const res = await t.app.inject({ method: 'PUT', url: `/api/admin/projects/${caller.member}/users/${person.id}/roles`, headers: auth(), payload: { roles: [5] } })
        expect(res.statusCode).toBe(200)
      }
      let headers: Record<string, string> = {}
      let browser: Browser = person.browser
      if (caller.pat) {
        const pat = await (await person.browser.json('POST', '/api/admin/user/tokens', { description: uniqueName('walk'), expiresAt: new Date(Date.now() + 3_600_000).toISOString() })).json() as any
        headers = { authorization: pat.secret }
        browser = new Browser(base)
        // Seen once before the walk, so that its last use is not written during it.
        expect((await browser.fetch('/api/admin/user', { headers })).status).toBe(200)
      }
      const call = (method: string, url: string) =>
        browser.fetch(url, {
          method,
          headers: { ...headers, ...(['POST', 'PUT', 'PATCH'].includes(method) && { 'content-type': 'application/json' }) },
          ...(['POST', 'PUT', 'PATCH'].includes(method) && { body: method === 'PATCH' ? '[]' : '{}' }),
        })
      const routes = (await documentedRoutes(t.app)).filter((r) => r.method !== 'HEAD' && TABLE[`${r.method} ${r.url}`] !== 'public')
      const refused: { method: string; url: string }[] = []
      for (const route of routes) {
        const need = TABLE[`${route.method} ${route.url}`]!
        if (!allowed(need, caller, route.url)) {
          refused.push(route)
          continue
        }
        const res = await call(route.method, concrete(route.url))
        expect([401, 403], `${route.method} ${route.url}: ${res.status}`).not.toContain(res.status)
        await res.arrayBuffer()
      }
      expect(refused.length).toBeGreaterThan(0)
      const before = await databaseFingerprint(t.database.db)
      for (const route of refused) {
        const res = await call(route.method, concrete(route.url))
        const body = await res.json() as any
        expect(res.status, `${route.method} ${route.url}: ${JSON.stringify(body)}`).toBe(403)
        expect(body.name).toBe('PermissionError')
      }
      expect(await databaseFingerprint(t.database.db)).toEqual(before)
    })
  }

  it('a Member writes in their project only, and cannot lift their own role', async () => {
    const member = await signedIn(t, base, 'Viewer')
    await t.app.inject({ method: 'PUT', url: `/api/admin/projects/default/users/${member.id}/roles`, headers: auth(), payload: { roles: [5] } })
    const name = uniqueName('member')
    expect((await member.browser.json('POST', '/api/admin/projects/default/features', { name })).status).toBe(201)
    expect((await member.browser.json('POST', `/api/admin/projects/default/features/${name}/environments/development/on`)).status).toBe(200)
    expect((await member.browser.json('POST', '/api/admin/projects/other/features', { name: uniqueName('elsewhere') })).status).toBe(403)
    // The project in the path is the one checked: naming a feature of another project through it finds nothing.
    const foreign = uniqueName('foreign')
    await t.app.inject({ method: 'POST', url: '/api/admin/projects/other/features', headers: auth(), payload: { name: foreign } })
    expect((await member.browser.json('POST', `/api/admin/projects/default/features/${foreign}/environments/development/on`)).status).toBe(404)
    expect((await member.browser.json('POST', `/api/admin/projects/other/features/${foreign}/environments/development/on`)).status).toBe(403)
    // No escalation: not their own roles, not their root role, not another project's roles.
    expect((await member.browser.json('PUT', `/api/admin/projects/other/users/${member.id}/roles`, { roles: [5] })).status).toBe(403)
    expect((await member.browser.json('PUT', `/api/admin/user-admin/${member.id}`, { rootRole: 'Admin' })).status).toBe(403)
    expect((await member.browser.json('POST', '/api/admin/user-admin', { username: uniqueName('sock'), rootRole: 'Admin', password: 'a-sock-puppet-1' })).status).toBe(403)
    const stored = await t.database.db.selectFrom('users').select('root_role').where('id', '=', member.id).executeTakeFirstOrThrow()
    expect(stored.root_role).toBe('Viewer')
  })

  it('an Editor cannot make themselves Admin, nor mint an API token; losing a role holds from the next request', async () => {
    const editor = await signedIn(t, base, 'Editor')
    expect((await editor.browser.json('PUT', `/api/admin/user-admin/${editor.id}`, { rootRole: 1 })).status).toBe(403)
    expect((await editor.browser.json('POST', '/api/admin/api-tokens', { tokenName: uniqueName('t') })).status).toBe(403)
    expect((await editor.browser.json('POST', '/api/admin/projects/default/features', { name: uniqueName('ok') })).status).toBe(201)
    await t.app.inject({ method: 'PUT', url: `/api/admin/user-admin/${editor.id}`, headers: auth(), payload: { rootRole: 'Viewer' } })
    const refused = await editor.browser.json('POST', '/api/admin/projects/default/features', { name: uniqueName('late') })
    expect(refused.status).toBe(403)
  })

  it('a person on the client or frontend API is refused with 403; an admin token keeps working as before', async () => {
    const admin = await signedIn(t, base, 'Admin')
    expect((await admin.browser.fetch('/api/client/features')).status).toBe(403)
    expect((await admin.browser.fetch('/api/client/streaming')).status).toBe(403)
    expect((await admin.browser.fetch('/api/client/delta')).status).toBe(403)
    expect((await admin.browser.json('POST', '/api/frontend', {})).status).toBe(403)
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/user-admin', headers: auth() })
    expect(res.statusCode).toBe(200)
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/admin/user', headers: auth() }), 403, 'PermissionError')
  })
})
