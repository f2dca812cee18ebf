/**
 * The sign-in settings, in Unleash Enterprise's shapes: OpenID Connect (defaults before a save,
 * only the fields sent change, a write-only secret, a provider checked before anything is
 * saved, OIDC_* variables that fix fields), password login off with its break-glass, UNLEASH_URL
 * as the callback's address, and the events of each change.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auth, buildTestApp, expectProblem, json, type TestApp, useTestApp } from '../../helpers/app.js'
import { CookieBrowser, startForgingProvider } from '../../helpers/oidc.js'
import { Browser, createUser, listen, PASSWORD } from '../../helpers/people.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp()
let idp: Awaited<ReturnType<typeof startForgingProvider>>
beforeAll(async () => {
  idp = await startForgingProvider()
})
afterAll(() => idp?.close())

const URL_ = '/api/admin/auth/oidc/settings'
const get = () => t.app.inject({ method: 'GET', url: URL_, headers: auth() })
const post = (payload: object, app = t.app) => app.inject({ method: 'POST', url: URL_, headers: auth(), payload })
const working = () => ({ enabled: true, discoverUrl: idp.discoverUrl, clientId: idp.clientId, secret: idp.clientSecret })

async function settingEvents () {
  const rows = await t.database.db.selectFrom('events').select(['type', 'data', 'pre_data', 'created_by']).where('type', 'in', ['setting-created', 'setting-updated']).orderBy('id').execute()
  return rows.map((r) => ({ type: r.type, createdBy: r.created_by, data: JSON.parse(r.data!), preData: r.pre_data === null ? null : JSON.parse(r.pre_data) }))
}

/** A server answering every request with this status, type and body. */
async function answering (status: number, type: string, body: string) {
  const server = createServer((_req, res) => { res.writeHead(status, { 'content-type': type }); res.end(body) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/openid-configuration`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

describe('the OpenID Connect settings', () => {
  it('answer the defaults before anything is saved', async () => {
    const res = await get()
    expect(res.statusCode).toBe(200)
    expect(json(res)).toEqual({
      enabled: false,
      discoverUrl: '',
      clientId: '',
      autoCreate: false,
      defaultRootRole: 'Viewer',
      defaultRootRoleId: 3,
      emailDomains: '',
      enableSingleSignOut: false,
      enableGroupSyncing: false,
      groupJsonPath: '',
      addGroupsScope: false,
      idTokenSigningAlgorithm: 'RS256',
      acrValues: '',
      enablePkce: false,
      lockedBy: {},
    })
  })

  it('a save sets the fields sent; the secret is write-only, masked, and kept when absent or masked; events never hold it', async () => {
    const saved = await post({ ...working(), autoCreate: true, defaultRootRoleId: 2, emailDomains: 'example.com' })
    expect(saved.statusCode, saved.body).toBe(200)
    expect(json(saved)).toMatchObject({ enabled: true, clientId: idp.clientId, secret: '********', autoCreate: true, defaultRootRole: 'Editor', defaultRootRoleId: 2 })
    expect(saved.body).not.toContain(idp.clientSecret)
    expect(json(await get())).toEqual(json(saved))
    // Only autoCreate changes; the mask keeps the secret, as does a save without one.
    expect(json(await post({ autoCreate: false, secret: '********' }))).toMatchObject({ autoCreate: false, secret: '********', clientId: idp.clientId, emailDomains: 'example.com' })
    const stored = await t.database.db.selectFrom('auth_settings').select('value').where('name', '=', 'unleash.enterprise.auth.oidc').executeTakeFirstOrThrow()
    expect((stored.value as any).secret).toBe(idp.clientSecret)
    // The same values again change nothing and record nothing.
    const events = await settingEvents()
    expect((await post({ autoCreate: false })).statusCode).toBe(200)
    expect(await settingEvents()).toEqual(events)
    expect(events.map((e) => e.type)).toEqual(['setting-created', 'setting-updated'])
    expect(events[0]).toMatchObject({ createdBy: expect.any(String), data: { id: 'unleash.enterprise.auth.oidc', enabled: true, secret: '********', autoCreate: true } })
    expect(events[1]).toMatchObject({ data: { autoCreate: false }, preData: { autoCreate: true } })
    expect(JSON.stringify(events)).not.toContain(idp.clientSecret)
    // A new secret is taken, and still never shown.
    expect((await post({ secret: 'another-secret-value' })).body).not.toContain('another-secret-value')
    expect(JSON.stringify(await settingEvents())).not.toContain('another-secret-value')
    await post({ secret: idp.clientSecret })
  })

  it('refuses what the provider cannot do, naming the problem, and saves nothing', async () => {
    const before = await databaseFingerprint(t.database.db)
    const refuse = async (payload: object, detail: string | RegExp) => {
      const body = expectProblem(await post(payload), 400, 'BadDataError')
      expect(body.detail).toMatch(detail)
    }
    const closed = await answering(200, 'application/json', '{}')
    await closed.close()
    await refuse({ discoverUrl: closed.url }, `discoverUrl ${closed.url} could not be reached (no answer)`)
    const html = await answering(200, 'text/html', '<html>login</html>')
    await refuse({ discoverUrl: html.url }, `discoverUrl ${html.url} did not answer JSON`)
    await html.close()
    const missing = await answering(404, 'application/json', '{"error":"not found"}')
    await refuse({ discoverUrl: missing.url }, 'answered HTTP 404 instead of 200')
    await missing.close()
    const array = await answering(200, 'application/json', '[]')
    await refuse({ discoverUrl: array.url }, 'did not answer a JSON object')
    await array.close()
    idp.state.metadata = { token_endpoint: idp.base.replace('http:', 'https:') + '/token' }
    await refuse({}, /lists token_endpoint on https, another scheme than the discovery URL's http/)
    idp.state.metadata = { jwks_uri: undefined }
    await refuse({}, 'lists no jwks_uri')
    idp.state.metadata = {}
    await refuse({ idTokenSigningAlgorithm: 'PS512' }, 'does not sign ID tokens with PS512 (it lists RS256, RS384, ES256)')
    idp.state.metadata = { code_challenge_methods_supported: ['plain'] }
    await refuse({ enablePkce: true }, 'does not support PKCE S256')
    idp.state.metadata = { end_session_endpoint: undefined }
    await refuse({ enableSingleSignOut: true }, /lists no end_session_endpoint, so single sign-out is impossible/)
    idp.state.metadata = { token_endpoint_auth_methods_supported: ['private_key_jwt'] }
    await refuse({}, 'supports neither client_secret_basic nor client_secret_post')
    idp.state.metadata = {}
    await refuse({ discoverUrl: 'ftp://idp.example.com/x' }, 'discoverUrl must be an http:// or https:// URL')
    await refuse({ emailDomains: 'example.com, not a domain' }, 'emailDomains holds what is not a domain: not a domain')
    await refuse({ enableGroupSyncing: true }, /groupJsonPath is required with enableGroupSyncing/)
    await refuse({ groupJsonPath: 'a..b' }, /groupJsonPath cannot be read/)
    await refuse({ clientId: '' }, 'clientId is required to enable OpenID Connect')
    expectProblem(await post({ idTokenSigningAlgorithm: 'HS256' }), 400, 'BadDataError')
    expectProblem(await post({ idTokenSigningAlgorithm: 'none' }), 400, 'BadDataError')
    expectProblem(await post({ unknown: true }), 400, 'BadDataError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('turned off, it is saved without asking the provider', async () => {
    const off = await post({ enabled: false, discoverUrl: 'https://idp.invalid/.well-known/openid-configuration' })
    expect(off.statusCode).toBe(200)
    expect(json(off)).toMatchObject({ enabled: false, discoverUrl: 'https://idp.invalid/.well-known/openid-configuration' })
    expect((await post(working())).statusCode).toBe(200)
  })
})

describe('settings the environment fixes', () => {
  let fixed: TestApp
  afterAll(() => fixed?.close())

  it('are shown, may be sent back as they are, and any other value is a 409 naming the variable', async () => {
    fixed = await buildTestApp({ OIDC_CLIENT_ID: 'from-the-environment', OIDC_ENABLE_PKCE: 'true', OIDC_CLIENT_SECRET: 'env-secret-value' })
    const shown = json(await fixed.app.inject({ method: 'GET', url: URL_, headers: auth() }))
    expect(shown).toMatchObject({ clientId: 'from-the-environment', enablePkce: true, secret: '********', lockedBy: { clientId: 'OIDC_CLIENT_ID', enablePkce: 'OIDC_ENABLE_PKCE', secret: 'OIDC_CLIENT_SECRET' } })
    const before = await databaseFingerprint(fixed.database.db)
    const locked = expectProblem(await post({ clientId: 'other', autoCreate: true }, fixed.app), 409, 'SettingLockedError')
    expect(locked.detail).toBe('clientId is set by the environment variable OIDC_CLIENT_ID and cannot be changed through the API')
    expect(expectProblem(await post({ secret: 'a-new-secret' }, fixed.app), 409, 'SettingLockedError').detail).toMatch(/OIDC_CLIENT_SECRET/)
    expect(expectProblem(await post({ enablePkce: false }, fixed.app), 409, 'SettingLockedError').detail).toMatch(/OIDC_ENABLE_PKCE/)
    expect(await databaseFingerprint(fixed.database.db)).toEqual(before)
    // Unleash's form sends every field back: the fixed ones as shown pass, and are not stored.
    const saved = await post({ ...shown, lockedBy: undefined, defaultRootRoleId: undefined, autoCreate: true }, fixed.app)
    expect(saved.statusCode, saved.body).toBe(200)
    const stored = await fixed.database.db.selectFrom('auth_settings').select('value').executeTakeFirstOrThrow()
    expect(stored.value).not.toHaveProperty('clientId')
    expect(JSON.stringify(stored.value)).not.toContain('env-secret-value')
  })

  it('a bad value stops the start, naming the variable', async () => {
    await expect(buildTestApp({ OIDC_GROUP_JSON_PATH: '$..groups' })).rejects.toThrowError(/OIDC_GROUP_JSON_PATH: groupJsonPath \(from OIDC_GROUP_JSON_PATH\) cannot be read/)
  })
})

describe('password login turned off', () => {
  let app: TestApp
  let base = ''
  beforeAll(async () => {
    app = await buildTestApp({ UNLEASH_DEFAULT_ADMIN_USERNAME: 'breakglass', UNLEASH_DEFAULT_ADMIN_PASSWORD: 'the-break-glass-password-1' })
    base = await listen(app)
  })
  afterAll(() => app?.close())
  const simple = (payload?: object) => app.app.inject({ method: payload ? 'POST' : 'GET', url: '/api/admin/auth/simple/settings', headers: auth(), ...(payload && { payload }) })

  it('only while single sign-on is on; then everyone but the break-glass admin gets 422, whatever the password; the 401 hides the password form', async () => {
    expect(json(await simple())).toEqual({ disabled: false })
    const before = await databaseFingerprint(app.database.db)
    expect(expectProblem(await simple({ disabled: true }), 400, 'BadDataError').detail).toMatch(/only while OpenID Connect sign-in is on/)
    expectProblem(await simple({}), 400, 'BadDataError')
    expect(await databaseFingerprint(app.database.db)).toEqual(before)

    expect((await post(working(), app.app)).statusCode).toBe(200)
    const off = await simple({ disabled: true })
    expect(off.statusCode).toBe(200)
    expect(json(off)).toEqual({ disabled: true })
    const events = await app.database.db.selectFrom('events').select(['type', 'data']).where('type', 'in', ['setting-created', 'setting-updated']).orderBy('id').execute()
    expect(events.map((e) => [e.type, JSON.parse(e.data!).id])).toEqual([['setting-created', 'unleash.enterprise.auth.oidc'], ['setting-created', 'unleash.auth.simple']])

    const person = await createUser(app, 'Editor')
    const breakGlass = await app.app.inject({ method: 'POST', url: '/api/admin/user-admin', headers: auth(), payload: { username: 'breakglass', rootRole: 'Admin', password: 'the-break-glass-password-1' } })
    expect(breakGlass.statusCode).toBe(201)
    for (const password of [PASSWORD, 'a-wrong-password-123']) {
      const res = await new Browser(base).login(person.login, password)
      expect(res.status).toBe(422)
      expect(await res.json()).toMatchObject({ name: 'DisabledError', detail: 'Logging in with username/password has been disabled; sign in with single sign-on' })
    }
    expect((await new Browser(base).login('breakglass', 'a-wrong-password-123')).status).toBe(422)
    const admin = new Browser(base)
    expect((await admin.login('breakglass', 'the-break-glass-password-1')).status).toBe(200)
    expect((await admin.fetch('/api/admin/user')).status).toBe(200)

    const unauthenticated = json(await app.app.inject({ method: 'GET', url: '/api/admin/user' }))
    expect(unauthenticated).toMatchObject({ type: 'password', path: '/auth/simple/login', defaultHidden: true, options: [{ type: 'oidc', path: '/auth/oidc/login' }] })

    // Single sign-on turned off brings password login back.
    expect((await post({ enabled: false }, app.app)).statusCode).toBe(200)
    expect((await new Browser(base).login(person.login)).status).toBe(200)
    const plain = json(await app.app.inject({ method: 'GET', url: '/api/admin/user' }))
    expect(plain).toMatchObject({ defaultHidden: false })
    expect(plain).not.toHaveProperty('options')
    expect((await post({ enabled: true }, app.app)).statusCode).toBe(200)
    expect((await new Browser(base).login(person.login)).status).toBe(422)
    expect(json(await simple({ disabled: false }))).toEqual({ disabled: false })
    expect((await new Browser(base).login(person.login)).status).toBe(200)
  })
})

describe('UNLEASH_URL', () => {
  let app: TestApp
  afterAll(() => app?.close())

  it('is the callback\'s address exactly (redirect_uri, and post_logout_redirect_uri after single sign-out); openid email only, no PKCE unless asked, acr_values as set', async () => {
    app = await buildTestApp({ UNLEASH_URL: 'https://flags.example.com/' })
    const base = await listen(app)
    expect((await post({ ...working(), autoCreate: true, enableSingleSignOut: true, acrValues: 'urn:mace:incommon:iap:silver phr' }, app.app)).statusCode).toBe(200)
    const browser = new CookieBrowser()
    const start = await browser.request(`${base}/auth/oidc/login`)
    const to = new URL(start.headers.get('location')!)
    expect(Object.fromEntries(to.searchParams)).toMatchObject({ redirect_uri: 'https://flags.example.com/auth/oidc/callback', scope: 'openid email', acr_values: 'urn:mace:incommon:iap:silver phr' })
    expect(to.searchParams.has('code_challenge')).toBe(false)
    // The provider sends the browser to UNLEASH_URL; this test is its proxy to the server.
    const atProvider = await fetch(to, { redirect: 'manual' })
    const back = new URL(atProvider.headers.get('location')!)
    expect(`${back.origin}${back.pathname}`).toBe('https://flags.example.com/auth/oidc/callback')
    const signedIn = await browser.request(`${base}${back.pathname}${back.search}`)
    expect(signedIn.status, await signedIn.clone().text()).toBe(302)
    const out = await browser.request(`${base}/logout`, { method: 'POST' })
    expect(out.status).toBe(303)
    expect(new URL(out.headers.get('location')!).searchParams.get('post_logout_redirect_uri')).toBe('https://flags.example.com/signed-out')
  })
})
