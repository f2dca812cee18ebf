/**
 * Password resets without a mail server: an Admin makes a link (reset-password, or an
 * invitation when a user is created without a password), the person opens it and sets a
 * password. Links are hashed at rest, used once, expire, one per user per minute; the answers
 * never tell whether an email is a user's; no token reaches the log.
 */
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { auth, buildLoggedApp, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { Browser, createUser, listen, PASSWORD, signedIn } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp({ UNLEASH_URL: 'https://flags.example.com/' })
const { admin } = requests(t)
let base = ''
beforeAll(async () => {
  base = await listen(t)
})

const NEW_PASSWORD = 'a-brand-new-password-42'
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!
const resetLink = async (id: string) => {
  const res = await admin.post('/api/admin/user-admin/reset-password', { id })
  expect(res.statusCode, res.body).toBe(200)
  return json(res).resetPasswordUrl as string
}
const publicPost = (path: string, payload: object) => t.app.inject({ method: 'POST', url: path, payload })
const validate = (token: string) => t.app.inject({ method: 'GET', url: `/auth/reset/validate?token=${encodeURIComponent(token)}` })

describe('an Admin makes a reset link and hands it on', () => {
  it('by email or username: UNLEASH_URL/reset-password?token=…, only its hash stored, user-updated recorded (no token in it)', async () => {
    const email = `${uniqueName('reset')}@example.com`
    const person = await createUser(t, 'Editor', { email })
    const url = await resetLink(email.toUpperCase())
    expect(url).toMatch(/^https:\/\/flags\.example\.com\/reset-password\?token=[A-Za-z0-9_-]{43}$/)
    const stored = await t.database.db.selectFrom('password_reset_tokens').selectAll().where('user_id', '=', person.id).execute()
    expect(stored).toHaveLength(1)
    expect(stored[0]!.kind).toBe('reset')
    expect(stored[0]!.token_hash).not.toContain(tokenOf(url))
    const event = await t.database.db.selectFrom('events').select(['type', 'data']).orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()
    expect(event.type).toBe('user-updated')
    expect(JSON.parse(event.data!)).toMatchObject({ id: person.id, email, passwordResetLinkCreated: true })
    expect(event.data).not.toContain(tokenOf(url))
    expect((await resetLink(`  ${(await createUser(t, 'Viewer')).login} `))).toContain('/reset-password?token=')
  })

  it('404 for no such user, 429 within a minute of the last link for the same user (nothing changed)', async () => {
    const person = await createUser(t, 'Viewer')
    await resetLink(person.login)
    const before = await databaseFingerprint(t.database.db)
    expectProblem(await admin.post('/api/admin/user-admin/reset-password', { id: 'nobody@example.com' }), 404, 'NotFoundError')
    const again = await admin.post('/api/admin/user-admin/reset-password', { id: person.login })
    expectProblem(again, 429, 'TooManyRequestsError')
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0)
    expectProblem(await admin.post('/api/admin/user-admin/reset-password', {}), 400, 'BadDataError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('a new link replaces the last one (a user holds one)', async () => {
    const person = await createUser(t, 'Viewer')
    const first = await resetLink(person.login)
    await sql`UPDATE password_reset_tokens SET created_at = now() - interval '2 minutes' WHERE user_id = ${person.id}`.execute(t.database.db)
    const second = await resetLink(person.login)
    expectProblem(await validate(tokenOf(first)), 401, 'InvalidTokenError')
    expect((await validate(tokenOf(second))).statusCode).toBe(200)
  })
})

describe('the person opens the link and sets a password', () => {
  it('validate answers whose link it is (Unleash\'s tokenUserSchema); the password is set once, every session of theirs ends', async () => {
    const person = await signedIn(t, base, 'Editor')
    const url = await resetLink(person.login)
    const token = tokenOf(url)
    const checked = await validate(token)
    expect(checked.statusCode).toBe(200)
    expect(checked.headers['cache-control']).toBe('no-store')
    expect(json(checked)).toEqual({
      id: person.id,
      email: '',
      token,
      createdBy: expect.any(String),
      role: { id: 2, type: 'root', name: 'Editor', description: expect.any(String) },
    })
    const set = await publicPost('/auth/reset/password', { token, password: NEW_PASSWORD })
    expect(set.statusCode, set.body).toBe(200)
    expect(set.body).toBe('')
    // Used: the link no longer works, the old session neither; the new password does.
    expectProblem(await validate(token), 401, 'InvalidTokenError')
    expectProblem(await publicPost('/auth/reset/password', { token, password: 'yet-another-password-7' }), 401, 'InvalidTokenError')
    expect((await person.browser.fetch('/api/admin/user')).status).toBe(401)
    expect((await new Browser(base).login(person.login, PASSWORD)).status).toBe(401)
    expect((await new Browser(base).login(person.login, NEW_PASSWORD)).status).toBe(200)
    const event = await t.database.db.selectFrom('events').select(['type', 'data', 'created_by', 'created_by_user_id']).where('type', '=', 'user-updated').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()
    expect(JSON.parse(event.data!)).toMatchObject({ id: person.id, passwordChanged: true })
    expect(event.created_by_user_id).toBe(person.id)
    expect(await t.database.db.selectFrom('password_reset_tokens').select('user_id').where('user_id', '=', person.id).execute()).toEqual([])
  })

  it('refuses, changing nothing: a broken password rule (400, the link still works), an unknown, expired or malformed token (401/400)', async () => {
    const person = await createUser(t, 'Viewer')
    const token = tokenOf(await resetLink(person.login))
    const expired = await createUser(t, 'Viewer')
    const old = tokenOf(await resetLink(expired.login))
    await sql`UPDATE password_reset_tokens SET expires_at = now() - interval '1 second' WHERE user_id = ${expired.id}`.execute(t.database.db)
    const before = await databaseFingerprint(t.database.db)
    const weak = expectProblem(await publicPost('/auth/reset/password', { token, password: 'password1234' }), 400, 'BadDataError')
    expect(weak.details[0].path).toBe('/body/password')
    expectProblem(await publicPost('/auth/reset/password', { token, password: person.login }), 400, 'BadDataError')
    expectProblem(await publicPost('/auth/reset/password', { token: 'x'.repeat(43), password: NEW_PASSWORD }), 401, 'InvalidTokenError')
    expectProblem(await publicPost('/auth/reset/password', { token: old, password: NEW_PASSWORD }), 401, 'InvalidTokenError')
    expectProblem(await validate(old), 401, 'InvalidTokenError')
    expectProblem(await t.app.inject({ method: 'GET', url: '/auth/reset/validate' }), 401, 'InvalidTokenError')
    expectProblem(await validate('not a token'), 400, 'BadDataError')
    expectProblem(await publicPost('/auth/reset/password', { token }), 400, 'BadDataError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect((await validate(token)).statusCode).toBe(200)
  })

  it('two requests with one link at once: one sets the password, the other is refused', async () => {
    const person = await createUser(t, 'Viewer')
    const token = tokenOf(await resetLink(person.login))
    const answers = await Promise.all([
      publicPost('/auth/reset/password', { token, password: 'first-of-two-racing-1' }),
      publicPost('/auth/reset/password', { token, password: 'second-of-two-racing-2' }),
    ])
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 401])
    const events = await t.database.db.selectFrom('events').select('data').where('type', '=', 'user-updated').where(sql<boolean>`data::jsonb @> ${JSON.stringify({ id: person.id, passwordChanged: true })}::jsonb`).execute()
    expect(events).toHaveLength(1)
  })
})

describe('a user created without a password gets an invitation link', () => {
  it('the answer holds inviteLink (/new-user?token=…, no mail sent); with it the person sets a password and signs in', async () => {
    const username = uniqueName('invited')
    const created = await admin.post('/api/admin/user-admin', { username, rootRole: 'Viewer' })
    expect(created.statusCode).toBe(201)
    const body = json(created)
    expect(body.emailSent).toBe(false)
    expect(body.inviteLink).toMatch(/^https:\/\/flags\.example\.com\/new-user\?token=[A-Za-z0-9_-]{43}$/)
    const token = tokenOf(body.inviteLink)
    expect(json(await validate(token))).toMatchObject({ id: body.id, role: { name: 'Viewer' } })
    expect((await publicPost('/auth/reset/password', { token, password: NEW_PASSWORD })).statusCode).toBe(200)
    expect((await new Browser(base).login(username, NEW_PASSWORD)).status).toBe(200)
    // With a password, no link.
    expect(json(await admin.post('/api/admin/user-admin', { username: uniqueName('with'), rootRole: 'Viewer', password: PASSWORD })).inviteLink).toBeUndefined()
  })
})

describe('the other /auth/reset routes', () => {
  it('validate-password checks the rules without a session; password-email answers 200 whatever the address and changes nothing', async () => {
    expect((await publicPost('/auth/reset/validate-password', { password: NEW_PASSWORD })).statusCode).toBe(200)
    expectProblem(await publicPost('/auth/reset/validate-password', { password: 'short' }), 400, 'BadDataError')
    const email = `${uniqueName('known')}@example.com`
    await createUser(t, 'Viewer', { email })
    const before = await databaseFingerprint(t.database.db)
    const known = await publicPost('/auth/reset/password-email', { email })
    const unknown = await publicPost('/auth/reset/password-email', { email: 'nobody-at-all@example.com' })
    expect([known.statusCode, unknown.statusCode]).toEqual([200, 200])
    expect(known.body).toBe(unknown.body)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect(known.headers['cache-control']).toBe('no-store')
  })
})

describe('no reset token in the log', () => {
  it('the tokens of links made, validated, used and refused never appear, at trace level', async () => {
    const logged = await buildLoggedApp()
    const { app } = logged
    try {
      const secrets: string[] = []
      const made = await app.inject({ method: 'POST', url: '/api/admin/user-admin', headers: auth(), payload: { username: uniqueName('logged'), rootRole: 'Viewer' } })
      const invite = tokenOf(json(made).inviteLink)
      secrets.push(invite)
      await app.inject({ method: 'GET', url: `/auth/reset/validate?token=${invite}` })
      await app.inject({ method: 'GET', url: `/new-user?token=${invite}` })
      await app.inject({ method: 'POST', url: '/auth/reset/password', payload: { token: invite, password: 'short' } })
      await app.inject({ method: 'POST', url: '/auth/reset/password', payload: { token: invite, password: NEW_PASSWORD } })
      await app.inject({ method: 'GET', url: `/auth/reset/validate?token=${invite}` })
      const log = logged.log()
      expect(log).toContain('request completed')
      expect(log).toContain('/auth/reset/validate?[redacted]')
      for (const secret of [...secrets, NEW_PASSWORD]) expect(log).not.toContain(secret)
    } finally {
      await logged.close()
    }
  })
})
