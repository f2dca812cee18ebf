/**
 * Public sign-up tokens (Unleash's invite links): an Admin makes one and hands its link on;
 * whoever opens it signs up as a Viewer while it is enabled and not expired. Refusals change
 * nothing; the secret never reaches an event or the log.
 */
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { auth, buildLoggedApp, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { Browser, listen, signedIn } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp({ UNLEASH_URL: 'https://flags.example.com/', LOGIN_MAX_FAILURES_PER_ADDRESS: '50' })
const { admin } = requests(t)
let base = ''
beforeAll(async () => {
  base = await listen(t)
})

const PASSWORD = 'a-signed-up-password-42'
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString()
const makeToken = async (expiresAt = inAnHour()) => {
  const res = await admin.post('/api/admin/invite-link/tokens', { name: uniqueName('invite'), expiresAt })
  expect(res.statusCode, res.body).toBe(201)
  return json(res)
}
const publicCall = (method: 'GET' | 'POST', url: string, payload?: object) => t.app.inject({ method, url, ...(payload && { payload }) })
const person = () => ({ email: `${uniqueName('signup')}@example.com`, name: 'Signed Up', password: PASSWORD })

describe('an Admin makes sign-up tokens', () => {
  it('201 with the link to hand on (UNLEASH_URL/new-user?invite=…), Location, the Viewer role; recorded without the secret', async () => {
    const name = uniqueName('invite')
    const expiresAt = inAnHour()
    const res = await admin.post('/api/admin/invite-link/tokens', { name, expiresAt })
    expect(res.statusCode).toBe(201)
    const token = json(res)
    expect(token).toEqual({
      secret: expect.stringMatching(/^[0-9a-f]{32}$/),
      url: `https://flags.example.com/new-user?invite=${token.secret}`,
      name,
      enabled: true,
      expiresAt,
      createdAt: expect.any(String),
      createdBy: expect.any(String),
      users: [],
      role: { id: 3, type: 'root', name: 'Viewer', description: expect.any(String) },
    })
    expect(res.headers.location).toBe(`tokens/${token.secret}`)
    const stored = await t.database.db.selectFrom('signup_tokens').selectAll().where('secret', '=', token.secret).executeTakeFirstOrThrow()
    expect(stored).toMatchObject({ name, role: 'Viewer', enabled: true })
    const event = await t.database.db.selectFrom('events').select(['type', 'data']).orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()
    expect(event.type).toBe('public-signup-token-created')
    expect(JSON.parse(event.data!)).toMatchObject({ name, enabled: true, role: 'Viewer' })
    expect(event.data).not.toContain(token.secret)
    // Read back, alone and in the list (the newest first).
    expect(json(await admin.get(`/api/admin/invite-link/tokens/${token.secret}`))).toEqual(token)
    expect(json(await admin.get('/api/admin/invite-link/tokens')).tokens[0]).toEqual(token)
  })

  it('an expiry later than a month from now is brought back to a month from now (as Unleash)', async () => {
    const token = await makeToken(new Date(Date.now() + 365 * 86_400_000).toISOString())
    const month = new Date()
    month.setUTCMonth(month.getUTCMonth() + 1)
    expect(Math.abs(new Date(token.expiresAt).getTime() - month.getTime())).toBeLessThan(60_000)
  })

  it('refuses, changing nothing: a past expiry, an unknown body member, a missing name, an unknown token (404), an empty update', async () => {
    const token = await makeToken()
    const before = await databaseFingerprint(t.database.db)
    expectProblem(await admin.post('/api/admin/invite-link/tokens', { name: 'past', expiresAt: new Date(Date.now() - 1000).toISOString() }), 400, 'BadDataError')
    expectProblem(await admin.post('/api/admin/invite-link/tokens', { name: 'x', expiresAt: inAnHour(), role: 'Admin' }), 400, 'BadDataError')
    expectProblem(await admin.post('/api/admin/invite-link/tokens', { expiresAt: inAnHour() }), 400, 'BadDataError')
    expectProblem(await admin.get('/api/admin/invite-link/tokens/no-such-token'), 404, 'NotFoundError')
    expectProblem(await admin.put('/api/admin/invite-link/tokens/no-such-token', { enabled: false }), 404, 'NotFoundError')
    expectProblem(await admin.put(`/api/admin/invite-link/tokens/${token.secret}`, {}), 400, 'BadDataError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('the same values again change nothing and record nothing', async () => {
    const token = await makeToken()
    const before = await databaseFingerprint(t.database.db)
    const same = await admin.put(`/api/admin/invite-link/tokens/${token.secret}`, { enabled: true, expiresAt: token.expiresAt })
    expect(same.statusCode).toBe(200)
    expect(json(same)).toEqual(token)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('a person signs up with the link', () => {
  it('validate answers 200 (no sign-in); signup makes a Viewer who signs in, listed on the token; both events recorded', async () => {
    const token = await makeToken()
    const valid = await publicCall('GET', `/invite/${token.secret}/validate`)
    expect(valid.statusCode).toBe(200)
    expect(valid.body).toBe('')
    const who = person()
    const res = await publicCall('POST', `/invite/${token.secret}/signup`, who)
    expect(res.statusCode, res.body).toBe(201)
    const user = json(res)
    expect(user).toMatchObject({ email: who.email, name: who.name, rootRole: 3 })
    expect(JSON.stringify(user)).not.toContain(PASSWORD)
    const events = await t.database.db.selectFrom('events').select(['type', 'data']).orderBy('id', 'desc').limit(2).execute()
    expect(events.map((e) => e.type)).toEqual(['public-signup-token-user-added', 'user-created'])
    for (const event of events) expect(event.data).not.toContain(token.secret)
    expect((await new Browser(base).login(who.email, PASSWORD)).status).toBe(200)
    expect(json(await admin.get(`/api/admin/invite-link/tokens/${token.secret}`)).users.map((u: { id: number }) => u.id)).toEqual([user.id])
  })

  it('a disabled, expired or unknown token: 400, the same answer for each, nothing stored', async () => {
    const disabled = await makeToken()
    const off = await admin.put(`/api/admin/invite-link/tokens/${disabled.secret}`, { enabled: false })
    expect(off.statusCode).toBe(200)
    expect(json(off).enabled).toBe(false)
    const updated = await t.database.db.selectFrom('events').select(['type', 'data', 'pre_data']).orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()
    expect(updated.type).toBe('public-signup-token-updated')
    expect(JSON.parse(updated.data!).enabled).toBe(false)
    expect(JSON.parse(updated.pre_data!).enabled).toBe(true)
    const expired = await makeToken()
    await sql`UPDATE signup_tokens SET expires_at = now() - interval '1 second' WHERE secret = ${expired.secret}`.execute(t.database.db)
    expect(json(await admin.get(`/api/admin/invite-link/tokens/${expired.secret}`)).enabled).toBe(false)
    const users = async () => Number((await t.database.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
    const count = await users()
    const answers: string[] = []
    for (const secret of [disabled.secret, expired.secret, 'no-such-token']) {
      const validate = expectProblem(await publicCall('GET', `/invite/${secret}/validate`), 400, 'BadDataError')
      const signup = expectProblem(await publicCall('POST', `/invite/${secret}/signup`, person()), 400, 'BadDataError')
      answers.push(JSON.stringify({ message: validate.message }), JSON.stringify({ message: signup.message }))
    }
    expect(new Set(answers).size).toBe(1)
    expect(await users()).toBe(count)
    expect(await t.database.db.selectFrom('signup_token_users').select('user_id').where('secret', 'in', [disabled.secret, expired.secret]).execute()).toEqual([])
    // Turned on again, the link works again.
    expect((await admin.put(`/api/admin/invite-link/tokens/${disabled.secret}`, { enabled: true })).statusCode).toBe(200)
    expect((await publicCall('GET', `/invite/${disabled.secret}/validate`)).statusCode).toBe(200)
  })

  it('a broken password rule (400, naming it) and a taken email (409) make no user', async () => {
    const token = await makeToken()
    const taken = person()
    expect((await publicCall('POST', `/invite/${token.secret}/signup`, taken)).statusCode).toBe(201)
    const before = await t.database.db.selectFrom('users').select('id').orderBy('id').execute()
    const weak = expectProblem(await publicCall('POST', `/invite/${token.secret}/signup`, { ...person(), password: 'password1234' }), 400, 'BadDataError')
    expect(JSON.stringify(weak)).toContain('password')
    expectProblem(await publicCall('POST', `/invite/${token.secret}/signup`, { ...person(), email: taken.email.toUpperCase() }), 409, 'NameExistsError')
    expectProblem(await publicCall('POST', `/invite/${token.secret}/signup`, { ...person(), rootRole: 'Admin' }), 400, 'BadDataError')
    expect(await t.database.db.selectFrom('users').select('id').orderBy('id').execute()).toEqual(before)
  })

  it('only an Admin manages tokens: a Viewer gets 403 and nothing changes', async () => {
    const token = await makeToken()
    const viewer = await signedIn(t, base, 'Viewer')
    const before = await databaseFingerprint(t.database.db)
    expect((await viewer.browser.fetch('/api/admin/invite-link/tokens')).status).toBe(403)
    expect((await viewer.browser.json('POST', '/api/admin/invite-link/tokens', { name: 'mine', expiresAt: inAnHour() })).status).toBe(403)
    expect((await viewer.browser.json('PUT', `/api/admin/invite-link/tokens/${token.secret}`, { enabled: false })).status).toBe(403)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('no sign-up secret in the log', () => {
  it('the secrets of tokens made, read, validated and used never appear, at trace level', async () => {
    const logged = await buildLoggedApp()
    const { app } = logged
    try {
      const made = await app.inject({ method: 'POST', url: '/api/admin/invite-link/tokens', headers: auth(), payload: { name: 'logged', expiresAt: inAnHour() } })
      expect(made.statusCode).toBe(201)
      const { secret } = json(made)
      await app.inject({ method: 'GET', url: `/api/admin/invite-link/tokens/${secret}`, headers: auth() })
      await app.inject({ method: 'PUT', url: `/api/admin/invite-link/tokens/${secret}`, headers: auth(), payload: { enabled: true } })
      await app.inject({ method: 'GET', url: `/invite/${secret}/validate` })
      await app.inject({ method: 'POST', url: `/invite/${secret}/signup`, payload: { ...person(), password: 'short' } })
      await app.inject({ method: 'POST', url: `/invite/${secret}/signup`, payload: person() })
      await app.inject({ method: 'GET', url: `/new-user?invite=${secret}` })
      const log = logged.log()
      expect(log).toContain('request completed')
      expect(log).toContain('/invite/[redacted]/signup')
      expect(log).not.toContain(secret)
      expect(log).not.toContain(PASSWORD)
    } finally {
      await logged.close()
    }
  })
})
