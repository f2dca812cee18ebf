import type { Database } from '../db/types.js'
import { ApiError, badData, notFound } from '../errors.js'
import { type Change, withChange, writeChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { userKey } from './login-limits.js'
import { countAttempt, forgiveAttempt } from './login-limits.store.js'
import type { PasswordHasher } from './password-hash.js'
import { checkPassword } from './passwords.js'
import { addResetLink } from './reset-links.js'
import { type Person, ROLES, roleById, roleByName } from './roles.js'
import { deleteSessionsOf, sessionHash } from './sessions.store.js'
import { ROLE_IDS, type RootRoleName } from '../vocabulary/roles.js'
import {
  anyUserExists,
  countAdmins,
  deleteProjectRole,
  deleteUser,
  findProjectRole,
  findUser,
  insertUser,
  listInactiveUsers,
  listUsers,
  lockAdmins,
  lockUser,
  passwordHashOf,
  projectExists,
  projectGroups,
  projectMembers,
  searchUsers as searchUserRows,
  setPasswordHash,
  setProjectRole,
  type User,
  updateUser as updateUserRow,
  usersAndGroups as usersAndGroupRows,
} from './users.store.js'

/** What user changes need besides the database: the password hasher and the login limits. */
export interface PeopleContext {
  db: Database
  hasher: PasswordHasher
  sessions: { idleMs: number; maxAgeMs: number }
  loginLimits: { perAccount: number; perAddress: number; windowMs: number }
  /** UNLEASH_URL without a trailing slash: where reset and invitation links lead (absent: the request's own origin). */
  publicUrl?: string
  /** Password login as an Admin set it (absent: always on). */
  passwordLogin?: PasswordLoginPolicy
  /**
   * Where a browser goes after logging out of this session, when single sign-on opened it and
   * ends the provider's session too (absent, or undefined: /signed-out). Asked before the
   * session ends.
   */
  signOutLocation?: (sessionId: string, origin: string) => Promise<string | undefined>
}

export interface PasswordLoginPolicy {
  /** Whether an Admin turned password login off. */
  disabled(): Promise<boolean>
  /** The username or email of the break-glass admin (UNLEASH_DEFAULT_ADMIN_USERNAME), who may use a password all the same. */
  breakGlass: string | undefined
}

/** A user as the API shows them, in Unleash's shape (rootRole as its id). */
export const userInfo = (user: User) => ({
  id: user.id,
  name: user.name,
  ...(user.email !== null && { email: user.email }),
  username: user.username,
  rootRole: ROLE_IDS[user.rootRole],
  createdAt: user.createdAt,
  seenAt: user.seenAt,
  accountType: 'User' as const,
})

/** What events record of a user: never a password or its hash. */
export const auditOf = (user: User) => toJsonText({ id: user.id, username: user.username, email: user.email, name: user.name, rootRole: user.rootRole })

const rootRoles = ROLES.filter((r) => r.type === 'root')

export async function users (db: Database) {
  return { users: (await listUsers(db)).map(userInfo), rootRoles }
}

/** Users whose username, email or name holds `q` (at least 2 characters, as Unleash; else none). */
export async function searchUsers (db: Database, q: string | undefined) {
  if (q === undefined || q.length < 2) return []
  return (await searchUserRows(db, q, 100)).map(userInfo)
}

export async function user (db: Database, id: number) {
  const found = await findUser(db, id)
  if (!found) throw notFound(`User ${id} does not exist`)
  return found
}

/** A root role given as Unleash's id or name. */
export function rootRoleOf (role: number | string): RootRoleName {
  const found = typeof role === 'number' ? roleById(role) : ROLES.find((r) => r.name === role)
  if (!found || found.type !== 'root') {
    throw badData(`rootRole ${role} is not a root role (Admin or 1, Editor or 2, Viewer or 3)`, [{ path: '/body/rootRole', message: 'must be Admin (1), Editor (2) or Viewer (3)' }])
  }
  return found.name as RootRoleName
}

export interface NewUserBody {
  username?: string
  email?: string
  name?: string
  password?: string
  rootRole: number | string
}

/**
 * Creates a user (user-created). The password, when given, must follow the rules; it is hashed
 * before the transaction. Without one, and with password login on, the user gets an invitation
 * link on `base` (/new-user?token=…, 24 hours, used once) for an Admin to hand on, as Unleash
 * answers it (no mail is sent).
 */
export async function createUser (ctx: PeopleContext, body: NewUserBody, author: Author, base: string): Promise<{ user: User; inviteLink?: string }> {
  if (body.username === undefined && body.email === undefined) {
    throw badData('A user needs a username or an email (or both)', [{ path: '/body', message: 'must have username or email' }])
  }
  const rootRole = rootRoleOf(body.rootRole)
  if (body.password !== undefined) checkPassword(body.password, body)
  const passwordHash = body.password === undefined ? undefined : await ctx.hasher.hash(body.password)
  const invite = passwordHash === undefined && !(await ctx.passwordLogin?.disabled())
  return writeChange(ctx.db, async (change) => {
    const created = await insertUser(change.trx, { username: body.username, email: body.email, name: body.name, rootRole, passwordHash })
    change.record({ type: 'user-created', createdBy: author, data: auditOf(created) })
    if (!invite) return { user: created }
    return { user: created, inviteLink: await addResetLink(change, created.id, 'invite', base, author.name) }
  })
}

/**
 * Creates a user in a caller's change (single sign-on's first sign-in, without a password; a
 * sign-up with an invite link, with one hashed already): user-created.
 */
export async function addUserIn (change: Change, user: { email: string; username?: string; name?: string; rootRole: RootRoleName; passwordHash?: string }, author: Author): Promise<User> {
  const created = await insertUser(change.trx, { email: user.email, username: user.username, name: user.name, rootRole: user.rootRole, passwordHash: user.passwordHash })
  change.record({ type: 'user-created', createdBy: author, data: auditOf(created) })
  return created
}

/**
 * 400 when a change would leave no Admin: the last one may be neither demoted nor deleted.
 * `admins` are the Admins' ids, locked (lockAdmins) before the user was: every such change
 * takes the locks in one order (the Admins by id, then its user), so two of them (each
 * demoting the other) queue instead of deadlocking, and the second sees the first's result.
 */
function keepAnAdmin (admins: number[], user: User) {
  if (user.rootRole === 'Admin' && admins.length <= 1) {
    throw badData(`User ${user.id} is the last Admin: make another user Admin first`)
  }
}

/** Changes a user's email, name or root role (user-updated); the last Admin keeps the role. */
export function updateUser (writer: Writer, id: number, body: { email?: string; name?: string; rootRole?: number | string }, author: Author) {
  const rootRole = body.rootRole === undefined ? undefined : rootRoleOf(body.rootRole)
  return withChange(writer, async ({ trx, record }) => {
    const admins = rootRole === undefined ? [] : await lockAdmins(trx)
    const current = await lockUser(trx, id)
    if (rootRole !== undefined && rootRole !== current.rootRole) keepAnAdmin(admins, current)
    const updated = await updateUserRow(trx, id, { email: body.email, name: body.name, rootRole })
    const [before, after] = [auditOf(current), auditOf(updated)]
    if (before !== after) record({ type: 'user-updated', createdBy: author, data: after, preData: before })
    return updated
  })
}

/** Deletes a user (user-deleted): their sessions and personal access tokens end with them. */
export function removeUser (writer: Writer, id: number, author: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const admins = await lockAdmins(trx)
    const current = await lockUser(trx, id)
    keepAnAdmin(admins, current)
    await deleteUser(trx, id)
    record({ type: 'user-deleted', createdBy: author, preData: auditOf(current) })
  })
}

/**
 * Sets a user's password (user-updated, with `passwordChanged`) and ends every session of
 * theirs but `keepSession` (the one that asked, when they changed their own).
 */
export async function setPassword (ctx: PeopleContext, id: number, password: string, author: Author, keepSession?: string) {
  const target = await user(ctx.db, id)
  checkPassword(password, target)
  const hash = await ctx.hasher.hash(password)
  await writeChange(ctx.db, async ({ trx, record }) => {
    const current = await lockUser(trx, id)
    await setPasswordHash(trx, id, hash)
    await deleteSessionsOf(trx, id, keepSession === undefined ? undefined : sessionHash(keepSession))
    record({ type: 'user-updated', createdBy: author, data: toJsonText({ ...JSON.parse(auditOf(current)), passwordChanged: true }) })
  })
}

/**
 * A person changes their own password: the old one must be right (each wrong guess counts
 * against their account's login limit, as a failed login does), the confirmation, when
 * sent, must match.
 */
export async function changeOwnPassword (ctx: PeopleContext, person: Person, body: { password: string; confirmPassword?: string; oldPassword: string }, keepSession: string | undefined, author: Author) {
  if (body.confirmPassword !== undefined && body.confirmPassword !== body.password) {
    throw badData('The password and its confirmation differ', [{ path: '/body/confirmPassword', message: 'must equal password' }])
  }
  const key = userKey(person.id)
  const [count] = await countAttempt(ctx.db, [key], ctx.loginLimits.windowMs)
  if (count && count.failures > ctx.loginLimits.perAccount) throw tooManyAttempts(count.leftMs)
  const { ok } = await ctx.hasher.verify(body.oldPassword, await passwordHashOf(ctx.db, person.id))
  if (!ok) throw new ApiError('PasswordMismatch', 'The old password is not right')
  await forgiveAttempt(ctx.db, key)
  await setPassword(ctx, person.id, body.password, author, keepSession)
}

export const tooManyAttempts = (leftMs: number) =>
  new ApiError('TooManyRequestsError', 'Too many failed attempts; try again later', undefined, { 'retry-after': String(Math.max(1, Math.ceil(leftMs / 1000))) })

/** The users with a role in a project (Unleash Enterprise's shape of a project's access). */
export async function projectAccess (db: Database, project: string) {
  if (!(await projectExists(db, project))) throw notFound(`Project ${project} does not exist`)
  const [members, groups] = await Promise.all([projectMembers(db, project), projectGroups(db, project)])
  return {
    roles: ROLES.filter((r) => r.type === 'project'),
    users: members.map((m) => ({
      id: m.id,
      name: m.name,
      ...(m.email !== null && { email: m.email }),
      username: m.username,
      roles: [ROLE_IDS[m.role]],
      addedAt: m.created_at,
    })),
    groups: groups.map((g) => ({
      id: g.id,
      name: g.name,
      description: g.description,
      mappingsSSO: g.mappings_sso,
      rootRole: g.root_role === null ? null : ROLE_IDS[g.root_role],
      roleId: ROLE_IDS[g.role],
      roles: [ROLE_IDS[g.role]],
      addedAt: g.created_at,
    })),
  }
}

/**
 * Gives a user a role in a project, or none (`roles: []`), recording
 * project-access-user-roles-updated when that changes anything. 404 for an unknown project or
 * user; 400 for a role that is not a project role.
 */
export function setProjectRoles (writer: Writer, project: string, userId: number, roles: number[], author: Author) {
  const wanted = roles.map((id) => {
    const role = roleById(id)
    if (!role || role.type !== 'project') {
      throw badData(`Role ${id} is not a project role (Member is ${ROLE_IDS.Member})`, [{ path: '/body/roles', message: `must hold project role ids (${ROLE_IDS.Member})` }])
    }
    return role
  })
  return withChange(writer, async ({ trx, record }) => {
    if (!(await projectExists(trx, project))) throw notFound(`Project ${project} does not exist`)
    await lockUser(trx, userId)
    const before = await findProjectRole(trx, userId, project)
    const after = wanted[0]?.name
    if (before === after) return
    if (after === undefined) await deleteProjectRole(trx, userId, project)
    else await setProjectRole(trx, userId, project, roleByName(after).name as 'Member')
    record({
      type: 'project-access-user-roles-updated',
      createdBy: author,
      project,
      data: toJsonText({ userId, roles: after === undefined ? [] : [ROLE_IDS[after]] }),
      preData: toJsonText({ userId, roles: before === undefined ? [] : [ROLE_IDS[before]] }),
    })
  })
}

/** Removes a user's role in a project (project-access-user-roles-deleted); 404 when they have none. */
export function removeProjectRoles (writer: Writer, project: string, userId: number, author: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const before = await findProjectRole(trx, userId, project)
    if (before === undefined || !(await deleteProjectRole(trx, userId, project))) {
      throw notFound(`User ${userId} has no role in project ${project}`)
    }
    record({ type: 'project-access-user-roles-deleted', createdBy: author, project, preData: toJsonText({ userId, roles: [ROLE_IDS[before]] }) })
  })
}

/**
 * The first admin, when no user exists yet (so restarts, and instances starting together,
 * create it at most once). Returns whether it was created. The password must follow the rules.
 */
export async function ensureFirstAdmin (ctx: PeopleContext, login: { username: string; password: string }): Promise<boolean> {
  const asEmail = login.username.includes('@')
  const fields = asEmail ? { email: login.username } : { username: login.username }
  checkPassword(login.password, fields, 'UNLEASH_DEFAULT_ADMIN_PASSWORD')
  if (await anyUserExists(ctx.db)) return false
  const passwordHash = await ctx.hasher.hash(login.password)
  try {
    return await writeChange(ctx.db, async ({ trx, record }) => {
      if (await anyUserExists(trx)) return false
      const created = await insertUser(trx, { ...fields, rootRole: 'Admin', passwordHash })
      record({ type: 'user-created', createdBy: { name: 'system' }, data: auditOf(created) })
      return true
    })
  } catch (error) {
    // Another instance created it meanwhile.
    if (error instanceof ApiError && error.errorName === 'NameExistsError') return false
    throw error
  }
}

/** Users not seen for `days` days (Unleash's shape: `{version: 1, inactiveUsers}`). */
export async function inactiveUsers (db: Database, days: number) {
  const rows = await listInactiveUsers(db, days)
  return {
    version: 1 as const,
    inactiveUsers: rows.map((r) => ({
      id: r.id,
      name: r.name,
      ...(r.email !== null && { email: r.email }),
      username: r.username,
      seenAt: r.seen_at,
      createdAt: r.created_at,
      patSeenAt: r.pat_seen_at,
    })),
  }
}

/**
 * Deletes inactive users, in one change (user-deleted each): the caller is skipped (as
 * Unleash), ids named twice count once, an unknown id is 404 and a user who is not inactive
 * (seen since the list was read) 400, with nothing deleted; the last Admin stays.
 */
export function deleteInactiveUsers (writer: Writer, ids: number[], days: number, callerId: number | undefined, author: Author) {
  const wanted = [...new Set(ids)].filter((id) => id !== callerId).sort((a, b) => a - b)
  return withChange(writer, async ({ trx, record }) => {
    if (wanted.length === 0) return
    // The Admins first, then the users in id order: the lock order of every user change.
    const admins = await lockAdmins(trx)
    const locked: User[] = []
    for (const id of wanted) locked.push(await lockUser(trx, id))
    const inactive = new Set((await listInactiveUsers(trx, days, wanted)).map((r) => r.id))
    let adminsLeft = admins.length
    for (const current of locked) {
      if (!inactive.has(current.id)) {
        throw badData(`User ${current.id} is not inactive (seen, created or using a personal access token within ${days} days)`, [{ path: '/body/ids', message: `user ${current.id} is not inactive` }])
      }
      if (current.rootRole === 'Admin' && --adminsLeft < 1) throw badData(`User ${current.id} is the last Admin: make another user Admin first`)
      await deleteUser(trx, current.id)
      record({ type: 'user-deleted', createdBy: author, preData: auditOf(current) })
    }
  })
}

/** Every user and group, briefly, for pickers (Unleash's `/user-admin/access`). */
export async function usersAndGroups (db: Database) {
  const { users, groups } = await usersAndGroupRows(db)
  return {
    users: users.map((u) => ({ id: u.id, name: u.name, username: u.username, ...(u.email !== null && { email: u.email }), accountType: 'User' as const })),
    groups: groups.map((g) => ({ id: g.id, name: g.name, userCount: Number(g.user_count ?? 0), rootRole: g.root_role === null ? null : ROLE_IDS[g.root_role] })),
  }
}

/** How many users hold the Admin root role, with and without a password (no service accounts here). */
export async function adminCount (db: Database) {
  return { ...(await countAdmins(db)), service: 0 }
}
