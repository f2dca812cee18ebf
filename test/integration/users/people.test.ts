/**
 * People on a listening server, as a browser and scripts meet them: login and the session
 * cookie (read from real Set-Cookie headers), who am I, logout, users and their roles,
 * passwords, personal access tokens, and events that name who acted.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../../src/app.js'
import { createDatabase } from '../../../src/db/database.js'
import { auth, buildTestApp, expectProblem, json, testConfig, uniqueName, useTestApp } from '../../helpers/app.js'
import { Browser, createUser, listen, PASSWORD, sessionCookieOf, signedIn } from '../../helpers/people.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp()
let base = ''

beforeAll(async () => {
  base = await listen(t)
})

const problem = async (res: Response, status: number, name: string) => {
  const body = await res.json() as any
  expect(res.status, JSON.stringify(body)).toBe(status)
  expect(body.name).toBe(name)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  return body
}

describe('login and the session', () => {
  it('logs in with a username, answers the user and a session cookie: HttpOnly, SameSite=Lax, Path=/', async () => {
    const { id, login } = await createUser(t, 'Editor')
    const browser = new Browser(base)
    const res = await browser.login(login)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ id, name: null, username: login, rootRole: 2, createdAt: expect.any(String), seenAt: expect.any(String), accountType: 'User' })
    const cookie = sessionCookieOf(res)!
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(cookie.header).toMatch(/; HttpOnly/)
    expect(cookie.header).toMatch(/; SameSite=Lax/)
    expect(cookie.header).toMatch(/; Path=\//)
    expect(cookie.header).not.toMatch(/Secure/)
    // Only a hash of the id is stored.
    const stored = await t.database.db.selectFrom('sessions').select('id_hash').where('user_id', '=', id).execute()
    expect(stored).toHaveLength(1)
    expect(stored[0]!.id_hash).not.toContain(cookie.value)
  })

  it('logs in with an email too, without case', async () => {
    const email = `${uniqueName('mail')}@example.com`
    await createUser(t, 'Viewer', { email })
    const res = await new Browser(base).login(email.toUpperCase())
    expect(res.status).toBe(200)
    expect((await res.json() as any).email).toBe(email)
  })

  it('GET /api/admin/user: the user, their permissions in Unleash\'s shape, never cached', async () => {
    const admin = await signedIn(t, base, 'Admin')
    const me = await admin.browser.fetch('/api/admin/user')
    expect(me.status).toBe(200)
    expect(me.headers.get('cache-control')).toBe('no-store')
    expect(await me.json()).toEqual({ user: expect.objectContaining({ id: admin.id, rootRole: 1 }), permissions: [{ permission: 'ADMIN' }], feedback: [], splash: {} })
    const viewer = await signedIn(t, base, 'Viewer')
    expect((await (await viewer.browser.fetch('/api/admin/user')).json() as any).permissions).toEqual([])
    const editor = await signedIn(t, base, 'Editor')
    const permissions = (await (await editor.browser.fetch('/api/admin/user')).json() as any).permissions
    expect(permissions).toEqual(expect.arrayContaining([
      { permission: 'CREATE_FEATURE', project: '*' },
      { permission: 'UPDATE_FEATURE_ENVIRONMENT', project: '*', environment: '*' },
      { permission: 'CREATE_SEGMENT' },
    ]))
    expect(permissions).not.toContainEqual({ permission: 'ADMIN' })
  })

  it('without a session or token: 401 with the body Unleash\'s clients read to find the login', async () => {
    const res = await fetch(`${base}/api/admin/user`)
    const body = await problem(res, 401, 'AuthenticationRequired')
    expect(body).toMatchObject({ type: 'password', path: '/auth/simple/login', defaultHidden: false })
    expect(body.details).toEqual([{ message: expect.any(String) }])
    // A cookie that is no session of ours is the same 401, and is cleared.
    const forged = await fetch(`${base}/api/admin/user`, { headers: { cookie: `unleash-session=${'A'.repeat(43)}` } })
    await problem(forged, 401, 'AuthenticationRequired')
    expect(sessionCookieOf(forged)?.value).toBe('')
  })

  it('a wrong password and an unknown user get the same 401, byte for byte but the error id', async () => {
    const { login } = await createUser(t, 'Viewer')
    const wrong = await new Browser(base).login(login, 'not-the-password-1')
    const unknown = await new Browser(base).login(uniqueName('nobody'), 'not-the-password-1')
    const strip = (body: any) => ({ ...body, id: undefined })
    const [a, b] = [await problem(wrong, 401, 'PasswordMismatch'), await problem(unknown, 401, 'PasswordMismatch')]
    expect(strip(a)).toEqual(strip(b))
    expect(sessionCookieOf(wrong)).toBeUndefined()
    expect(sessionCookieOf(unknown)).toBeUndefined()
  })

  it('POST /logout with a form: 302 to /signed-out, the cookie cleared, the session ended', async () => {
    const { browser } = await signedIn(t, base, 'Viewer')
    const held = browser.cookie!
    const res = await browser.fetch('/logout', { method: 'POST', body: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/signed-out')
    expect(sessionCookieOf(res)?.header).toMatch(/^unleash-session=; .*Expires=Thu, 01 Jan 1970/)
    const after = await fetch(`${base}/api/admin/user`, { headers: { cookie: `unleash-session=${held}` } })
    await problem(after, 401, 'AuthenticationRequired')
    // Without a session, and with any content type, logout still answers the same.
    const bare = await fetch(`${base}/logout`, { method: 'POST', redirect: 'manual', body: '{}', headers: { 'content-type': 'application/json' } })
    expect(bare.status).toBe(302)
  })

  it('the session id changes at every login; a session sent to the login ends (no fixation)', async () => {
    const { login } = await createUser(t, 'Viewer')
    const browser = new Browser(base)
    await browser.login(login)
    const first = browser.cookie!
    await browser.login(login)
    const second = browser.cookie!
    expect(second).not.toBe(first)
    await problem(await fetch(`${base}/api/admin/user`, { headers: { cookie: `unleash-session=${first}` } }), 401, 'AuthenticationRequired')
    expect((await browser.fetch('/api/admin/user')).status).toBe(200)
  })

  it('sets Secure on the cookie when the request came over HTTPS through a trusted proxy', async () => {
    const proxied = await buildTestApp({ TRUST_PROXY: 'true' })
    try {
      const url = await listen(proxied)
      const { login } = await createUser(proxied, 'Viewer')
      const res = await new Browser(url).login(login, PASSWORD, { 'x-forwarded-proto': 'https' })
      expect(res.status).toBe(200)
      expect(sessionCookieOf(res)?.header).toMatch(/; Secure/)
      // Without TRUST_PROXY the header is not believed.
      const direct = await new Browser(base).login((await createUser(t, 'Viewer')).login, PASSWORD, { 'x-forwarded-proto': 'https' })
      expect(sessionCookieOf(direct)?.header).not.toMatch(/Secure/)
    } finally {
      await proxied.close()
    }
  })

  it('a session ends after the idle limit, and after the absolute limit however much it is used', async () => {
    const short = await buildTestApp({ SESSION_IDLE_TIMEOUT_MS: '1200', SESSION_MAX_AGE_MS: '3000' })
    try {
      const url = await listen(short)
      const { login } = await createUser(short, 'Viewer')
      const idle = new Browser(url)
      await idle.login(login)
      await sleep(1600)
      await problem(await idle.fetch('/api/admin/user'), 401, 'AuthenticationRequired')

      const busy = new Browser(url)
      await busy.login(login)
      const started = Date.now()
      // Used every 300 ms: never idle, and still ended at the absolute limit.
      while (Date.now() - started < 2500) {
        expect((await busy.fetch('/api/admin/user')).status).toBe(200)
        await sleep(300)
      }
      await sleep(Math.max(0, 3200 - (Date.now() - started)))
      await problem(await busy.fetch('/api/admin/user'), 401, 'AuthenticationRequired')
    } finally {
      await short.close()
    }
  })

  it('every instance sees a session, and its end: sessions live in the database', async () => {
    const config = testConfig(t.databaseUrl)
    const database = await createDatabase(config)
    const other = await buildApp(config, { database })
    try {
      const { login } = await createUser(t, 'Viewer')
      const browser = new Browser(base)
      await browser.login(login)
      const cookie = { cookie: `unleash-session=${browser.cookie}` }
      expect((await other.inject({ method: 'GET', url: '/api/admin/user', headers: cookie })).statusCode).toBe(200)
      await browser.fetch('/logout', { method: 'POST' })
      expect((await other.inject({ method: 'GET', url: '/api/admin/user', headers: cookie })).statusCode).toBe(401)
    } finally {
      await other.close()
      await database.db.destroy()
    }
  })
})

describe('users', () => {
  it('an Admin creates, lists, searches, reads, updates and deletes users; each records its event by name', async () => {
    const admin = await signedIn(t, base, 'Admin')
    const username = uniqueName('made')
    const created = await admin.browser.json('POST', '/api/admin/user-admin', { username, name: 'Made Here', rootRole: 'Viewer', password: PASSWORD })
    expect(created.status).toBe(201)
    const user = await created.json() as any
    expect(user).toMatchObject({ username, name: 'Made Here', rootRole: 'Viewer' })
    expect(JSON.stringify(user)).not.toContain(PASSWORD)
    expect(created.headers.get('location')).toBe(`/api/admin/user-admin/${user.id}`)

    const list = await (await admin.browser.fetch('/api/admin/user-admin')).json() as any
    expect(list.users.find((u: any) => u.id === user.id)).toMatchObject({ username, rootRole: 3 })
    expect(list.rootRoles.map((r: any) => r.name)).toEqual(['Admin', 'Editor', 'Viewer'])
    const found = await (await admin.browser.fetch(`/api/admin/user-admin/search?q=${username.slice(0, 8)}`)).json() as any
    expect(found.map((u: any) => u.id)).toContain(user.id)
    expect(await (await admin.browser.fetch('/api/admin/user-admin/search?q=%25')).json()).toEqual([])

    const updated = await admin.browser.json('PUT', `/api/admin/user-admin/${user.id}`, { rootRole: 2, name: 'Renamed' })
    expect(await updated.json()).toMatchObject({ id: user.id, name: 'Renamed', rootRole: 2 })
    expect((await admin.browser.fetch(`/api/admin/user-admin/${user.id}`, { method: 'DELETE' })).status).toBe(200)
    await problem(await admin.browser.fetch(`/api/admin/user-admin/${user.id}`), 404, 'NotFoundError')

    const events = json(await t.app.inject({ method: 'GET', url: `/api/admin/events?createdByUserId=${admin.id}`, headers: auth() })).events
    expect(events.map((e: any) => e.type)).toEqual(['user-deleted', 'user-updated', 'user-created'])
    for (const e of events) expect(e).toMatchObject({ createdBy: admin.login, createdByUserId: admin.id })
    expect(events[1].preData).toMatchObject({ rootRole: 'Viewer', name: 'Made Here' })
    expect(events[1].data).toMatchObject({ rootRole: 'Editor', name: 'Renamed' })
    expect(JSON.stringify(events)).not.toMatch(/scrypt|correct-horse/)
  })

  it('refuses a weak password at creation, change and reset alike, with 400 naming the rule; stores nothing', async () => {
    const admin = await signedIn(t, base, 'Admin')
    const target = await createUser(t, 'Viewer')
    const own = await signedIn(t, base, 'Viewer')
    const before = await databaseFingerprint(t.database.db)
    for (const [password, rule] of [['short-1', /at least 10 characters/], ['password1234', /common password/], ['Password1234', /common password/], ['qwertyuiop', /common password/]] as const) {
      const create = await admin.browser.json('POST', '/api/admin/user-admin', { username: uniqueName('weak'), rootRole: 'Viewer', password })
      const body = await problem(create, 400, 'BadDataError')
      expect(body.message).toMatch(rule)
      expect(body.details[0].path).toBe('/body/password')
      expect(JSON.stringify(body)).not.toContain(password)
      const reset = await admin.browser.json('POST', `/api/admin/user-admin/${target.id}/change-password`, { password })
      expect((await problem(reset, 400, 'BadDataError')).message).toMatch(rule)
      const validate = await admin.browser.json('POST', '/api/admin/user-admin/validate-password', { password })
      expect((await problem(validate, 400, 'BadDataError')).message).toMatch(rule)
    }
    const change = await own.browser.json('POST', '/api/admin/user/change-password', { password: 'password1234', oldPassword: PASSWORD })
    expect((await problem(change, 400, 'BadDataError')).message).toMatch(/common password/)
    const named = await admin.browser.json('POST', '/api/admin/user-admin', { username: 'samename-user-1', rootRole: 'Viewer', password: 'SAMENAME-user-1' })
    expect((await problem(named, 400, 'BadDataError')).message).toMatch(/username or email/)
    const { sessions: _sessions, ...stable } = before
    const { sessions: _now, ...after } = await databaseFingerprint(t.database.db)
    expect(after).toEqual(stable)
    expect((await admin.browser.json('POST', '/api/admin/user-admin/validate-password', { password: PASSWORD })).status).toBe(200)
  })

  it('changing a password ends the user\'s other sessions at once; the old password is needed', async () => {
    const { login } = await createUser(t, 'Viewer')
    const here = new Browser(base)
    const there = new Browser(base)
    await here.login(login)
    await there.login(login)
    await problem(await here.json('POST', '/api/admin/user/change-password', { password: 'a-new-password-42', oldPassword: 'wrong-password-1' }), 401, 'PasswordMismatch')
    await problem(await here.json('POST', '/api/admin/user/change-password', { password: 'a-new-password-42', confirmPassword: 'other-password-42', oldPassword: PASSWORD }), 400, 'BadDataError')
    expect((await there.fetch('/api/admin/user')).status).toBe(200)
    const changed = await here.json('POST', '/api/admin/user/change-password', { password: 'a-new-password-42', confirmPassword: 'a-new-password-42', oldPassword: PASSWORD })
    expect(changed.status).toBe(200)
    expect((await here.fetch('/api/admin/user')).status).toBe(200)
    await problem(await there.fetch('/api/admin/user'), 401, 'AuthenticationRequired')
    expect((await new Browser(base).login(login)).status).toBe(401)
    expect((await new Browser(base).login(login, 'a-new-password-42')).status).toBe(200)
  })

  it('an Admin resetting a password, or deleting a user, ends all their sessions at once', async () => {
    const admin = await signedIn(t, base, 'Admin')
    const victim = await signedIn(t, base, 'Editor')
    expect((await admin.browser.json('POST', `/api/admin/user-admin/${victim.id}/change-password`, { password: 'reset-by-admin-7' })).status).toBe(200)
    await problem(await victim.browser.fetch('/api/admin/user'), 401, 'AuthenticationRequired')
    const gone = await signedIn(t, base, 'Editor')
    expect((await admin.browser.fetch(`/api/admin/user-admin/${gone.id}`, { method: 'DELETE' })).status).toBe(200)
    await problem(await gone.browser.fetch('/api/admin/user'), 401, 'AuthenticationRequired')
    expect(await t.database.db.selectFrom('sessions').select('id_hash').where('user_id', '=', gone.id).execute()).toEqual([])
  })

  it('the last Admin can be neither deleted nor demoted, even by two requests at once', async () => {
    const lonely = await buildTestApp()
    try {
      const url = await listen(lonely)
      const a = await signedIn(lonely, url, 'Admin')
      const b = await signedIn(lonely, url, 'Admin')
      // Each demotes the other at the same time: one must be refused.
      const [x, y] = await Promise.all([
        a.browser.json('PUT', `/api/admin/user-admin/${b.id}`, { rootRole: 'Viewer' }),
        b.browser.json('PUT', `/api/admin/user-admin/${a.id}`, { rootRole: 'Viewer' }),
      ])
      // The other is refused: 400 (the last Admin), or 403 when the first committed before it was authorised.
      const statuses = [x.status, y.status].sort()
      expect(statuses[0]).toBe(200)
      expect([400, 403]).toContain(statuses[1])
      const admins = await lonely.database.db.selectFrom('users').select('id').where('root_role', '=', 'Admin').execute()
      expect(admins).toHaveLength(1)
      const last = admins[0]!.id
      const res = await lonely.app.inject({ method: 'DELETE', url: `/api/admin/user-admin/${last}`, headers: auth() })
      expect(expectProblem(res, 400, 'BadDataError').message).toMatch(/last Admin/)
      const demote = await lonely.app.inject({ method: 'PUT', url: `/api/admin/user-admin/${last}`, headers: auth(), payload: { rootRole: 'Editor' } })
      expectProblem(demote, 400, 'BadDataError')
    } finally {
      await lonely.close()
    }
  })

  it('refuses duplicates (409, without case), a user without username or email (400), and project roles as root roles', async () => {
    const username = uniqueName('dup')
    await createUser(t, 'Viewer', { username })
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/admin/user-admin', headers: auth(), payload: { username: username.toUpperCase(), rootRole: 3 } }), 409, 'NameExistsError')
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/admin/user-admin', headers: auth(), payload: { name: 'nobody', rootRole: 3 } }), 400, 'BadDataError')
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/admin/user-admin', headers: auth(), payload: { username: uniqueName('m'), rootRole: 'Member' } }), 400, 'BadDataError')
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/admin/user-admin', headers: auth(), payload: { username: 'a@b', rootRole: 3 } }), 400, 'BadDataError')
  })

  it('GET /api/admin/user/roles and /profile: the project roles a user holds', async () => {
    const member = await signedIn(t, base, 'Viewer')
    await t.app.inject({ method: 'PUT', url: `/api/admin/projects/default/users/${member.id}/roles`, headers: auth(), payload: { roles: [5] } })
    expect(await (await member.browser.fetch('/api/admin/user/roles?projectId=default')).json()).toEqual({ version: 1, roles: [expect.objectContaining({ id: 5, name: 'Member', type: 'project' })] })
    await problem(await member.browser.fetch('/api/admin/user/roles'), 400, 'BadDataError')
    expect(await (await member.browser.fetch('/api/admin/user/profile')).json()).toMatchObject({ rootRole: { id: 3, name: 'Viewer' }, projects: ['default'], canChangePassword: true })
    const access = json(await t.app.inject({ method: 'GET', url: '/api/admin/projects/default/access', headers: auth() }))
    expect(access.users).toContainEqual(expect.objectContaining({ id: member.id, roles: [5] }))
  })
})

describe('personal access tokens', () => {
  it('created with a session, shown once, used bare or with Bearer, acting with the owner\'s current roles', async () => {
    const owner = await signedIn(t, base, 'Editor')
    const created = await owner.browser.json('POST', '/api/admin/user/tokens', { description: 'ci', expiresAt: new Date(Date.now() + 3_600_000).toISOString() })
    expect(created.status).toBe(201)
    const pat = await created.json() as any
    expect(pat).toEqual({ id: expect.any(Number), description: 'ci', expiresAt: expect.any(String), createdAt: expect.any(String), seenAt: null, userId: owner.id, secret: expect.stringMatching(/^user:[0-9a-f]{56}$/) })
    const listed = await (await owner.browser.fetch('/api/admin/user/tokens')).json() as any
    expect(listed.pats).toEqual([expect.objectContaining({ id: pat.id, description: 'ci' })])
    expect(JSON.stringify(listed)).not.toContain(pat.secret)

    for (const authorization of [pat.secret, `Bearer ${pat.secret}`]) {
      const me = await fetch(`${base}/api/admin/user`, { headers: { authorization } })
      expect((await me.json() as any).user.id).toBe(owner.id)
    }
    const name = uniqueName('by-pat')
    const made = await fetch(`${base}/api/admin/projects/default/features`, { method: 'POST', headers: { authorization: pat.secret, 'content-type': 'application/json' }, body: JSON.stringify({ name }) })
    expect(made.status).toBe(201)
    const events = json(await t.app.inject({ method: 'GET', url: `/api/admin/events?feature=${name}`, headers: auth() })).events
    expect(events[0]).toMatchObject({ type: 'feature-created', createdBy: owner.login, createdByUserId: owner.id })

    // Demoted to Viewer: the same token may no longer write (403), at once.
    await t.app.inject({ method: 'PUT', url: `/api/admin/user-admin/${owner.id}`, headers: auth(), payload: { rootRole: 'Viewer' } })
    const refused = await fetch(`${base}/api/admin/projects/default/features`, { method: 'POST', headers: { authorization: pat.secret, 'content-type': 'application/json' }, body: JSON.stringify({ name: uniqueName('late') }) })
    await problem(refused, 403, 'PermissionError')

    // A token cannot make another; deleting it stops it at once.
    await problem(await fetch(`${base}/api/admin/user/tokens`, { method: 'POST', headers: { authorization: pat.secret, 'content-type': 'application/json' }, body: JSON.stringify({ description: 'x', expiresAt: new Date(Date.now() + 60_000).toISOString() }) }), 403, 'PermissionError')
    expect((await owner.browser.fetch(`/api/admin/user/tokens/${pat.id}`, { method: 'DELETE' })).status).toBe(200)
    await problem(await fetch(`${base}/api/admin/user`, { headers: { authorization: pat.secret } }), 401, 'UnauthorizedError')
    await problem(await owner.browser.fetch(`/api/admin/user/tokens/${pat.id}`, { method: 'DELETE' }), 404, 'NotFoundError')
    const types = json(await t.app.inject({ method: 'GET', url: `/api/admin/events?createdByUserId=${owner.id}`, headers: auth() })).events.map((e: any) => e.type)
    expect(types).toEqual(expect.arrayContaining(['pat-created', 'pat-deleted']))
  })

  it('refused after expiresAt (even seconds away), and when its owner is deleted', async () => {
    const owner = await signedIn(t, base, 'Viewer')
    const soon = await (await owner.browser.json('POST', '/api/admin/user/tokens', { description: 'soon', expiresAt: new Date(Date.now() + 1500).toISOString() })).json() as any
    expect((await fetch(`${base}/api/admin/user`, { headers: { authorization: soon.secret } })).status).toBe(200)
    await sleep(1800)
    await problem(await fetch(`${base}/api/admin/user`, { headers: { authorization: soon.secret } }), 401, 'UnauthorizedError')
    const later = await (await owner.browser.json('POST', '/api/admin/user/tokens', { description: 'later', expiresAt: new Date(Date.now() + 3_600_000).toISOString() })).json() as any
    await t.app.inject({ method: 'DELETE', url: `/api/admin/user-admin/${owner.id}`, headers: auth() })
    await problem(await fetch(`${base}/api/admin/user`, { headers: { authorization: later.secret } }), 401, 'UnauthorizedError')
  })

  it('refuses a past expiresAt, a duplicate description (409), an 11th token, and another user\'s token id (404)', async () => {
    const owner = await signedIn(t, base, 'Viewer')
    const other = await signedIn(t, base, 'Viewer')
    const make = (b: Browser, description: string, expiresAt = new Date(Date.now() + 3_600_000).toISOString()) => b.json('POST', '/api/admin/user/tokens', { description, expiresAt })
    await problem(await make(owner.browser, 'past', new Date(Date.now() - 1000).toISOString()), 400, 'BadDataError')
    await problem(await make(owner.browser, 'not a date', 'tomorrow'), 400, 'BadDataError')
    const first = await (await make(owner.browser, 'one')).json() as any
    await problem(await make(owner.browser, 'one'), 409, 'NameExistsError')
    for (let i = 2; i <= 10; i++) expect((await make(owner.browser, `t${i}`)).status).toBe(201)
    expect((await problem(await make(owner.browser, 'eleventh'), 400, 'BadDataError')).message).toMatch(/at most 10/)
    await problem(await other.browser.fetch(`/api/admin/user/tokens/${first.id}`, { method: 'DELETE' }), 404, 'NotFoundError')
    expect((await fetch(`${base}/api/admin/user`, { headers: { authorization: first.secret } })).status).toBe(200)
  })

  it('an API token is not a person: the own-account routes answer 403', async () => {
    for (const [method, url] of [['GET', '/api/admin/user'], ['GET', '/api/admin/user/tokens'], ['POST', '/api/admin/user/tokens']] as const) {
      const res = await t.app.inject({ method, url, headers: auth(), ...(method === 'POST' && { payload: { description: 'x', expiresAt: new Date(Date.now() + 60_000).toISOString() } }) })
      expectProblem(res, 403, 'PermissionError')
    }
  })
})

describe('the audit trail', () => {
  it('records createdBy (email, else username; or the token name) and createdByUserId, and filters by either', async () => {
    const email = `${uniqueName('auditor')}@example.com`
    const { id } = await createUser(t, 'Editor', { email })
    const browser = new Browser(base)
    await browser.login(email)
    const name = uniqueName('audited')
    expect((await browser.json('POST', '/api/admin/projects/default/features', { name })).status).toBe(201)
    expect((await browser.json('POST', `/api/admin/projects/default/features/${name}/environments/development/on`)).status).toBe(200)
    const byName = json(await t.app.inject({ method: 'GET', url: `/api/admin/events?createdBy=${encodeURIComponent(email)}`, headers: auth() })).events
    // Switching on adds the default strategy: that change is theirs too.
    expect(byName.map((e: any) => [e.type, e.createdBy, e.createdByUserId])).toEqual([
      ['feature-environment-enabled', email, id],
      ['feature-strategy-add', email, id],
      ['feature-created', email, id],
    ])
    const byId = json(await t.app.inject({ method: 'GET', url: `/api/admin/events?createdByUserId=${id}`, headers: auth() })).events
    expect(byId.map((e: any) => e.id)).toEqual(byName.map((e: any) => e.id))
    const tokenEvents = json(await t.app.inject({ method: 'GET', url: '/api/admin/events?type=feature-created&limit=1', headers: auth() })).events
    expect(tokenEvents[0]).toMatchObject({ createdBy: expect.any(String) })
  })

  it('only Admins (and */* tokens) see the events about people and tokens', async () => {
    const viewer = await signedIn(t, base, 'Viewer')
    const admin = await signedIn(t, base, 'Admin')
    const seen = async (b: Browser) => ((await (await b.fetch('/api/admin/events?type=user-created')).json()) as any).events.length
    expect(await seen(viewer.browser)).toBe(0)
    expect(await seen(admin.browser)).toBeGreaterThan(0)
  })
})
