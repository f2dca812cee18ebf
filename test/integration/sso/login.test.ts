/**
 * Signing in with OpenID Connect against oidc-provider (OpenID Certified), on loopback, as a
 * browser does it: the login, the provider's form, the redirect back, the session; group
 * syncing; single sign-out; and the refusals a browser can provoke (a replayed callback or
 * code, a callback in another browser, an open redirect).
 */
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auth, json, useTestApp } from '../../helpers/app.js'
import { type Account, CLIENT_ID, CLIENT_SECRET, CookieBrowser, startOidcProvider, toCallback } from '../../helpers/oidc.js'
import { Browser, createUser, listen } from '../../helpers/people.js'

const t = useTestApp()
let base = ''
let host = '127.0.0.1'
let idp: Awaited<ReturnType<typeof startOidcProvider>>
const accounts = new Map<string, Account>()

const settings = (payload: object) => t.app.inject({ method: 'POST', url: '/api/admin/auth/oidc/settings', headers: auth(), payload })

beforeAll(async () => {
  base = await listen(t)
  host = new URL(base).hostname
  idp = await startOidcProvider({ redirectUri: `${base}/auth/oidc/callback`, postLogoutRedirectUri: `${base}/signed-out`, accounts })
  const res = await settings({
    enabled: true,
    discoverUrl: idp.discoverUrl,
    clientId: CLIENT_ID,
    secret: CLIENT_SECRET,
    autoCreate: true,
    defaultRootRole: 'Viewer',
    enablePkce: true,
    addGroupsScope: true,
    enableGroupSyncing: true,
    groupJsonPath: 'groups',
    enableSingleSignOut: true,
  })
  expect(res.statusCode, res.body).toBe(200)
})
afterAll(() => idp?.close())

const db = () => t.database.db
const count = async (table: 'sessions' | 'users' | 'events' | 'oidc_logins') =>
  Number((await db().selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n)
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** Who the browser's session is, through the admin API. */
async function me (browser: CookieBrowser) {
  const res = await browser.request(`${base}/api/admin/user`, { headers: { 'sec-fetch-site': 'same-origin' } })
  return { status: res.status, body: await res.json() as any }
}

/** A full sign-in of `account`; returns the browser and the callback's answer. */
async function signIn (account: string, redirect?: string) {
  const browser = new CookieBrowser()
  const callback = await toCallback(browser, base, account, redirect)
  const res = await browser.request(callback, { headers: { 'sec-fetch-site': 'cross-site' } })
  return { browser, callback, res }
}

describe('signing in', () => {
  it('goes to the provider with state, nonce, PKCE S256, openid email groups and the exact redirect_uri, and binds the login to the browser', async () => {
    const browser = new CookieBrowser()
    const res = await browser.request(`${base}/auth/oidc/login?redirect=${encodeURIComponent('/projects/default')}`)
    expect(res.status).toBe(302)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const to = new URL(res.headers.get('location')!)
    expect(`${to.origin}${to.pathname}`).toBe(`${idp.issuer}/auth`)
    const query = Object.fromEntries(to.searchParams)
    expect(query).toMatchObject({ response_type: 'code', client_id: CLIENT_ID, redirect_uri: `${base}/auth/oidc/callback`, scope: 'openid email groups', code_challenge_method: 'S256' })
    expect(query.state).toMatch(/^[\w-]{40,}$/)
    expect(query.nonce).toMatch(/^[\w-]{40,}$/)
    expect(query.code_challenge).toMatch(/^[\w-]{43}$/)
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('unleash-oidc-login='))!
    expect(cookie).toMatch(/^unleash-oidc-login=[\w-]{43}; Max-Age=600; Path=\/auth\/oidc; HttpOnly; SameSite=Lax$/)
    // Only the hash of the browser's value is kept, beside state, nonce and the verifier.
    const value = browser.cookie(host, 'unleash-oidc-login')!
    const stored = await db().selectFrom('oidc_logins').selectAll().where('state', '=', query.state!).executeTakeFirstOrThrow()
    expect(stored.binding_hash).toBe(sha256(value))
    expect(stored).toMatchObject({ nonce: query.nonce, redirect: '/projects/default' })
    expect(createHash('sha256').update(stored.code_verifier!).digest('base64url')).toBe(query.code_challenge)
    expect(JSON.stringify(await db().selectFrom('oidc_logins').selectAll().execute())).not.toContain(value)
  })

  it('a person signs in at the provider, is created with the default role, and lands where they asked with a new session', async () => {
    // Only openid and email are asked for: the name (a profile claim) does not come.
    accounts.set('ada', { email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' })
    const sessionsBefore = await count('sessions')
    const loginsBefore = await count('oidc_logins')
    const { browser, res } = await signIn('ada', '/projects/default')
    expect(res.status, await res.clone().text()).toBe(302)
    expect(res.headers.get('location')).toBe('/projects/default')
    const cookies = res.headers.getSetCookie()
    expect(cookies).toContainEqual(expect.stringMatching(/^unleash-session=[\w-]{43}; Max-Age=172800; Path=\/; HttpOnly; SameSite=Lax$/))
    expect(cookies).toContainEqual(expect.stringMatching(/^unleash-oidc-login=; Path=\/auth\/oidc; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/))
    // Nothing but the session id reaches the browser: no ID token, no verifier.
    expect([...browser.jar.get(host)!.keys()].filter((k) => !k.startsWith('_'))).toEqual(['unleash-session'])
    const who = await me(browser)
    expect(who.status).toBe(200)
    expect(who.body.user).toMatchObject({ email: 'ada@example.com', name: null, rootRole: 3 })
    expect(who.body.permissions).toEqual([])
    const user = await db().selectFrom('users').selectAll().where('email', '=', 'ada@example.com').executeTakeFirstOrThrow()
    expect(user).toMatchObject({ root_role: 'Viewer', password_hash: null, username: null })
    expect(await count('sessions')).toBe(sessionsBefore + 1)
    expect(await db().selectFrom('oidc_sessions').selectAll().execute()).toHaveLength(1)
    // The login was used: its row is gone.
    expect(await count('oidc_logins')).toBe(loginsBefore)
    const created = await db().selectFrom('events').selectAll().where('type', '=', 'user-created').orderBy('id', 'desc').executeTakeFirstOrThrow()
    expect(created.created_by).toBe('SSO')
    expect(JSON.parse(created.data!)).toEqual({ id: user.id, username: null, email: 'ada@example.com', name: null, rootRole: 'Viewer' })
  })

  it('a second sign-in opens a session with a new id and ends the one the browser carried', async () => {
    const first = await signIn('ada')
    const old = first.browser.cookie(host, 'unleash-session')!
    const callback = await toCallback(first.browser, base, 'ada')
    const res = await first.browser.request(callback)
    expect(res.status).toBe(302)
    const renewed = first.browser.cookie(host, 'unleash-session')!
    expect(renewed).not.toBe(old)
    const stale = await new Browser(base).fetch('/api/admin/user', { headers: { cookie: `unleash-session=${old}` } })
    expect(stale.status).toBe(401)
    expect((await me(first.browser)).status).toBe(200)
  })

  it('an existing user (made by an Admin, with a password) signs in by their verified email and keeps their role', async () => {
    await createUser(t, 'Editor', { email: 'Grace@Example.com' })
    accounts.set('grace', { email: 'grace@example.com', email_verified: true })
    const usersBefore = await count('users')
    const { browser, res } = await signIn('grace')
    expect(res.status).toBe(302)
    expect((await me(browser)).body.user).toMatchObject({ email: 'Grace@Example.com', rootRole: 2 })
    expect(await count('users')).toBe(usersBefore)
  })

  it('without autoCreate, an unknown email is refused with 403 and nothing is created', async () => {
    expect((await settings({ autoCreate: false })).statusCode).toBe(200)
    try {
      accounts.set('nobody', { email: 'nobody@example.com', email_verified: true })
      const [users, sessions] = [await count('users'), await count('sessions')]
      const { res } = await signIn('nobody')
      expect(res.status).toBe(403)
      const body = await res.json() as any
      expect(body).toMatchObject({ name: 'PermissionError', detail: expect.stringContaining('No user has the email nobody@example.com, and autoCreate is off') })
      expect(res.headers.getSetCookie()).not.toContainEqual(expect.stringMatching(/^unleash-session=[\w-]/))
      expect([await count('users'), await count('sessions')]).toEqual([users, sessions])
    } finally {
      await settings({ autoCreate: true })
    }
  })

  it('an email the provider does not say is verified is refused', async () => {
    accounts.set('unverified', { email: 'unverified@example.com', email_verified: false })
    const users = await count('users')
    const { res } = await signIn('unverified')
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ name: 'SignInError', detail: 'The identity provider does not say that unverified@example.com is verified (email_verified)' })
    expect(await count('users')).toBe(users)
  })
})

describe('what a browser can get wrong, or an attacker try', () => {
  it('a replayed callback is refused (the login was used), and so is the code with a new login\'s state (the provider refuses it)', async () => {
    const browser = new CookieBrowser()
    const callback = await toCallback(browser, base, 'ada')
    const binding = browser.cookie(host, 'unleash-oidc-login')!
    expect((await browser.request(callback)).status).toBe(302)
    const sessions = await count('sessions')
    const events = await count('events')
    // The same callback with the same login cookie (an attacker's copy of both).
    const replayer = new CookieBrowser()
    replayer.setCookie(host, 'unleash-oidc-login', binding)
    const again = await replayer.request(callback)
    expect(again.status).toBe(401)
    expect(await again.json()).toMatchObject({ name: 'SignInError', detail: 'This sign-in was used already, or took longer than 10 minutes; start again' })
    // The code once more, under a new login of the same browser: our side lets it through, the provider does not.
    const started = await browser.request(`${base}/auth/oidc/login`)
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!
    const params = new URL(callback).searchParams
    params.set('state', state)
    const reused = await browser.request(`${base}/auth/oidc/callback?${params}`)
    expect(reused.status).toBe(401)
    expect(await reused.json()).toMatchObject({ name: 'SignInError', detail: 'The identity provider did not accept the sign-in (invalid_grant); start again' })
    expect(await count('sessions')).toBe(sessions)
    expect(await count('events')).toBe(events)
  })

  it('a callback reaching another browser (a foreign state) opens no session: login CSRF is impossible', async () => {
    // The attacker signs in as themselves and stops before their callback.
    accounts.set('mallory', { email: 'mallory@example.com', email_verified: true })
    const attacker = new CookieBrowser()
    const callback = await toCallback(attacker, base, 'mallory')
    const sessions = await count('sessions')
    // The victim's browser, sent to it: without a login of its own…
    const victim = new CookieBrowser()
    const bare = await victim.request(callback, { headers: { 'sec-fetch-site': 'cross-site' } })
    expect(bare.status).toBe(401)
    expect((await bare.json() as any).name).toBe('SignInError')
    // …and with one of its own under way.
    await (await victim.request(`${base}/auth/oidc/login`)).arrayBuffer()
    const crossed = await victim.request(callback, { headers: { 'sec-fetch-site': 'cross-site' } })
    expect(crossed.status).toBe(401)
    expect((await crossed.json() as any).detail).toBe('The state does not match the sign-in this browser started; start again')
    expect(victim.cookie(host, 'unleash-session')).toBeUndefined()
    expect(await count('sessions')).toBe(sessions)
    // The attacker's own callback still works for the attacker only once: the victim's attempts did not use it up.
    expect((await attacker.request(callback)).status).toBe(302)
  })

  it.each(['//evil.example/steal', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)'])('an open redirect (%s) is ignored: the browser lands on /', async (redirect) => {
    const { res } = await signIn('ada', redirect)
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/')
  })

  it('the provider\'s refusal (error=access_denied) is a 401 naming it, and uses the login up', async () => {
    const browser = new CookieBrowser()
    const started = await browser.request(`${base}/auth/oidc/login`)
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!
    const res = await browser.request(`${base}/auth/oidc/callback?error=access_denied&error_description=${encodeURIComponent('<script>x</script>')}&state=${state}`)
    expect(res.status).toBe(401)
    const body = await res.json() as any
    expect(body.detail).toBe('The identity provider refused the sign-in (access_denied)')
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    const again = await browser.request(`${base}/auth/oidc/callback?error=access_denied&state=${state}`)
    expect((await again.json() as any).detail).toMatch(/started no sign-in/)
  })
})

describe('groups from the provider', () => {
  it('a user in a mapped group lands with the group\'s root role, and loses it at the next sign-in once removed at the provider; an Admin\'s membership stays', async () => {
    const create = async (payload: object) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/admin/groups', headers: auth(), payload })
      expect(res.statusCode, res.body).toBe(201)
      return json(res).id as number
    }
    const admins = await create({ name: 'Flag admins', mappingsSSO: ['idp-flag-admins'], rootRole: 1 })
    const editors = await create({ name: 'Editors by hand', rootRole: 2 })
    accounts.set('linus', { email: 'linus@example.com', email_verified: true, groups: ['idp-flag-admins', 'unmapped'] })

    const first = await signIn('linus')
    expect(first.res.status).toBe(302)
    let who = await me(first.browser)
    expect(who.body.user.rootRole).toBe(1)
    expect(who.body.permissions).toEqual([{ permission: 'ADMIN' }])
    expect((await first.browser.request(`${base}/api/admin/user-admin`)).status).toBe(200)
    const userId = who.body.user.id as number
    const added = await db().selectFrom('events').selectAll().where('type', '=', 'group-user-added').orderBy('id', 'desc').executeTakeFirstOrThrow()
    expect(JSON.parse(added.data!)).toEqual({ groupId: admins, userId })
    // Their own role is still Viewer: the group gives Admin.
    expect((await db().selectFrom('users').select('root_role').where('id', '=', userId).executeTakeFirstOrThrow()).root_role).toBe('Viewer')

    // An Admin adds them to a group by hand.
    const put = await t.app.inject({ method: 'PUT', url: `/api/admin/groups/${editors}`, headers: auth(), payload: { name: 'Editors by hand', rootRole: 2, users: [{ user: { id: userId } }] } })
    expect(put.statusCode).toBe(200)

    // Removed from the group at the provider: gone at the next sign-in, in every session.
    accounts.set('linus', { email: 'linus@example.com', email_verified: true, groups: [] })
    const second = await signIn('linus')
    expect(second.res.status).toBe(302)
    who = await me(second.browser)
    expect(who.body.user.rootRole).toBe(2)
    expect((await second.browser.request(`${base}/api/admin/user-admin`)).status).toBe(403)
    expect((await me(first.browser)).body.user.rootRole).toBe(2)
    const removed = await db().selectFrom('events').selectAll().where('type', '=', 'group-user-removed').orderBy('id', 'desc').executeTakeFirstOrThrow()
    expect(JSON.parse(removed.pre_data!)).toEqual({ groupId: admins, userId })
    const memberships = await db().selectFrom('group_users').select(['group_id', 'created_by']).where('user_id', '=', userId).execute()
    expect(memberships).toEqual([{ group_id: editors, created_by: expect.not.stringMatching(/^SSO$/) }])
  })
})

describe('logging out', () => {
  it('a session single sign-on opened ends here and at the provider (303 to its end_session_endpoint with client_id, never the ID token)', async () => {
    const { browser } = await signIn('ada')
    const res = await browser.request(`${base}/logout`, { method: 'POST', headers: { 'sec-fetch-site': 'same-origin' } })
    expect(res.status).toBe(303)
    const to = new URL(res.headers.get('location')!)
    expect(`${to.origin}${to.pathname}`).toBe(`${idp.issuer}/session/end`)
    expect(Object.fromEntries(to.searchParams)).toEqual({ client_id: CLIENT_ID, post_logout_redirect_uri: `${base}/signed-out` })
    expect(res.headers.getSetCookie()).toContainEqual(expect.stringMatching(/^unleash-session=;/))
    expect((await me(browser)).status).toBe(401)
    // The provider accepts it: its sign-out page, not an error.
    const atProvider = await browser.request(to.href)
    expect(atProvider.status, await atProvider.clone().text()).toBe(200)
    expect(await atProvider.text()).toMatch(/logout|sign.?out/i)
  })

  it('a password session logs out locally (302 to /signed-out), single sign-out on or not', async () => {
    const user = await createUser(t, 'Viewer')
    const browser = new Browser(base)
    expect((await browser.login(user.login)).status).toBe(200)
    const res = await browser.fetch('/logout', { method: 'POST' })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/signed-out')
  })
})

describe('the login options', () => {
  it('the 401 of GET /api/admin/user lists single sign-on beside the password, as Unleash', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/user' })
    expect(res.statusCode).toBe(401)
    expect(json(res)).toMatchObject({
      name: 'AuthenticationRequired',
      type: 'password',
      path: '/auth/simple/login',
      defaultHidden: false,
      options: [{ type: 'oidc', message: 'Sign in with OpenID Connect', path: '/auth/oidc/login' }],
    })
  })
})
