import type { Database, Queryable } from '../db/types.js'
import { badData, notFound } from '../errors.js'
import { type Change, readerOf, withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { roleById } from '../users/roles.js'
import { ROLE_IDS, rootRoleById } from '../vocabulary/roles.js'
import { userInfo } from '../users/users.service.js'
import {
  addMembers,
  deleteGroup,
  deleteGroupProjectRole,
  findGroupProjectRole,
  type GroupFields,
  groupMembers,
  groupProjects,
  type GroupRow,
  groupsMappedFrom,
  insertGroup,
  joinGroups,
  leaveGroups,
  listGroups,
  lockGroup,
  memberIds,
  membershipsOf,
  projectExists,
  removeMembers,
  setGroupProjectRole,
  SSO_SYNC,
  unknownUsers,
  updateGroup,
} from './groups.store.js'

/** A group as sent (Unleash's createGroupSchema, read-only members ignored). */
export interface GroupBody {
  name: string
  description?: string | null
  mappingsSSO?: string[]
  rootRole?: 1 | 2 | 3 | null
  users?: { user: { id: number } }[]
}

const fieldsOf = (body: GroupBody): GroupFields => ({
  name: body.name.trim(),
  description: body.description ?? null,
  mappingsSso: [...new Set(body.mappingsSSO ?? [])],
  rootRole: body.rootRole === undefined || body.rootRole === null ? null : rootRoleById(body.rootRole)!,
})

const userIdsOf = (body: GroupBody) => [...new Set((body.users ?? []).map((u) => u.user.id))].sort((a, b) => a - b)

/** What events record of a group (Unleash's shape: the members as ids). */
const auditOf = (group: GroupRow, users: number[]) =>
  toJsonText({
    id: group.id,
    name: group.name,
    description: group.description,
    mappingsSSO: group.mappingsSso,
    rootRole: group.rootRole === null ? null : ROLE_IDS[group.rootRole],
    users,
  })

/** 400 naming the users that do not exist, before anything is written. */
async function requireUsers (db: Queryable, ids: number[]) {
  const unknown = await unknownUsers(db, ids)
  if (unknown.length > 0) {
    throw badData(`No user has the id ${unknown.slice(0, 10).join(', ')}`, [{ path: '/body/users', message: `users ${unknown.slice(0, 10).join(', ')} do not exist` }])
  }
}

/** Groups as the API shows them: members (users in Unleash's shape), projects, counts. */
async function views (db: Queryable, groups: GroupRow[]) {
  const ids = groups.map((g) => g.id)
  const [members, projects] = await Promise.all([groupMembers(db, ids), groupProjects(db, ids)])
  return groups.map((group) => {
    const users = members.filter((m) => m.group_id === group.id).map((m) => ({
      joinedAt: m.joined_at,
      createdBy: m.added_by,
      user: userInfo({ id: m.id, username: m.username, email: m.email, name: m.name, rootRole: m.root_role, createdAt: m.created_at, seenAt: m.seen_at, hasPassword: m.has_password }),
    }))
    return {
      id: group.id,
      name: group.name,
      description: group.description,
      mappingsSSO: group.mappingsSso,
      rootRole: group.rootRole === null ? null : ROLE_IDS[group.rootRole],
      createdBy: group.createdBy,
      createdAt: group.createdAt,
      users,
      projects: projects.filter((p) => p.group_id === group.id).map((p) => p.project_id),
      userCount: users.length,
    }
  })
}

export async function groups (db: Database) {
  return { groups: await views(db, await listGroups(db)) }
}

export async function group (db: Queryable, id: number) {
  const [found] = await views(db, await listGroups(db, [id]))
  if (!found) throw notFound(`Group ${id} does not exist`)
  return found
}

/** Creates a group with its members (group-created, as Unleash: the members are in its data); returns it as GET shows it. */
export async function createGroup (writer: Writer, body: GroupBody, author: Author) {
  const fields = fieldsOf(body)
  const users = userIdsOf(body)
  const id = await withChange(writer, async ({ trx, record }) => {
    await requireUsers(trx, users)
    const created = await insertGroup(trx, fields, author.name)
    await addMembers(trx, created.id, users, author.name)
    record({ type: 'group-created', createdBy: author, data: auditOf(created, users) })
    return created.id
  })
  return group(readerOf(writer), id)
}

/**
 * Replaces a group: its name, description, mappings, root role and exactly these members
 * (group-updated, with the members before and after). Members who stay keep who added them
 * and when. Nothing changed records nothing.
 */
export async function replaceGroup (writer: Writer, id: number, body: GroupBody, author: Author) {
  const fields = fieldsOf(body)
  const users = userIdsOf(body)
  await withChange(writer, async ({ trx, record }) => {
    const before = await lockGroup(trx, id)
    await requireUsers(trx, users)
    const members = await memberIds(trx, id)
    const after = await updateGroup(trx, id, fields)
    await removeMembers(trx, id, members.filter((m) => !users.includes(m)))
    await addMembers(trx, id, users.filter((u) => !members.includes(u)), author.name)
    const [preData, data] = [auditOf(before, members), auditOf(after, users)]
    if (preData !== data) record({ type: 'group-updated', createdBy: author, data, preData })
  })
  return group(readerOf(writer), id)
}

/** Deletes a group (group-deleted): its members lose its root role and project roles at their next request. */
export function removeGroup (writer: Writer, id: number, author: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const before = await lockGroup(trx, id)
    const members = await memberIds(trx, id)
    await deleteGroup(trx, id)
    record({ type: 'group-deleted', createdBy: author, preData: auditOf(before, members) })
  })
}

/**
 * Group syncing at sign-in, in the sign-in's change: the user joins every group one of whose
 * SSO mappings is among `names` (the provider's groups), and leaves every group that group
 * syncing put them in and that no longer matches (memberships an Admin gave stay). Records
 * group-user-added and group-user-removed (Unleash's events).
 */
export async function syncUserGroups (change: Change, userId: number, names: string[], author: Author) {
  const { trx, record } = change
  const matching = await groupsMappedFrom(trx, names)
  const memberships = await membershipsOf(trx, userId)
  const held = new Set(memberships.map((m) => m.group_id))
  const added = await joinGroups(trx, userId, matching.filter((g) => !held.has(g)), SSO_SYNC)
  const stale = memberships.filter((m) => m.created_by === SSO_SYNC && !matching.includes(m.group_id)).map((m) => m.group_id)
  const removed = await leaveGroups(trx, userId, stale)
  for (const groupId of added) record({ type: 'group-user-added', createdBy: author, data: toJsonText({ groupId, userId }) })
  for (const groupId of removed) record({ type: 'group-user-removed', createdBy: author, preData: toJsonText({ groupId, userId }) })
}

/**
 * Gives a group a role in a project, or none (`roles: []`), recording
 * project-access-group-roles-updated when that changes anything. 404 for an unknown project
 * or group; 400 for a role that is not a project role.
 */
export function setGroupProjectRoles (writer: Writer, project: string, groupId: number, roles: number[], author: Author) {
  const wanted = roles.map((id) => {
    const role = roleById(id)
    if (!role || role.type !== 'project') {
      throw badData(`Role ${id} is not a project role (Member is ${ROLE_IDS.Member})`, [{ path: '/body/roles', message: `must hold project role ids (${ROLE_IDS.Member})` }])
    }
    return role
  })
  return withChange(writer, async ({ trx, record }) => {
    if (!(await projectExists(trx, project))) throw notFound(`Project ${project} does not exist`)
    await lockGroup(trx, groupId)
    const before = await findGroupProjectRole(trx, groupId, project)
    const after = wanted[0]?.name as 'Member' | undefined
    if (before === after) return
    if (after === undefined) await deleteGroupProjectRole(trx, groupId, project)
    else await setGroupProjectRole(trx, groupId, project, after)
    record({
      type: 'project-access-group-roles-updated',
      createdBy: author,
      project,
      data: toJsonText({ groupId, roles: after === undefined ? [] : [ROLE_IDS[after]] }),
      preData: toJsonText({ groupId, roles: before === undefined ? [] : [ROLE_IDS[before]] }),
    })
  })
}

/** Removes a group's role in a project (project-access-group-roles-deleted); 404 when it has none. */
export function removeGroupProjectRoles (writer: Writer, project: string, groupId: number, author: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const before = await findGroupProjectRole(trx, groupId, project)
    if (before === undefined || !(await deleteGroupProjectRole(trx, groupId, project))) {
      throw notFound(`Group ${groupId} has no role in project ${project}`)
    }
    record({ type: 'project-access-group-roles-deleted', createdBy: author, project, preData: toJsonText({ groupId, roles: [ROLE_IDS[before]] }) })
  })
}
