import { randomBytes } from 'node:crypto'
import type { Database } from '../db/types.js'
import { ApiError, badData, notFound } from '../errors.js'
import { writeChange } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { addressKey } from '../users/login-limits.js'
import { countAttempt, forgiveAddressAttempt } from '../users/login-limits.store.js'
import { checkPassword } from '../users/passwords.js'
import { roleByName } from '../users/roles.js'
import { addUserIn, type PeopleContext, tooManyAttempts, userInfo } from '../users/users.service.js'
import { usersByIds } from '../users/users.store.js'
import { ROLE_IDS } from '../vocabulary/roles.js'
import { MAX_LIVE_SIGNUP_TOKENS, MAX_SIGNUPS_PER_TOKEN } from './signup.schemas.js'
import {
  addSignup,
  countLiveSignupTokens,
  countSignups,
  findSignupToken,
  insertSignupToken,
  listSignupTokens,
  lockSignupToken,
  type SignupTokenRow,
  signupUsers,
  updateSignupToken,
} from './signup.store.js'

/** A month from `now` (as Unleash caps it). */
export function aMonthFrom (now: Date): Date {
  const later = new Date(now)
  later.setUTCMonth(later.getUTCMonth() + 1)
  return later
}

/** The link a sign-up token makes (Unleash's): where the admin UI's sign-up page is. */
export const signupUrl = (base: string, secret: string) => `${base}/new-user?invite=${secret}`

/** A token in Unleash's publicSignupTokenSchema, with the users who signed up with it. */
async function view (db: Database, tokens: SignupTokenRow[], base: string) {
  const signups = await signupUsers(db, tokens.map((t) => t.secret))
  const users = await usersByIds(db, [...signups.values()].flat())
  return tokens.map((token) => {
    const role = roleByName(token.role)
    return {
      secret: token.secret,
      url: signupUrl(base, token.secret),
      name: token.name,
      enabled: token.live,
      expiresAt: token.expiresAt,
      createdAt: token.createdAt,
      createdBy: token.createdBy,
      users: (signups.get(token.secret) ?? []).flatMap((id) => {
        const found = users.get(id)
        return found ? [userInfo(found)] : []
      }),
      role: { id: ROLE_IDS[token.role], type: role.type, name: role.name, description: role.description },
    }
  })
}

/** What events record of a token: never its secret. */
const auditOf = (token: SignupTokenRow) => ({ name: token.name, enabled: token.enabled, expiresAt: token.expiresAt.toISOString(), role: token.role })

const unknownToken = () => notFound('Could not find public signup token.')

export async function signupTokens (db: Database, base: string) {
  return { tokens: await view(db, await listSignupTokens(db), base) }
}

export async function signupToken (db: Database, secret: string, base: string) {
  const found = await findSignupToken(db, secret)
  if (!found) throw unknownToken()
  return (await view(db, [found], base))[0]!
}

/**
 * A new sign-up token (public-signup-token-created, without the secret): users who sign up with
 * it get the Viewer role, as Unleash's. expiresAt must be in the future; later than a month from
 * now it is brought back to a month from now (as Unleash). At most MAX_LIVE_SIGNUP_TOKENS work at
 * once (400 past it: disable one first).
 */
export async function createSignupToken (db: Database, body: { name: string; expiresAt: string }, base: string, author: Author) {
  const now = new Date()
  const wanted = new Date(body.expiresAt)
  if (!(wanted > now)) throw badData('expiresAt must be in the future', [{ path: '/body/expiresAt', message: '/body/expiresAt must be in the future' }])
  const expiresAt = wanted < aMonthFrom(now) ? wanted : aMonthFrom(now)
  const created = await writeChange(db, async ({ trx, record }) => {
    if ((await countLiveSignupTokens(trx)) >= MAX_LIVE_SIGNUP_TOKENS) {
      throw badData(`At most ${MAX_LIVE_SIGNUP_TOKENS} sign-up tokens may work at once: disable one first (PUT /api/admin/invite-link/tokens/{token} {"enabled": false})`)
    }
    const token = await insertSignupToken(trx, { secret: randomBytes(16).toString('hex'), name: body.name, expiresAt, createdBy: author.name })
    record({ type: 'public-signup-token-created', createdBy: author, data: toJsonText(auditOf(token)) })
    return token
  })
  return (await view(db, [created], base))[0]!
}

/**
 * Changes a token's expiry or whether it works (public-signup-token-updated when anything
 * changed): 400 with neither; an expiry later than a month from now is brought back to it.
 */
export async function updateSignupTokenOf (db: Database, secret: string, body: { expiresAt?: string; enabled?: boolean }, base: string, author: Author) {
  if (body.expiresAt === undefined && body.enabled === undefined) {
    throw badData('Send expiresAt, enabled or both', [{ path: '/body', message: 'must have expiresAt or enabled' }])
  }
  const limit = aMonthFrom(new Date())
  const expiresAt = body.expiresAt === undefined ? undefined : new Date(Math.min(new Date(body.expiresAt).getTime(), limit.getTime()))
  const updated = await writeChange(db, async ({ trx, record }) => {
    const current = await lockSignupToken(trx, secret)
    if (!current) throw unknownToken()
    const same = (expiresAt === undefined || expiresAt.getTime() === current.expiresAt.getTime()) && (body.enabled === undefined || body.enabled === current.enabled)
    if (same) return current
    if (body.enabled === true && !current.enabled && (await countLiveSignupTokens(trx)) >= MAX_LIVE_SIGNUP_TOKENS) {
      throw badData(`At most ${MAX_LIVE_SIGNUP_TOKENS} sign-up tokens may work at once: disable another first`)
    }
    const after = await updateSignupToken(trx, secret, { expiresAt, enabled: body.enabled })
    record({ type: 'public-signup-token-updated', createdBy: author, data: toJsonText(auditOf(after)), preData: toJsonText(auditOf(current)) })
    return after
  })
  return (await view(db, [updated], base))[0]!
}

const invalidInvite = () => new ApiError('BadDataError', 'The invite link is not valid: unknown, disabled or expired')

/**
 * Whether a sign-up token works (enabled, not expired): 400 otherwise, the same answer for each.
 * Each attempt from a source address counts against LOGIN_MAX_FAILURES_PER_ADDRESS; one that
 * finds a working token is taken back.
 */
export async function validateSignupToken (ctx: PeopleContext, secret: string, ip: string): Promise<void> {
  const address = await countSignupAttempt(ctx, ip)
  const found = await findSignupToken(ctx.db, secret)
  if (!found?.live) throw invalidInvite()
  await forgiveAddressAttempt(ctx.db, address)
}

async function countSignupAttempt (ctx: PeopleContext, ip: string) {
  const address = addressKey(ip, 'signup')
  const [count] = await countAttempt(ctx.db, [address], ctx.loginLimits.windowMs)
  if (count && count.failures > ctx.loginLimits.perAddress) throw tooManyAttempts(count.leftMs)
  return address
}

/**
 * A person signs up with a sign-up token: it must work (400 otherwise), the password follow the
 * rules (400), the email and username be free (409); the user gets the token's root role.
 * Records user-created and public-signup-token-user-added. Attempts count per source address
 * as validateSignupToken's do; at most MAX_SIGNUPS_PER_TOKEN users per token.
 */
export async function signUp (ctx: PeopleContext, secret: string, body: { username?: string; email: string; name: string; password: string }, ip: string) {
  const address = await countSignupAttempt(ctx, ip)
  const found = await findSignupToken(ctx.db, secret)
  if (!found?.live) throw invalidInvite()
  checkPassword(body.password, body)
  const passwordHash = await ctx.hasher.hash(body.password)
  const created = await writeChange(ctx.db, async (change) => {
    const token = await lockSignupToken(change.trx, secret)
    if (!token?.live) throw invalidInvite()
    if ((await countSignups(change.trx, secret)) >= MAX_SIGNUPS_PER_TOKEN) {
      throw badData(`This invite link has made ${MAX_SIGNUPS_PER_TOKEN} users, its most: ask an Admin for another`)
    }
    const author = { name: `invite link ${token.name}` }
    const user = await addUserIn(change, { email: body.email, username: body.username, name: body.name, rootRole: token.role, passwordHash }, author)
    await addSignup(change.trx, secret, user.id)
    change.record({ type: 'public-signup-token-user-added', createdBy: author, data: toJsonText({ name: token.name, userId: user.id }) })
    return user
  })
  await forgiveAddressAttempt(ctx.db, address)
  return userInfo(created)
}
