import { type ExpressionBuilder, sql, type Transaction } from 'kysely'
import { isForeignKeyViolation, isUniqueViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import type { ProjectRoleName, RootRoleName } from '../vocabulary/roles.js'
import { nameExists, notFound } from '../errors.js'
import { highestRootRole, type Person } from './roles.js'

/** A user as the API shows them (never the password hash). */
export interface User {
  id: number
  username: string | null
  email: string | null
  name: string | null
  rootRole: RootRoleName
  createdAt: Date
  seenAt: Date | null
  hasPassword: boolean
}

const userColumns = ['id', 'username', 'email', 'name', 'root_role', 'created_at', 'seen_at'] as const

type UserRow = {
  id: number
  username: string | null
  email: string | null
  name: string | null
  root_role: RootRoleName
  created_at: Date
  seen_at: Date | null
  has_password: boolean
}

const hasPassword = (eb: ExpressionBuilder<DB, 'users'>) => eb('password_hash', 'is not', null).$castTo<boolean>().as('has_password')

const toUser = (row: UserRow): User => ({
  id: row.id,
  username: row.username,
  email: row.email,
  name: row.name,
  rootRole: row.root_role,
  createdAt: row.created_at,
  seenAt: row.seen_at,
  hasPassword: row.has_password,
})

/**
 * The project roles of the users of `users.id`, their own and their groups', as
 * `{project: role}` (PostgreSQL builds it; Member is the only project role, so a project named
 * twice holds the same role).
 */
const projectRolesOf = (eb: ExpressionBuilder<DB, 'users'>) =>
  eb
    .selectFrom(
      eb.selectFrom('project_roles').select(['project_roles.project_id', 'project_roles.role']).whereRef('project_roles.user_id', '=', 'users.id')
        .unionAll(
          eb.selectFrom('group_project_roles')
            .innerJoin('group_users', 'group_users.group_id', 'group_project_roles.group_id')
            .select(['group_project_roles.project_id', 'group_project_roles.role'])
            .whereRef('group_users.user_id', '=', 'users.id')
        )
        .as('held')
    )
    .select(sql<Record<string, ProjectRoleName>>`coalesce(jsonb_object_agg(held.project_id, held.role), '{}'::jsonb)`.as('roles'))
    .as('project_roles')

/** The root roles the groups of `users.id` give their members. */
const groupRootRolesOf = (eb: ExpressionBuilder<DB, 'users'>) =>
  eb
    .selectFrom('group_users')
    .innerJoin('groups', 'groups.id', 'group_users.group_id')
    .select(sql<RootRoleName[]>`coalesce(array_agg(groups.root_role) FILTER (WHERE groups.root_role IS NOT NULL), '{}')`.as('roles'))
    .whereRef('group_users.user_id', '=', 'users.id')
    .as('group_root_roles')

/** The columns toPerson reads, for a statement on `users` (alone or joined). */
export const personColumns = ['users.id', 'users.username', 'users.email', 'users.name', 'users.root_role', projectRolesOf, groupRootRolesOf] as const

export const toPerson = (row: { id: number; username: string | null; email: string | null; name: string | null; root_role: RootRoleName; project_roles: Record<string, ProjectRoleName> | null; group_root_roles: RootRoleName[] | null }): Person => ({
  id: row.id,
  username: row.username,
  email: row.email,
  name: row.name,
  rootRole: highestRootRole(row.root_role, row.group_root_roles ?? []),
  projectRoles: row.project_roles ?? {},
})

export interface NewUser {
  username?: string
  email?: string
  name?: string
  rootRole: RootRoleName
  passwordHash?: string
}

function uniqueName (user: { username?: string | null; email?: string | null }) {
  return nameExists(`A user with this ${user.email ? 'username or email' : 'username'} already exists`)
}

export async function insertUser (trx: Transaction<DB>, user: NewUser): Promise<User> {
  try {
    const row = await trx
      .insertInto('users')
      .values({
        username: user.username ?? null,
        email: user.email ?? null,
        name: user.name ?? null,
        root_role: user.rootRole,
        password_hash: user.passwordHash ?? null,
      })
      .returning([...userColumns, hasPassword])
      .executeTakeFirstOrThrow()
    return toUser(row)
  } catch (error) {
    if (isUniqueViolation(error)) throw uniqueName(user)
    throw error
  }
}

export async function findUser (db: Queryable, id: number): Promise<User | undefined> {
  const row = await db.selectFrom('users').select([...userColumns, hasPassword]).where('id', '=', id).executeTakeFirst()
  return row && toUser(row)
}

/** The user, locked until the transaction ends (updates and deletes serialise on it). */
export async function lockUser (trx: Transaction<DB>, id: number): Promise<User> {
  const row = await trx.selectFrom('users').select([...userColumns, hasPassword]).where('id', '=', id).forUpdate().executeTakeFirst()
  if (!row) throw notFound(`User ${id} does not exist`)
  return toUser(row)
}

export async function listUsers (db: Queryable): Promise<User[]> {
  const rows = await db.selectFrom('users').select([...userColumns, hasPassword]).orderBy('id').execute()
  return rows.map(toUser)
}

/** `%`, `_` and `\` stand for themselves in a LIKE pattern. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

export async function searchUsers (db: Queryable, query: string, limit: number): Promise<User[]> {
  const pattern = `%${likeLiteral(query)}%`
  const rows = await db
    .selectFrom('users')
    .select([...userColumns, hasPassword])
    .where((eb) => eb.or([eb('username', 'ilike', pattern), eb('email', 'ilike', pattern), eb('name', 'ilike', pattern)]))
    .orderBy('id')
    .limit(limit)
    .execute()
  return rows.map(toUser)
}

/** Changes the columns given; with none (an empty update, which Unleash answers 200) it reads the user as they are. */
export async function updateUser (trx: Transaction<DB>, id: number, changes: { email?: string; name?: string; rootRole?: RootRoleName }): Promise<User> {
  const columns = {
    ...(changes.email !== undefined && { email: changes.email }),
    ...(changes.name !== undefined && { name: changes.name }),
    ...(changes.rootRole !== undefined && { root_role: changes.rootRole }),
  }
  if (Object.keys(columns).length === 0) return lockUser(trx, id)
  try {
    const row = await trx
      .updateTable('users')
      .set(columns)
      .where('id', '=', id)
      .returning([...userColumns, hasPassword])
      .executeTakeFirstOrThrow()
    return toUser(row)
  } catch (error) {
    if (isUniqueViolation(error)) throw nameExists('A user with this email already exists')
    throw error
  }
}

export async function deleteUser (trx: Transaction<DB>, id: number): Promise<void> {
  await trx.deleteFrom('users').where('id', '=', id).execute()
}

export async function setPasswordHash (db: Queryable, id: number, hash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: hash }).where('id', '=', id).execute()
}

/**
 * Locks every Admin's row and counts them: a transaction that demotes or deletes one holds
 * these locks to its commit, so two of them cannot each leave the other as the last Admin.
 */
export async function lockAdmins (trx: Transaction<DB>): Promise<number[]> {
  const rows = await trx.selectFrom('users').select('id').where('root_role', '=', 'Admin').orderBy('id').forUpdate().execute()
  return rows.map((r) => r.id)
}

/** Who may log in with this name (a username or an email, without case), with the stored hash. */
export async function findLogin (db: Queryable, login: string) {
  const row = await db
    .selectFrom('users')
    .select(['id', 'username', 'email', 'name', 'root_role', 'password_hash'])
    .where((eb) => eb.or([eb(eb.fn('lower', ['username']), '=', login.toLowerCase()), eb(eb.fn('lower', ['email']), '=', login.toLowerCase())]))
    .executeTakeFirst()
  return row
}

export async function passwordHashOf (db: Queryable, id: number): Promise<string | null> {
  const row = await db.selectFrom('users').select('password_hash').where('id', '=', id).executeTakeFirst()
  return row?.password_hash ?? null
}

export async function markSeen (db: Queryable, id: number): Promise<void> {
  await db.updateTable('users').set({ seen_at: sql<Date>`now()` }).where('id', '=', id).execute()
}

export async function anyUserExists (db: Queryable): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined
}

export async function personById (db: Queryable, id: number): Promise<Person | undefined> {
  const row = await db
    .selectFrom('users')
    .select(personColumns)
    .where('id', '=', id)
    .executeTakeFirst()
  return row && toPerson(row)
}

/** The users with a role in a project, with it. */
export async function projectMembers (db: Queryable, project: string) {
  const rows = await db
    .selectFrom('project_roles')
    .innerJoin('users', 'users.id', 'project_roles.user_id')
    .select(['users.id', 'users.username', 'users.email', 'users.name', 'project_roles.role', 'project_roles.created_at'])
    .where('project_roles.project_id', '=', project)
    .orderBy('users.id')
    .execute()
  return rows
}

export async function findProjectRole (trx: Transaction<DB>, userId: number, project: string): Promise<ProjectRoleName | undefined> {
  const row = await trx.selectFrom('project_roles').select('role').where('user_id', '=', userId).where('project_id', '=', project).executeTakeFirst()
  return row?.role
}

export async function setProjectRole (trx: Transaction<DB>, userId: number, project: string, role: ProjectRoleName): Promise<void> {
  try {
    await trx
      .insertInto('project_roles')
      .values({ user_id: userId, project_id: project, role })
      .onConflict((oc) => oc.columns(['user_id', 'project_id']).doUpdateSet({ role }))
      .execute()
  } catch (error) {
    // The project went away meanwhile.
    if (isForeignKeyViolation(error)) throw notFound(`Project ${project} does not exist`)
    throw error
  }
}

export async function deleteProjectRole (trx: Transaction<DB>, userId: number, project: string): Promise<boolean> {
  const result = await trx.deleteFrom('project_roles').where('user_id', '=', userId).where('project_id', '=', project).executeTakeFirst()
  return result.numDeletedRows > 0n
}

export async function projectExists (db: Queryable, project: string): Promise<boolean> {
  return (await db.selectFrom('projects').select('id').where('id', '=', project).executeTakeFirst()) !== undefined
}

/** The groups with a role in a project, with it (Unleash Enterprise's project access lists them beside the users). */
export async function projectGroups (db: Queryable, project: string) {
  return db
    .selectFrom('group_project_roles')
    .innerJoin('groups', 'groups.id', 'group_project_roles.group_id')
    .select(['groups.id', 'groups.name', 'groups.description', 'groups.mappings_sso', 'groups.root_role', 'group_project_roles.role', 'group_project_roles.created_at'])
    .where('group_project_roles.project_id', '=', project)
    .orderBy('groups.id')
    .execute()
}

/** `days` days before now, as PostgreSQL computes it (bound as a number). */
const daysAgo = (days: number) => sql<Date>`now() - ${days} * interval '1 day'`

/**
 * Users neither seen (a login), created, nor using a personal access token within `days` days
 * (Unleash's USER_INACTIVITY_THRESHOLD_IN_DAYS), each with their tokens' last use; `ids` limits
 * it to those users.
 */
export async function listInactiveUsers (db: Queryable, days: number, ids?: number[]) {
  let query = db
    .selectFrom('users')
    .leftJoin('personal_access_tokens as pat', 'pat.user_id', 'users.id')
    .select(['users.id', 'users.name', 'users.username', 'users.email', 'users.seen_at', 'users.created_at', (eb) => eb.fn.max('pat.seen_at').as('pat_seen_at')])
    .where((eb) => eb.or([eb('users.seen_at', 'is', null), eb('users.seen_at', '<', daysAgo(days))]))
    .where('users.created_at', '<', daysAgo(days))
    .groupBy('users.id')
    .having((eb) => eb.or([eb(eb.fn.max('pat.seen_at'), 'is', null), eb(eb.fn.max('pat.seen_at'), '<', daysAgo(days))]))
    .orderBy('users.id')
  if (ids !== undefined) query = query.where('users.id', 'in', ids.length > 0 ? ids : [0])
  return query.execute()
}

/** Every user's name and login, and every group with its member count and root role (for pickers). */
export async function usersAndGroups (db: Queryable) {
  const [users, groups] = await Promise.all([
    db.selectFrom('users').select(['id', 'name', 'username', 'email']).orderBy('id').execute(),
    db
      .selectFrom('groups')
      .select(['groups.id', 'groups.name', 'groups.root_role', (eb) => eb.selectFrom('group_users').select((e) => e.fn.countAll<string>().as('n')).whereRef('group_users.group_id', '=', 'groups.id').as('user_count')])
      .orderBy('groups.id')
      .execute(),
  ])
  return { users, groups }
}

/** The users whose own root role is Admin, with and without a password. */
export async function countAdmins (db: Queryable): Promise<{ password: number; noPassword: number }> {
  const row = await db
    .selectFrom('users')
    .select([
      sql<string>`count(*) FILTER (WHERE password_hash IS NOT NULL)`.as('password'),
      sql<string>`count(*) FILTER (WHERE password_hash IS NULL)`.as('no_password'),
    ])
    .where('root_role', '=', 'Admin')
    .executeTakeFirstOrThrow()
  return { password: Number(row.password), noPassword: Number(row.no_password) }
}

/** The user a login name (a username or an email, without case) names, if any. */
export async function findUserByLogin (db: Queryable, login: string): Promise<User | undefined> {
  const lower = login.trim().toLowerCase()
  const row = await db
    .selectFrom('users')
    .select([...userColumns, hasPassword])
    .where((eb) => eb.or([eb(eb.fn('lower', ['username']), '=', lower), eb(eb.fn('lower', ['email']), '=', lower)]))
    .executeTakeFirst()
  return row && toUser(row)
}

/** The users of these ids (those that still exist), by id. */
export async function usersByIds (db: Queryable, ids: number[]): Promise<Map<number, User>> {
  if (ids.length === 0) return new Map()
  const rows = await db.selectFrom('users').select([...userColumns, hasPassword]).where('id', 'in', ids).execute()
  return new Map(rows.map((row) => [row.id, toUser(row)]))
}
