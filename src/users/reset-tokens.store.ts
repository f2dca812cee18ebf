import { hash } from 'node:crypto'
import { sql, type Transaction } from 'kysely'
import type { DB, Queryable } from '../db/types.js'

/** Only a SHA-256 of a reset token is stored. */
export const resetTokenHash = (token: string) => hash('sha256', `reset:${token}`, 'hex')

export type ResetKind = 'reset' | 'invite'

const millis = (ms: number) => sql<string>`(${ms} * interval '1 millisecond')`

/**
 * A new link for a user, replacing every other of theirs (a user holds at most one), living
 * `ttlMs`. Returns how long ago (ms) the link it replaced was made, if there was one.
 */
export async function replaceResetToken (trx: Transaction<DB>, token: { hash: string; userId: number; kind: ResetKind; createdBy: string; ttlMs: number }) {
  const replaced = await trx
    .deleteFrom('password_reset_tokens')
    .where('user_id', '=', token.userId)
    .returning(sql<string>`floor(extract(epoch from (now() - created_at)) * 1000)`.as('age_ms'))
    .execute()
  await trx
    .insertInto('password_reset_tokens')
    .values({ token_hash: token.hash, user_id: token.userId, kind: token.kind, created_by: token.createdBy, expires_at: sql<Date>`now() + ${millis(token.ttlMs)}` })
    .execute()
  return replaced.length === 0 ? undefined : Math.min(...replaced.map((r) => Number(r.age_ms)))
}

/** How long ago (ms) the user's newest link was made, if they hold one that has not expired. */
export async function liveTokenAge (db: Queryable, userId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('password_reset_tokens')
    .select(sql<string>`floor(extract(epoch from (now() - max(created_at))) * 1000)`.as('age_ms'))
    .where('user_id', '=', userId)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst()
  return row?.age_ms == null ? undefined : Number(row.age_ms)
}

/** The live (not expired) link of this hash: whose it is, of which kind, who made it. */
export async function findResetToken (db: Queryable, tokenHash: string) {
  return db
    .selectFrom('password_reset_tokens')
    .select(['user_id', 'kind', 'created_by'])
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst()
}

/**
 * Uses a live link: deletes it, with every other link of its user, and returns the user's id;
 * undefined when it was not live. Each link is used once, even by concurrent requests.
 */
export async function takeResetToken (trx: Transaction<DB>, tokenHash: string): Promise<number | undefined> {
  const taken = await trx
    .deleteFrom('password_reset_tokens')
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning('user_id')
    .executeTakeFirst()
  if (!taken) return undefined
  await trx.deleteFrom('password_reset_tokens').where('user_id', '=', taken.user_id).execute()
  return taken.user_id
}

/** Removes links that expired. */
export async function deleteExpiredResetTokens (db: Queryable): Promise<void> {
  await db.deleteFrom('password_reset_tokens').where('expires_at', '<=', sql<Date>`now()`).execute()
}
