import { randomBytes } from 'node:crypto'
import type { Transaction } from 'kysely'
import { every, type Worker } from '../background/worker.js'
import type { Database, DB } from '../db/types.js'
import { ApiError } from '../errors.js'
import { accountKey, addressKey } from './login-limits.js'
import { countAttempt, deleteOldFailures, forgiveAttempt } from './login-limits.store.js'
import { authorName, type Person } from './roles.js'
import { deleteExpiredResetTokens } from './reset-tokens.store.js'
import { deleteExpiredSessions, deleteSession, findSession, insertSession, sessionHash, touchSession, trimSessions } from './sessions.store.js'
import { type PeopleContext, tooManyAttempts, userInfo } from './users.service.js'
import { findUser, findLogin, markSeen, setPasswordHash } from './users.store.js'

/** A user keeps at most this many sessions; a new login ends the oldest beyond it. */
export const MAX_SESSIONS_PER_USER = 10

/** How often a session's last use is written: idle expiry is counted to this. */
export const touchInterval = (idleMs: number) => Math.min(60_000, Math.floor(idleMs / 4))

const wrongLogin = () =>
  new ApiError('PasswordMismatch', 'The combination of password and username you provided is invalid')

const passwordLoginOff = () =>
  new ApiError('DisabledError', 'Logging in with username/password has been disabled; sign in with single sign-on')

/** Whether a login row is the break-glass admin's (their username or email, without case). */
const isBreakGlass = (found: { username: string | null; email: string | null }, breakGlass: string | undefined) =>
  breakGlass !== undefined && [found.username, found.email].some((name) => name?.toLowerCase() === breakGlass.trim().toLowerCase())

/**
 * Logs a person in with a username or email and a password, and opens a session with a new id
 * (a session the request carried, `previous`, ends: the id changes at every login).
 *
 * Work is bounded before it is done: the attempt is counted first, atomically, against the
 * account name (known or not) and the source address, and a count over its limit is a 429
 * without a password check. A wrong password and an unknown name take the same path (a
 * lookup, one scrypt check against a hash of the same cost, the count kept) and get the same
 * 401. A successful login forgives its account's count and its own attempt at the address.
 */
export async function login (ctx: PeopleContext, body: { username: string; password: string }, source: { ip: string; previous?: string }) {
  const account = accountKey(body.username)
  const address = addressKey(source.ip)
  const counts = await countAttempt(ctx.db, [account, address], ctx.loginLimits.windowMs)
  const over = counts.filter((c) => c.failures > (c.scope === 'account' ? ctx.loginLimits.perAccount : ctx.loginLimits.perAddress))
  if (over.length > 0) throw tooManyAttempts(Math.max(...over.map((c) => c.leftMs)))
  const disabled = ctx.passwordLogin !== undefined && await ctx.passwordLogin.disabled()
  const found = await findLogin(ctx.db, body.username.trim())
  const { ok, rehash } = await ctx.hasher.verify(body.password, found?.password_hash ?? null)
  // Password login off: one answer for every attempt but the break-glass admin's right one,
  // after the same work, so that it tells nothing about a password or who the admin is.
  if (disabled && !(found && ok && isBreakGlass(found, ctx.passwordLogin?.breakGlass))) throw passwordLoginOff()
  if (!found || !ok) throw wrongLogin()
  await forgiveAttempt(ctx.db, account, address)
  if (rehash) await setPasswordHash(ctx.db, found.id, await ctx.hasher.hash(body.password))
  const id = await ctx.db.transaction().execute((trx) => openSession(trx, found.id, ctx.sessions.maxAgeMs, source.previous))
  const user = await findUser(ctx.db, found.id)
  return { sessionId: id, user: userInfo(user!) }
}

/**
 * Opens a session for a user, with a new id, in the caller's transaction (password login and
 * single sign-on alike); a session the request carried (`previous`) ends. Returns the id.
 */
export async function openSession (trx: Transaction<DB>, userId: number, maxAgeMs: number, previous?: string): Promise<string> {
  const id = randomBytes(32).toString('base64url')
  if (previous !== undefined) await deleteSession(trx, sessionHash(previous))
  await insertSession(trx, sessionHash(id), userId, maxAgeMs)
  await trimSessions(trx, userId, MAX_SESSIONS_PER_USER)
  await markSeen(trx, userId)
  return id
}

/** Ends a session (nothing when there is none). */
export const logout = (db: Database, sessionId: string) => deleteSession(db, sessionHash(sessionId))

/**
 * Ends the request's session (if any) and says where the browser goes next: `/signed-out`, or
 * the identity provider's sign-out when single sign-on opened the session and ends the
 * provider's session too (`external`).
 */
export async function logoutTo (ctx: PeopleContext, sessionId: string | undefined, origin: string, signedOut: string) {
  if (sessionId === undefined) return { location: signedOut, external: false }
  const away = await ctx.signOutLocation?.(sessionId, origin)
  await logout(ctx.db, sessionId)
  return away === undefined ? { location: signedOut, external: false } : { location: away, external: true }
}

/** The person of a live session, read afresh (their roles now); its last use is written at most every touchInterval. */
export async function sessionPerson (ctx: Pick<PeopleContext, 'db' | 'sessions'>, sessionId: string): Promise<Person | undefined> {
  const idHash = sessionHash(sessionId)
  const found = await findSession(ctx.db, idHash, ctx.sessions.idleMs, touchInterval(ctx.sessions.idleMs))
  if (!found) return undefined
  if (found.stale) await touchSession(ctx.db, idHash)
  return found.person
}

/** The Author of what a person does. */
export const personAuthor = (person: Person) => ({ name: authorName(person), userId: person.id })

/**
 * Removes ended sessions, old login counts and expired reset links every `everyMs`, on each instance (the deletes
 * are idempotent). Expiry itself never waits for it: a lookup checks both limits.
 */
export const sessionSweeper = (ctx: Pick<PeopleContext, 'db' | 'sessions' | 'loginLimits'>, onError: (error: unknown) => void, everyMs = 300_000): Worker =>
  every(everyMs, async () => {
    await deleteExpiredSessions(ctx.db, ctx.sessions.idleMs)
    await deleteOldFailures(ctx.db, ctx.loginLimits.windowMs)
    await deleteExpiredResetTokens(ctx.db)
  }, { onError })
