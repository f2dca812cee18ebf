/**
 * The user-admin routes beside /user-admin/:id: inactive users (and deleting them), the
 * pickers' users and groups, the Admin count, SCIM users (none here), and an empty update.
 */
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { auth, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { createUser, listen, signedIn } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp({ USER_INACTIVITY_THRESHOLD_IN_DAYS: '30' })
const { admin } = requests(t)
let base = ''
beforeAll(async () => {
  base = await listen(t)
})

/** Moves a user's creation, last login and tokens' last use back in time. */
async function age (id: number, days: { created: number; seen?: number | null; pat?: number }) {
  const ago = (n: number) => sql<Date>`now() - ${n} * interval '1 day'`
  await t.database.db.updateTable('users').set({ seen_at: days.seen == null ? null : ago(days.seen) }).where('id', '=', id).execute()
  await sql`UPDATE users SET created_at = now() - ${days.created} * interval '1 day' WHERE id = ${id}`.execute(t.database.db)
  if (days.pat !== undefined) {
    await t.database.db.insertInto('personal_access_tokens')
      .values({ user_id: id, description: uniqueName('pat'), secret_hash: uniqueName('hash'), expires_at: sql<Date>`now() + interval '1 day'` })
      .execute()
    await t.database.db.updateTable('personal_access_tokens').set({ seen_at: ago(days.pat) }).where('user_id', '=', id).execute()
  }
}

const inactiveIds = async () => (json(await admin.get('/api/admin/user-admin/inactive')).inactiveUsers as { id: number }[]).map((u) => u.id)

describe('inactive users', () => {
  it('are those neither created, seen nor using a token within the threshold; one entry each, with their tokens\' last use', async () => {
    const old = await createUser(t, 'Viewer')
    const never = await createUser(t, 'Viewer')
    const seen = await createUser(t, 'Viewer')
    const fresh = await createUser(t, 'Viewer')
    const patUser = await createUser(t, 'Viewer')
    const oldPat = await createUser(t, 'Editor')
    await age(old.id, { created: 100, seen: 40 })
    await age(never.id, { created: 100, seen: null })
    await age(seen.id, { created: 100, seen: 3 })
    await age(patUser.id, { created: 100, seen: 40, pat: 2 })
    await age(oldPat.id, { created: 100, seen: 40, pat: 60 })
    const res = await admin.get('/api/admin/user-admin/inactive')
    expect(res.statusCode).toBe(200)
    const body = json(res)
    expect(body.version).toBe(1)
    const ids = body.inactiveUsers.map((u: any) => u.id)
    expect(ids).toEqual(expect.arrayContaining([old.id, never.id, oldPat.id]))
    for (const active of [seen.id, fresh.id, patUser.id]) expect(ids).not.toContain(active)
    expect(new Set(ids).size).toBe(ids.length)
    const entry = body.inactiveUsers.find((u: any) => u.id === oldPat.id)
    expect(entry).toEqual({ id: oldPat.id, name: null, username: oldPat.login, seenAt: expect.any(String), createdAt: expect.any(String), patSeenAt: expect.any(String) })
    expect(body.inactiveUsers.find((u: any) => u.id === never.id).seenAt).toBeNull()
  })

  it('are deleted all at once (user-deleted each), the caller skipped', async () => {
    const caller = await signedIn(t, base, 'Admin')
    const a = await createUser(t, 'Viewer')
    const b = await createUser(t, 'Editor')
    for (const id of [a.id, b.id, caller.id]) await age(id, { created: 100, seen: 50 })
    const before = json(await admin.get('/api/admin/events?limit=1')).events[0]?.id ?? 0
    const res = await caller.browser.json('POST', '/api/admin/user-admin/inactive/delete', { ids: [a.id, b.id, caller.id, a.id] })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('')
    const left = await t.database.db.selectFrom('users').select('id').where('id', 'in', [a.id, b.id, caller.id]).execute()
    expect(left.map((r) => r.id)).toEqual([caller.id])
    const events = await t.database.db.selectFrom('events').select(['type', 'pre_data', 'created_by_user_id']).where('id', '>', before).orderBy('id').execute()
    expect(events.map((e) => e.type)).toEqual(['user-deleted', 'user-deleted'])
    expect(events.map((e) => JSON.parse(e.pre_data!).id)).toEqual([a.id, b.id])
    expect(events[0]!.created_by_user_id).toBe(caller.id)
  })

  it('refuses, deleting nothing: an active user among them (400), an unknown id (404), a body without ids (400)', async () => {
    const inactive = await createUser(t, 'Viewer')
    const active = await createUser(t, 'Viewer')
    await age(inactive.id, { created: 100, seen: 50 })
    const before = await databaseFingerprint(t.database.db)
    const refused = expectProblem(await admin.post('/api/admin/user-admin/inactive/delete', { ids: [inactive.id, active.id] }), 400, 'BadDataError')
    expect(refused.detail).toContain(`User ${active.id} is not inactive`)
    expectProblem(await admin.post('/api/admin/user-admin/inactive/delete', { ids: [inactive.id, 999999] }), 404, 'NotFoundError')
    expectProblem(await admin.post('/api/admin/user-admin/inactive/delete', {}), 400, 'BadDataError')
    expectProblem(await admin.post('/api/admin/user-admin/inactive/delete', { ids: Array(1001).fill(inactive.id) }), 400, 'BadDataError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect(await inactiveIds()).toContain(inactive.id)
  })

  it('keeps the last Admin', async () => {
    const admins = await t.database.db.selectFrom('users').select('id').where('root_role', '=', 'Admin').execute()
    for (const { id } of admins) await age(id, { created: 100, seen: 50 })
    const before = await databaseFingerprint(t.database.db)
    const res = await admin.post('/api/admin/user-admin/inactive/delete', { ids: admins.map((a) => a.id) })
    if (admins.length > 0) {
      const body = expectProblem(res, 400, 'BadDataError')
      expect(body.detail).toContain('last Admin')
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    // Fresh again, so that later tests see them active.
    for (const { id } of admins) await age(id, { created: 0, seen: 0 })
  })

  it('an empty list deletes nothing and records nothing', async () => {
    const before = await databaseFingerprint(t.database.db)
    expect((await admin.post('/api/admin/user-admin/inactive/delete', { ids: [] })).statusCode).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('users and groups for pickers, the Admin count, SCIM users', () => {
  it('access lists every user briefly and every group with its member count and root role', async () => {
    const email = `${uniqueName('pick')}@example.com`
    const person = await createUser(t, 'Viewer', { email })
    const group = json(await admin.post('/api/admin/groups', { name: uniqueName('g'), rootRole: 2, users: [{ user: { id: person.id } }] }))
    const res = await admin.get('/api/admin/user-admin/access')
    expect(res.statusCode).toBe(200)
    const body = json(res)
    expect(body.users.find((u: any) => u.id === person.id)).toEqual({ id: person.id, name: null, username: null, email, accountType: 'User' })
    expect(body.groups.find((g: any) => g.id === group.id)).toEqual({ id: group.id, name: group.name, userCount: 1, rootRole: 2 })
    for (const u of body.users) expect(Object.keys(u).sort()).not.toContain('passwordHash')
  })

  it('admin-count counts Admins with and without a password', async () => {
    const before = json(await admin.get('/api/admin/user-admin/admin-count'))
    await createUser(t, 'Admin')
    await admin.post('/api/admin/user-admin', { username: uniqueName('nopass'), rootRole: 'Admin' })
    await createUser(t, 'Editor')
    const after = json(await admin.get('/api/admin/user-admin/admin-count'))
    expect(after).toEqual({ password: before.password + 1, noPassword: before.noPassword + 1, service: 0 })
  })

  it('DELETE scim-users deletes nothing (no SCIM here) and records nothing', async () => {
    const before = await databaseFingerprint(t.database.db)
    const res = await admin.delete('/api/admin/user-admin/scim-users')
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('the static paths are not taken for /user-admin/:id, and are for Admins only', async () => {
    const viewer = await signedIn(t, base, 'Viewer')
    for (const path of ['inactive', 'access', 'admin-count']) {
      expect((await admin.get(`/api/admin/user-admin/${path}`)).statusCode, path).toBe(200)
      const refused = await viewer.browser.fetch(`/api/admin/user-admin/${path}`)
      expect(refused.status, path).toBe(403)
    }
  })
})

describe('PUT /api/admin/user-admin/:id', () => {
  it('with an empty body answers the user as they are (200, as Unleash), changes nothing and records nothing', async () => {
    const person = await createUser(t, 'Editor')
    const before = await databaseFingerprint(t.database.db)
    const res = await t.app.inject({ method: 'PUT', url: `/api/admin/user-admin/${person.id}`, headers: auth(), payload: {} })
    expect(res.statusCode, res.body).toBe(200)
    expect(json(res)).toMatchObject({ id: person.id, username: person.login, rootRole: 2 })
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expectProblem(await t.app.inject({ method: 'PUT', url: '/api/admin/user-admin/999999', headers: auth(), payload: {} }), 404, 'NotFoundError')
  })
})
