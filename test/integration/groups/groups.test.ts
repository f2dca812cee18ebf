/**
 * Groups in Unleash Enterprise's shape: create, read, replace and delete, with members, SSO
 * mappings and a root role; roles of groups in projects; what a member may then do; events; and
 * refusals that change nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { auth, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { createUser, listen, signedIn } from '../../helpers/people.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp()
let base = ''
beforeAll(async () => {
  base = await listen(t)
})

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: auth(), ...(payload !== undefined && { payload }) })

async function groupEvents (type: string) {
  const rows = await t.database.db.selectFrom('events').select(['data', 'pre_data', 'project']).where('type', '=', type).orderBy('id', 'desc').execute()
  return rows.map((r) => ({ project: r.project, data: r.data === null ? null : JSON.parse(r.data), preData: r.pre_data === null ? null : JSON.parse(r.pre_data) }))
}

describe('groups', () => {
  it('are created with members, SSO mappings and a root role, and read back in Unleash\'s shape', async () => {
    const ada = await createUser(t, 'Viewer', { email: `${uniqueName('ada')}@example.com` })
    const bob = await createUser(t, 'Viewer')
    const name = uniqueName('Platform team')
    const res = await call('POST', '/api/admin/groups', {
      name,
      description: 'Runs the platform',
      mappingsSSO: ['platform', 'platform'],
      rootRole: 2,
      users: [{ user: { id: ada.id } }, { user: { id: bob.id } }, { user: { id: ada.id } }],
    })
    expect(res.statusCode, res.body).toBe(201)
    const group = json(res)
    expect(res.headers.location).toBe(`/api/admin/groups/${group.id}`)
    expect(group).toMatchObject({ name, description: 'Runs the platform', mappingsSSO: ['platform'], rootRole: 2, projects: [], userCount: 2, createdBy: expect.any(String) })
    expect(group.users.map((u: any) => u.user.id)).toEqual([ada.id, bob.id])
    expect(group.users[0]).toEqual({ joinedAt: expect.any(String), createdBy: expect.any(String), user: expect.objectContaining({ id: ada.id, email: ada.login, rootRole: 3, accountType: 'User' }) })
    expect(json(await call('GET', `/api/admin/groups/${group.id}`))).toEqual(group)
    expect(json(await call('GET', '/api/admin/groups')).groups).toContainEqual(group)
    const [event] = await groupEvents('group-created')
    expect(event!.data).toEqual({ id: group.id, name, description: 'Runs the platform', mappingsSSO: ['platform'], rootRole: 2, users: [ada.id, bob.id] })
  })

  it('a member acts with the highest of their own root role and their groups\'; leaving the group takes it away at the next request', async () => {
    const person = await signedIn(t, base, 'Viewer')
    const group = json(await call('POST', '/api/admin/groups', { name: uniqueName('editors'), rootRole: 2, users: [{ user: { id: person.id } }] }))
    const me = async () => (await person.browser.fetch('/api/admin/user')).json() as Promise<any>
    expect((await me()).user.rootRole).toBe(2)
    expect((await person.browser.json('POST', '/api/admin/segments', { name: uniqueName('seg'), constraints: [] })).status).toBe(201)
    const lower = json(await call('POST', '/api/admin/groups', { name: uniqueName('viewers'), rootRole: 3, users: [{ user: { id: person.id } }] }))
    expect((await me()).user.rootRole).toBe(2)
    expect((await call('PUT', `/api/admin/groups/${group.id}`, { name: group.name, rootRole: 2, users: [] })).statusCode).toBe(200)
    expect((await me()).user.rootRole).toBe(3)
    expect((await person.browser.json('POST', '/api/admin/segments', { name: uniqueName('seg'), constraints: [] })).status).toBe(403)
    expect((await call('DELETE', `/api/admin/groups/${lower.id}`)).statusCode).toBe(200)
  })

  it('PUT replaces everything, keeps who added a member that stays, accepts what Unleash\'s UI sends back, and records group-updated with before and after', async () => {
    const [a, b, c] = [await createUser(t, 'Viewer'), await createUser(t, 'Viewer'), await createUser(t, 'Viewer')]
    const created = json(await call('POST', '/api/admin/groups', { name: uniqueName('g'), mappingsSSO: ['x'], users: [{ user: { id: a.id } }, { user: { id: b.id } }] }))
    const joined = created.users.find((u: any) => u.user.id === a.id).joinedAt
    // Unleash's UI sends the group as it read it, with other members.
    const res = await call('PUT', `/api/admin/groups/${created.id}`, { ...created, description: 'new', mappingsSSO: [], users: [{ user: { id: a.id } }, { user: { id: c.id } }] })
    expect(res.statusCode, res.body).toBe(200)
    const updated = json(res)
    expect(updated).toMatchObject({ id: created.id, description: 'new', mappingsSSO: [], rootRole: null, userCount: 2 })
    expect(updated.users.map((u: any) => u.user.id)).toEqual([a.id, c.id])
    expect(updated.users[0].joinedAt).toBe(joined)
    const [event] = await groupEvents('group-updated')
    expect(event!.preData).toMatchObject({ description: null, mappingsSSO: ['x'], users: [a.id, b.id] })
    expect(event!.data).toMatchObject({ description: 'new', mappingsSSO: [], users: [a.id, c.id] })
    // The same again changes nothing and records nothing.
    const events = (await groupEvents('group-updated')).length
    expect((await call('PUT', `/api/admin/groups/${created.id}`, { name: created.name, description: 'new', users: [{ user: { id: c.id } }, { user: { id: a.id } }] })).statusCode).toBe(200)
    expect((await groupEvents('group-updated')).length).toBe(events)
  })

  it('refuses a taken name (409), unknown users (400 naming them), bad fields (400) and unknown groups (404), changing nothing', async () => {
    const name = uniqueName('taken')
    const existing = json(await call('POST', '/api/admin/groups', { name }))
    const before = await databaseFingerprint(t.database.db)
    expect(expectProblem(await call('POST', '/api/admin/groups', { name }), 409, 'NameExistsError').detail).toBe('Group name already exists')
    expect(expectProblem(await call('POST', '/api/admin/groups', { name: uniqueName('g'), users: [{ user: { id: 999999 } }] }), 400, 'BadDataError').detail).toBe('No user has the id 999999')
    expectProblem(await call('POST', '/api/admin/groups', { name: uniqueName('g'), rootRole: 5 }), 400, 'BadDataError')
    expectProblem(await call('POST', '/api/admin/groups', { name: '' }), 400, 'BadDataError')
    expectProblem(await call('POST', '/api/admin/groups', { name: '   ' }), 400, 'BadDataError')
    expectProblem(await call('POST', '/api/admin/groups', { name: uniqueName('g'), mappingsSSO: Array.from({ length: 101 }, (_, i) => `m${i}`) }), 400, 'BadDataError')
    expectProblem(await call('POST', '/api/admin/groups', { name: uniqueName('g'), users: Array.from({ length: 1001 }, (_, i) => ({ user: { id: i + 1 } })) }), 400, 'BadDataError')
    expectProblem(await call('POST', '/api/admin/groups', { name: uniqueName('g'), owner: 'x' }), 400, 'BadDataError')
    const other = json(await call('POST', '/api/admin/groups', { name: uniqueName('other') }))
    const afterOther = await databaseFingerprint(t.database.db)
    expectProblem(await call('PUT', `/api/admin/groups/${other.id}`, { name }), 409, 'NameExistsError')
    expectProblem(await call('PUT', '/api/admin/groups/999999', { name: uniqueName('g') }), 404, 'NotFoundError')
    expectProblem(await call('GET', '/api/admin/groups/999999'), 404, 'NotFoundError')
    expectProblem(await call('DELETE', '/api/admin/groups/999999'), 404, 'NotFoundError')
    expectProblem(await call('GET', '/api/admin/groups/abc'), 400, 'BadDataError')
    expect(await databaseFingerprint(t.database.db)).toEqual(afterOther)
    expect(before).not.toEqual(afterOther)
    expect(existing.name).toBe(name)
  })

  it('deleting a group records group-deleted with its members, and its members lose what it gave', async () => {
    const person = await signedIn(t, base, 'Viewer')
    const group = json(await call('POST', '/api/admin/groups', { name: uniqueName('admins'), rootRole: 1, users: [{ user: { id: person.id } }] }))
    expect((await person.browser.fetch('/api/admin/user-admin')).status).toBe(200)
    expect((await call('DELETE', `/api/admin/groups/${group.id}`)).statusCode).toBe(200)
    expect((await person.browser.fetch('/api/admin/user-admin')).status).toBe(403)
    const [event] = await groupEvents('group-deleted')
    expect(event!.preData).toMatchObject({ id: group.id, rootRole: 1, users: [person.id] })
    expect(await t.database.db.selectFrom('group_users').selectAll().where('group_id', '=', group.id).execute()).toEqual([])
  })
})

describe('the roles of groups in projects', () => {
  it('a group made Member of a project lets its members write there only; the project\'s access lists the group; taking the role away ends it', async () => {
    const project = uniqueName('p')
    expect((await call('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(201)
    const person = await signedIn(t, base, 'Viewer')
    const group = json(await call('POST', '/api/admin/groups', { name: uniqueName('proj'), users: [{ user: { id: person.id } }] }))
    const write = (p: string) => person.browser.json('POST', `/api/admin/projects/${p}/features`, { name: uniqueName('f') })
    expect((await write(project)).status).toBe(403)

    expect((await call('PUT', `/api/admin/projects/${project}/groups/${group.id}/roles`, { roles: [5] })).statusCode).toBe(200)
    expect((await write(project)).status).toBe(201)
    expect((await write('default')).status).toBe(403)
    const me = await (await person.browser.fetch('/api/admin/user')).json() as any
    expect(me.permissions).toContainEqual({ permission: 'CREATE_FEATURE', project })
    const access = json(await call('GET', `/api/admin/projects/${project}/access`))
    expect(access.groups).toEqual([{ id: group.id, name: group.name, description: null, mappingsSSO: [], rootRole: null, roleId: 5, roles: [5], addedAt: expect.any(String) }])
    expect(json(await call('GET', `/api/admin/groups/${group.id}`)).projects).toEqual([project])
    const [updated] = await groupEvents('project-access-group-roles-updated')
    expect(updated).toEqual({ project, data: { groupId: group.id, roles: [5] }, preData: { groupId: group.id, roles: [] } })

    const before = await databaseFingerprint(t.database.db)
    expectProblem(await call('PUT', `/api/admin/projects/${project}/groups/${group.id}/roles`, { roles: [1] }), 400, 'BadDataError')
    expectProblem(await call('PUT', `/api/admin/projects/no-such-project/groups/${group.id}/roles`, { roles: [5] }), 404, 'NotFoundError')
    expectProblem(await call('PUT', `/api/admin/projects/${project}/groups/999999/roles`, { roles: [5] }), 404, 'NotFoundError')
    expectProblem(await call('DELETE', `/api/admin/projects/default/groups/${group.id}/roles`), 404, 'NotFoundError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)

    expect((await call('DELETE', `/api/admin/projects/${project}/groups/${group.id}/roles`)).statusCode).toBe(200)
    expect((await write(project)).status).toBe(403)
    const [deleted] = await groupEvents('project-access-group-roles-deleted')
    expect(deleted).toEqual({ project, data: null, preData: { groupId: group.id, roles: [5] } })
  })
})

describe('who may manage groups', () => {
  it('Admins only: an Editor and a Viewer get 403, and read no group', async () => {
    for (const role of ['Editor', 'Viewer'] as const) {
      const person = await signedIn(t, base, role)
      expect((await person.browser.fetch('/api/admin/groups')).status).toBe(403)
      expect((await person.browser.json('POST', '/api/admin/groups', { name: uniqueName('g') })).status).toBe(403)
    }
  })

  it('group events are seen only by Admins', async () => {
    expect((await call('POST', '/api/admin/groups', { name: uniqueName('seen') })).statusCode).toBe(201)
    const viewer = await signedIn(t, base, 'Viewer')
    const res = await viewer.browser.fetch('/api/admin/events?type=group-created')
    expect(res.status).toBe(200)
    expect((await res.json() as any).events).toEqual([])
    expect(json(await call('GET', '/api/admin/events?type=group-created')).events.length).toBeGreaterThan(0)
  })
})
