import { sql, type Transaction } from 'kysely'
import { isForeignKeyViolation, isUniqueViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import type { ProjectRoleName, RootRoleName } from '../vocabulary/roles.js'
import { nameExists, notFound } from '../errors.js'

/** Who added a membership that group syncing made, and alone takes away again (Unleash's name). */
export const SSO_SYNC = 'SSO'

export interface GroupRow {
  id: number
  name: string
  description: string | null
  mappingsSso: string[]
  rootRole: RootRoleName | null
  createdBy: string | null
  createdAt: Date
}

const groupColumns = ['id', 'name', 'description', 'mappings_sso', 'root_role', 'created_by', 'created_at'] as const

const toGroup = (row: { id: number; name: string; description: string | null; mappings_sso: string[]; root_role: RootRoleName | null; created_by: string | null; created_at: Date }): GroupRow => ({
  id: row.id,
  name: row.name,
  description: row.description,
  mappingsSso: row.mappings_sso,
  rootRole: row.root_role,
  createdBy: row.created_by,
  createdAt: row.created_at,
})

export interface GroupFields {
  name: string
  description: string | null
  mappingsSso: string[]
  rootRole: RootRoleName | null
}

const nameTaken = () => nameExists('Group name already exists')

export async function listGroups (db: Queryable, ids?: number[]): Promise<GroupRow[]> {
  let query = db.selectFrom('groups').select(groupColumns).orderBy('id')
  if (ids !== undefined) query = query.where('id', 'in', ids.length > 0 ? ids : [0])
  return (await query.execute()).map(toGroup)
}

/** The group, locked until the transaction ends (its changes serialise on it); 404 when there is none. */
export async function lockGroup (trx: Transaction<DB>, id: number): Promise<GroupRow> {
  const row = await trx.selectFrom('groups').select(groupColumns).where('id', '=', id).forUpdate().executeTakeFirst()
  if (!row) throw notFound(`Group ${id} does not exist`)
  return toGroup(row)
}

export async function insertGroup (trx: Transaction<DB>, fields: GroupFields, createdBy: string): Promise<GroupRow> {
  try {
    const row = await trx
      .insertInto('groups')
      .values({ name: fields.name, description: fields.description, mappings_sso: fields.mappingsSso, root_role: fields.rootRole, created_by: createdBy })
      .returning(groupColumns)
      .executeTakeFirstOrThrow()
    return toGroup(row)
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken()
    throw error
  }
}

export async function updateGroup (trx: Transaction<DB>, id: number, fields: GroupFields): Promise<GroupRow> {
  try {
    const row = await trx
      .updateTable('groups')
      .set({ name: fields.name, description: fields.description, mappings_sso: fields.mappingsSso, root_role: fields.rootRole })
      .where('id', '=', id)
      .returning(groupColumns)
      .executeTakeFirstOrThrow()
    return toGroup(row)
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken()
    throw error
  }
}

export async function deleteGroup (trx: Transaction<DB>, id: number): Promise<void> {
  await trx.deleteFrom('groups').where('id', '=', id).execute()
}

/** The members of these groups, each with the user as the API shows them. */
export async function groupMembers (db: Queryable, groupIds: number[]) {
  if (groupIds.length === 0) return []
  return db
    .selectFrom('group_users')
    .innerJoin('users', 'users.id', 'group_users.user_id')
    .select([
      'group_users.group_id', 'group_users.created_by as added_by', 'group_users.created_at as joined_at',
      'users.id', 'users.username', 'users.email', 'users.name', 'users.root_role', 'users.created_at', 'users.seen_at',
      (eb) => eb('users.password_hash', 'is not', null).$castTo<boolean>().as('has_password'),
    ])
    .where('group_users.group_id', 'in', groupIds)
    .orderBy('group_users.group_id')
    .orderBy('users.id')
    .execute()
}

/** The projects in which these groups hold a role. */
export async function groupProjects (db: Queryable, groupIds: number[]) {
  if (groupIds.length === 0) return []
  return db.selectFrom('group_project_roles').select(['group_id', 'project_id']).where('group_id', 'in', groupIds).orderBy('project_id').execute()
}

export async function memberIds (trx: Transaction<DB>, groupId: number): Promise<number[]> {
  const rows = await trx.selectFrom('group_users').select('user_id').where('group_id', '=', groupId).orderBy('user_id').execute()
  return rows.map((r) => r.user_id)
}

/** Of these user ids, those no user has. */
export async function unknownUsers (db: Queryable, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return []
  const found = new Set((await db.selectFrom('users').select('id').where('id', 'in', ids).execute()).map((r) => r.id))
  return ids.filter((id) => !found.has(id))
}

/** Adds members (those already in stay as they were); returns the ids added. */
export async function addMembers (trx: Transaction<DB>, groupId: number, userIds: number[], createdBy: string): Promise<number[]> {
  if (userIds.length === 0) return []
  try {
    const rows = await trx
      .insertInto('group_users')
      .values(userIds.map((userId) => ({ group_id: groupId, user_id: userId, created_by: createdBy })))
      .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
      .returning('user_id')
      .execute()
    return rows.map((r) => r.user_id)
  } catch (error) {
    // A user deleted meanwhile.
    if (isForeignKeyViolation(error)) throw notFound('A user of the group was deleted meanwhile; send the group again')
    throw error
  }
}

export async function removeMembers (trx: Transaction<DB>, groupId: number, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return
  await trx.deleteFrom('group_users').where('group_id', '=', groupId).where('user_id', 'in', userIds).execute()
}

/** The groups one of whose SSO mappings is among `names` (group syncing). */
export async function groupsMappedFrom (trx: Transaction<DB>, names: string[]): Promise<number[]> {
  if (names.length === 0) return []
  const rows = await trx.selectFrom('groups').select('id').where(sql<boolean>`mappings_sso && ${sql.val(names)}::text[]`).orderBy('id').execute()
  return rows.map((r) => r.id)
}

/** A user's memberships, with who added each. */
export async function membershipsOf (trx: Transaction<DB>, userId: number) {
  return trx.selectFrom('group_users').select(['group_id', 'created_by']).where('user_id', '=', userId).orderBy('group_id').execute()
}

/** Adds a user to groups (those they are in stay as they were); returns the groups they were added to. */
export async function joinGroups (trx: Transaction<DB>, userId: number, groupIds: number[], createdBy: string): Promise<number[]> {
  if (groupIds.length === 0) return []
  const rows = await trx
    .insertInto('group_users')
    .values(groupIds.map((groupId) => ({ group_id: groupId, user_id: userId, created_by: createdBy })))
    .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
    .returning('group_id')
    .execute()
  return rows.map((r) => r.group_id)
}

/** Takes a user out of groups; returns the groups they were taken out of. */
export async function leaveGroups (trx: Transaction<DB>, userId: number, groupIds: number[]): Promise<number[]> {
  if (groupIds.length === 0) return []
  const rows = await trx.deleteFrom('group_users').where('user_id', '=', userId).where('group_id', 'in', groupIds).returning('group_id').execute()
  return rows.map((r) => r.group_id)
}

export async function findGroupProjectRole (trx: Transaction<DB>, groupId: number, project: string): Promise<ProjectRoleName | undefined> {
  const row = await trx.selectFrom('group_project_roles').select('role').where('group_id', '=', groupId).where('project_id', '=', project).executeTakeFirst()
  return row?.role
}

export async function setGroupProjectRole (trx: Transaction<DB>, groupId: number, project: string, role: ProjectRoleName): Promise<void> {
  try {
    await trx
      .insertInto('group_project_roles')
      .values({ group_id: groupId, project_id: project, role })
      .onConflict((oc) => oc.columns(['group_id', 'project_id']).doUpdateSet({ role }))
      .execute()
  } catch (error) {
    // The project went away meanwhile.
    if (isForeignKeyViolation(error)) throw notFound(`Project ${project} does not exist`)
    throw error
  }
}

export async function deleteGroupProjectRole (trx: Transaction<DB>, groupId: number, project: string): Promise<boolean> {
  const result = await trx.deleteFrom('group_project_roles').where('group_id', '=', groupId).where('project_id', '=', project).executeTakeFirst()
  return result.numDeletedRows > 0n
}

export async function projectExists (db: Queryable, project: string): Promise<boolean> {
  return (await db.selectFrom('projects').select('id').where('id', '=', project).executeTakeFirst()) !== undefined
}
