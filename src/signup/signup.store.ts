import { sql, type Transaction } from 'kysely'
import { isForeignKeyViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import { notFound } from '../errors.js'
import type { RootRoleName } from '../vocabulary/roles.js'

export interface SignupTokenRow {
  secret: string
  name: string
  role: RootRoleName
  /** Enabled and not expired, by the database's clock. */
  live: boolean
  enabled: boolean
  expiresAt: Date
  createdAt: Date
  createdBy: string | null
}

const live = sql<boolean>`(signup_tokens.enabled AND signup_tokens.expires_at > now())`.as('live')
const columns = ['secret', 'name', 'role', 'enabled', 'expires_at', 'created_at', 'created_by', live] as const

const toToken = (row: { secret: string; name: string; role: RootRoleName; enabled: boolean; expires_at: Date; created_at: Date; created_by: string | null; live: boolean }): SignupTokenRow => ({
  secret: row.secret,
  name: row.name,
  role: row.role,
  live: row.live,
  enabled: row.enabled,
  expiresAt: row.expires_at,
  createdAt: row.created_at,
  createdBy: row.created_by,
})

/** The most recently created first. */
export async function listSignupTokens (db: Queryable): Promise<SignupTokenRow[]> {
  return (await db.selectFrom('signup_tokens').select(columns).orderBy('created_at', 'desc').orderBy('secret').execute()).map(toToken)
}

export async function findSignupToken (db: Queryable, secret: string): Promise<SignupTokenRow | undefined> {
  const row = await db.selectFrom('signup_tokens').select(columns).where('secret', '=', secret).executeTakeFirst()
  return row && toToken(row)
}

/** The token, locked until the transaction ends (sign-ups with it and its changes serialise on it). */
export async function lockSignupToken (trx: Transaction<DB>, secret: string): Promise<SignupTokenRow | undefined> {
  const row = await trx.selectFrom('signup_tokens').select(columns).where('secret', '=', secret).forUpdate().executeTakeFirst()
  return row && toToken(row)
}

/** How many tokens work now; locks the table against another creation until the transaction ends. */
export async function countLiveSignupTokens (trx: Transaction<DB>): Promise<number> {
  await sql`SELECT pg_advisory_xact_lock(hashtext('signup_tokens:create'))`.execute(trx)
  const row = await trx.selectFrom('signup_tokens').select((eb) => eb.fn.countAll<string>().as('n')).where('enabled', '=', true).where('expires_at', '>', sql<Date>`now()`).executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function insertSignupToken (trx: Transaction<DB>, token: { secret: string; name: string; expiresAt: Date; createdBy: string }): Promise<SignupTokenRow> {
  const row = await trx
    .insertInto('signup_tokens')
    .values({ secret: token.secret, name: token.name, expires_at: token.expiresAt, created_by: token.createdBy })
    .returning(columns)
    .executeTakeFirstOrThrow()
  return toToken(row)
}

export async function updateSignupToken (trx: Transaction<DB>, secret: string, changes: { expiresAt?: Date; enabled?: boolean }): Promise<SignupTokenRow> {
  const row = await trx
    .updateTable('signup_tokens')
    .set({ ...(changes.expiresAt !== undefined && { expires_at: changes.expiresAt }), ...(changes.enabled !== undefined && { enabled: changes.enabled }) })
    .where('secret', '=', secret)
    .returning(columns)
    .executeTakeFirstOrThrow()
  return toToken(row)
}

/** The ids of the users who signed up with each of these tokens, in the order they did. */
export async function signupUsers (db: Queryable, secrets: string[]): Promise<Map<string, number[]>> {
  const rows = secrets.length === 0
    ? []
    : await db.selectFrom('signup_token_users').select(['secret', 'user_id']).where('secret', 'in', secrets).orderBy('created_at').orderBy('user_id').execute()
  const out = new Map<string, number[]>()
  for (const row of rows) out.set(row.secret, [...(out.get(row.secret) ?? []), row.user_id])
  return out
}

export async function countSignups (trx: Transaction<DB>, secret: string): Promise<number> {
  const row = await trx.selectFrom('signup_token_users').select((eb) => eb.fn.countAll<string>().as('n')).where('secret', '=', secret).executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function addSignup (trx: Transaction<DB>, secret: string, userId: number): Promise<void> {
  try {
    await trx.insertInto('signup_token_users').values({ secret, user_id: userId }).execute()
  } catch (error) {
    if (isForeignKeyViolation(error)) throw notFound('The sign-up token does not exist')
    throw error
  }
}
