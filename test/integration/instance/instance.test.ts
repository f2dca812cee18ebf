/**
 * The instance: maintenance mode (every write refused with 503, reads, SDKs and signing in
 * served), ui-config as admin clients read it, the frontend API's origins set at run time,
 * statistics and telemetry, and the admin UI's feedback, splash screens and error reports.
 */
import { createHash } from 'node:crypto'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { auth, buildTestApp, createFeature, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { Browser, createUser, listen, PASSWORD, signedIn } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp()
const { admin, as, clientToken, frontendToken } = requests(t)
let base = ''
beforeAll(async () => {
  base = await listen(t)
})

const maintenance = (enabled: boolean) => admin.post('/api/admin/maintenance', { enabled })
/** The stored state, once the SDK usage earlier tests reported (written in the background) is written. */
const settled = async () => {
  await t.app.usage.flush()
  return databaseFingerprint(t.database.db)
}
const newestEvent = async () => t.database.db.selectFrom('events').select(['id', 'type', 'data', 'pre_data']).orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()

describe('maintenance mode', () => {
  afterEach(async () => {
    expect((await maintenance(false)).statusCode).toBe(204)
  })

  it('is switched by an Admin (setting-created, then setting-updated; the same value again records nothing) and ui-config says so', async () => {
    expect(json(await admin.get('/api/admin/maintenance'))).toEqual({ enabled: false })
    const on = await maintenance(true)
    expect(on.statusCode).toBe(204)
    expect(on.body).toBe('')
    const created = await newestEvent()
    expect(created.type).toBe('setting-created')
    expect(JSON.parse(created.data!)).toEqual({ id: 'maintenance.mode', enabled: true })
    expect(json(await admin.get('/api/admin/maintenance'))).toEqual({ enabled: true })
    expect(json(await admin.get('/api/admin/ui-config')).maintenanceMode).toBe(true)
    expect((await maintenance(true)).statusCode).toBe(204)
    expect((await newestEvent()).id).toBe(created.id)
    expect((await maintenance(false)).statusCode).toBe(204)
    const updated = await newestEvent()
    expect(updated.type).toBe('setting-updated')
    expect(JSON.parse(updated.pre_data!)).toEqual({ id: 'maintenance.mode', enabled: true })
    expect(json(await admin.get('/api/admin/ui-config')).maintenanceMode).toBe(false)
  })

  it('refuses every write with 503 MaintenanceModeError, changing nothing, from a token or a session', async () => {
    const feature = await createFeature(t.app)
    const editor = await signedIn(t, base, 'Editor')
    const viewer = await signedIn(t, base, 'Viewer')
    expect((await maintenance(true)).statusCode).toBe(204)
    const before = await settled()
    const url = `/api/admin/projects/default/features/${feature}`
    for (const res of [
      await admin.post('/api/admin/projects/default/features', { name: uniqueName('blocked') }),
      await admin.put(url, { description: 'changed' }),
      await admin.patch(`${url}/environments/development/variants`, [{ op: 'add', path: '/0', value: { name: 'v', weight: 1000, weightType: 'variable', stickiness: 'default' } }]),
      await admin.delete(url),
      await admin.post(`${url}/environments/development/on`),
      await admin.post('/api/admin/user-admin', { username: uniqueName('u'), rootRole: 'Viewer', password: PASSWORD }),
      await admin.post('/api/admin/invite-link/tokens', { name: 'x', expiresAt: new Date(Date.now() + 60_000).toISOString() }),
      await admin.post('/api/admin/ui-config/cors', { frontendApiOrigins: ['*'] }),
    ]) {
      const problem = expectProblem(res, 503, 'MaintenanceModeError')
      expect(problem.message).toContain('Maintenance mode is on')
    }
    const fromSession = await editor.browser.json('POST', '/api/admin/projects/default/features', { name: uniqueName('blocked') })
    expect(fromSession.status).toBe(503)
    expect(((await fromSession.json()) as { name: string }).name).toBe('MaintenanceModeError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    // Without credentials it stays 401; a path that does not exist stays 404, a method it lacks 405; a Viewer may not switch it off (403).
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/admin/projects/default/features', payload: { name: 'x' } }), 401, 'AuthenticationRequired')
    expect((await admin.post('/api/admin/no-such-route', {})).statusCode).toBe(404)
    expect((await admin.send('PATCH', '/api/client/features', [])).statusCode).toBe(405)
    expect((await viewer.browser.json('POST', '/api/admin/maintenance', { enabled: false })).status).toBe(403)
    expect(json(await admin.get('/api/admin/maintenance'))).toEqual({ enabled: true })
  })

  it('serves reads, signing in and out, validations, the SDK APIs and the switch itself', async () => {
    const feature = await createFeature(t.app)
    const client = await clientToken()
    const frontend = await frontendToken()
    const person = await createUser(t, 'Editor')
    expect((await maintenance(true)).statusCode).toBe(204)
    expect((await admin.get(`/api/admin/projects/default/features/${feature}`)).statusCode).toBe(200)
    expect((await admin.get('/api/admin/user-admin')).statusCode).toBe(200)
    const browser = new Browser(base)
    expect((await browser.login(person.login, PASSWORD)).status).toBe(200)
    expect((await browser.fetch('/api/admin/user')).status).toBe(200)
    expect((await browser.json('POST', '/api/admin/user-admin/validate-password', { password: 'a-long-enough-password-7' })).status).toBe(200)
    expect((await browser.fetch('/logout', { method: 'POST' })).status).toBeLessThan(400)
    expect((await admin.post('/api/admin/features-batch/export', { features: [feature], environment: 'development' })).statusCode).toBe(200)
    const polled = await as(client).get('/api/client/features')
    expect(polled.statusCode).toBe(200)
    expect(json(polled).features.map((f: { name: string }) => f.name)).toContain(feature)
    expect((await as(client).post('/api/client/register', { appName: 'maint', instanceId: 'i', strategies: [], started: new Date().toISOString(), interval: 1000 })).statusCode).toBe(202)
    expect((await as(frontend).post('/api/frontend', { context: { userId: '1' } })).statusCode).toBe(200)
    // Off again: writes work.
    expect((await maintenance(false)).statusCode).toBe(204)
    expect((await admin.put(`/api/admin/projects/default/features/${feature}`, { description: 'after' })).statusCode).toBe(200)
  })

  it('refuses a body that is not {enabled: boolean} (400, nothing changed)', async () => {
    const before = await settled()
    expectProblem(await admin.post('/api/admin/maintenance', {}), 400, 'BadDataError')
    expectProblem(await admin.post('/api/admin/maintenance', { enabled: true, extra: 1 }), 400, 'BadDataError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('ui-config', () => {
  it('is honest about this server: open source, its version, how people sign in, flags and every resource limit', async () => {
    const res = await admin.get('/api/admin/ui-config')
    expect(res.statusCode).toBe(200)
    const config = json(res)
    expect(config).toMatchObject({
      environment: 'Open Source',
      authenticationType: 'open-source',
      emailEnabled: false,
      disablePasswordAuth: false,
      maintenanceMode: false,
      frontendApiOrigins: ['*'],
      versionInfo: { current: { oss: config.version, enterprise: '' }, isLatest: true },
    })
    expect(config.versionInfo.instanceId).toMatch(/.+/)
    expect(config.flags.enableLegacyVariants).toBe(true)
    expect(config.flags.maintenanceMode).toBe(false)
    const limits = config.resourceLimits
    for (const key of ['segmentValues', 'strategySegments', 'actionSetActions', 'actionSetsPerProject', 'actionSetFilters', 'actionSetFilterValues', 'signalEndpoints', 'signalTokensPerEndpoint', 'featureEnvironmentStrategies', 'constraintValues', 'constraints', 'environments', 'projects', 'apiTokens', 'segments', 'featureFlags', 'releaseTemplates']) {
      expect(Number.isInteger(limits[key]), key).toBe(true)
    }
    expect(limits.constraintValues).toBe(t.config.strategyLimits.maxConstraintValues)
  })

  it('a person reads it too, with their userId in unleashContext; without credentials 401', async () => {
    const viewer = await signedIn(t, base, 'Viewer')
    const res = await viewer.browser.fetch('/api/admin/ui-config')
    expect(res.status).toBe(200)
    expect(((await res.json()) as { unleashContext: object }).unleashContext).toEqual({ userId: viewer.id })
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/admin/ui-config' }), 401, 'AuthenticationRequired')
  })
})

describe("the frontend API's origins, set by an Admin", () => {
  it('hold at once for the frontend API, ui-config answers them; recorded; back to any origin', async () => {
    const frontend = await frontendToken()
    const allowed = 'https://app.example.com'
    expect((await admin.post('/api/admin/ui-config/cors', { frontendApiOrigins: [allowed, allowed] })).statusCode).toBe(204)
    const event = await newestEvent()
    expect(['setting-created', 'setting-updated']).toContain(event.type)
    expect(JSON.parse(event.data!)).toEqual({ id: 'unleash.frontend', frontendApiOrigins: [allowed] })
    expect(json(await admin.get('/api/admin/ui-config')).frontendApiOrigins).toEqual([allowed])
    const from = (origin: string) => as(frontend).get('/api/frontend', { origin })
    expect((await from(allowed)).headers['access-control-allow-origin']).toBe(allowed)
    expect((await from('https://elsewhere.example.com')).headers['access-control-allow-origin']).toBeUndefined()
    expect((await admin.post('/api/admin/ui-config/cors', { frontendApiOrigins: ['*'] })).statusCode).toBe(204)
    expect((await from('https://elsewhere.example.com')).headers['access-control-allow-origin']).toBe('*')
  })

  it('refuses what is not an origin (400 naming each), too many, an Editor (403): nothing changed', async () => {
    const editor = await signedIn(t, base, 'Editor')
    const before = await settled()
    const bad = expectProblem(await admin.post('/api/admin/ui-config/cors', { frontendApiOrigins: ['https://ok.example.com', 'https://app.example.com/path', 'https://*.example.com'] }), 400, 'BadDataError')
    expect(bad.details.map((d: { path: string }) => d.path)).toEqual(['/body/frontendApiOrigins/1', '/body/frontendApiOrigins/2'])
    expectProblem(await admin.post('/api/admin/ui-config/cors', { frontendApiOrigins: Array.from({ length: 101 }, (_, i) => `https://a${i}.example.com`) }), 400, 'BadDataError')
    expectProblem(await admin.post('/api/admin/ui-config/cors', {}), 400, 'BadDataError')
    expect((await editor.browser.json('POST', '/api/admin/ui-config/cors', { frontendApiOrigins: [] })).status).toBe(403)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('FRONTEND_ALLOWED_ORIGINS fixes them: 409, nothing changed', async () => {
    const fixed = await buildTestApp({ FRONTEND_ALLOWED_ORIGINS: 'https://fixed.example.com' })
    try {
      const before = await databaseFingerprint(fixed.database.db)
      const res = await fixed.app.inject({ method: 'POST', url: '/api/admin/ui-config/cors', headers: auth(), payload: { frontendApiOrigins: ['*'] } })
      expect(res.statusCode).toBe(409)
      expect(json(res).message).toContain('FRONTEND_ALLOWED_ORIGINS')
      expect(await databaseFingerprint(fixed.database.db)).toEqual(before)
      expect(json(await fixed.app.inject({ method: 'GET', url: '/api/admin/ui-config', headers: auth() })).frontendApiOrigins).toEqual(['https://fixed.example.com'])
    } finally {
      await fixed.close()
    }
  })
})

describe('statistics and telemetry', () => {
  it("counts what is stored, in Unleash's shape, signed with Unleash's sum", async () => {
    await createFeature(t.app)
    const res = await admin.get('/api/admin/instance-admin/statistics')
    expect(res.statusCode).toBe(200)
    const stats = json(res)
    const count = async (table: 'users' | 'projects' | 'environments' | 'segments' | 'groups') =>
      Number((await t.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
    expect(stats.users).toBe(await count('users'))
    expect(stats.projects).toBe(await count('projects'))
    expect(stats.environments).toBe(await count('environments'))
    expect(stats.segments).toBe(await count('segments'))
    expect(stats.groups).toBe(await count('groups'))
    const features = Number((await t.database.db.selectFrom('features').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
    expect(stats.featureToggles).toBeGreaterThan(0)
    expect(stats.featureToggles).toBeLessThanOrEqual(features)
    expect(stats).toMatchObject({ SAMLenabled: false, OIDCenabled: false, versionEnterprise: '', releasePlans: 0 })
    const sum = createHash('sha256').update(`${stats.instanceId}${stats.users}${stats.featureToggles}${stats.projects}${stats.roles}${stats.groups}${stats.environments}${stats.segments}`).digest('hex')
    expect(stats.sum).toBe(sum)
  })

  it('as CSV: an attachment with a header row and a row of values; telemetry: nothing collected', async () => {
    const res = await admin.get('/api/admin/instance-admin/statistics/csv')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/csv/)
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="unleash-.+-\d+\.csv"$/)
    const lines = res.body.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toContain('"instanceId"')
    expect(json(await admin.get('/api/admin/telemetry/settings'))).toEqual({ versionInfoCollectionEnabled: false, featureInfoCollectionEnabled: false })
  })
})

describe("the admin UI's feedback, splash screens and error reports", () => {
  it('feedback and splash screens are kept for the person and read back in /api/admin/user', async () => {
    const person = await signedIn(t, base, 'Viewer')
    const feedbackId = uniqueName('prompt')
    const given = await person.browser.json('POST', '/api/admin/feedback', { feedbackId })
    expect(given.status).toBe(200)
    expect(await given.json()).toEqual({ userId: person.id, feedbackId, given: expect.any(String), neverShow: false })
    const event = await newestEvent()
    expect(event.type).toBe('user-preference-updated')
    const updated = await person.browser.json('PUT', `/api/admin/feedback/${feedbackId}`, { neverShow: true, userId: 1 })
    expect(updated.status).toBe(200)
    expect(await updated.json()).toMatchObject({ userId: person.id, feedbackId, neverShow: true })
    const splashId = uniqueName('splash')
    expect((await person.browser.json('POST', `/api/admin/splash/${splashId}`)).status).toBe(200)
    const seen = await newestEvent()
    expect((await person.browser.json('POST', `/api/admin/splash/${splashId}`)).status).toBe(200)
    expect((await newestEvent()).id).toBe(seen.id)
    const me = (await (await person.browser.fetch('/api/admin/user')).json()) as { feedback: object[]; splash: object }
    expect(me.feedback).toEqual([{ userId: person.id, feedbackId, given: expect.any(String), neverShow: true }])
    expect(me.splash).toEqual({ [splashId]: true })
  })

  it('an API token is not a person (403); a bad body is 400; nothing changed', async () => {
    const person = await signedIn(t, base, 'Viewer')
    const before = await settled()
    expectProblem(await admin.post('/api/admin/feedback', { feedbackId: 'x' }), 403, 'PermissionError')
    expectProblem(await admin.post('/api/admin/splash/x'), 403, 'PermissionError')
    expectProblem(await admin.post('/api/admin/record-ui-error', { errorMessage: 'x' }), 403, 'PermissionError')
    expect((await person.browser.json('POST', '/api/admin/feedback', { feedbackId: '' })).status).toBe(400)
    expect((await person.browser.json('PUT', '/api/admin/feedback/x', { given: 'yesterday' })).status).toBe(400)
    expect((await person.browser.json('POST', '/api/admin/record-ui-error', { stack: 'x' })).status).toBe(400)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it("the UI's error report is answered 204 and kept nowhere", async () => {
    const person = await signedIn(t, base, 'Viewer')
    const before = await settled()
    const res = await person.browser.json('POST', '/api/admin/record-ui-error', { errorMessage: 'TypeError: x is undefined', errorStack: 'at y' })
    expect(res.status).toBe(204)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})
