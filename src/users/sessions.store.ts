import { hash } from 'node:crypto'
import { sql, type Transaction } from 'kysely'
import type { DB, Queryable } from '../db/types.js'
import type { Person } from './roles.js'
import { personColumns, toPerson } from './users.store.js'

/** Only a SHA-256 of a session id is stored. */
export const sessionHash = (id: string) => hash('sha256', id, 'hex')

/** `ms` milliseconds as a PostgreSQL interval, bound as a number. */
const millis = (ms: number) => sql<string>`(${ms} * interval '1 millisecond')`

export async function insertSession (db: Queryable, idHash: string, userId: number, maxAgeMs: number): Promise<void> {
  await db
    .insertInto('sessions')
    .values({ id_hash: idHash, user_id: userId, expires_at: sql<Date>`now() + ${millis(maxAgeMs)}` })
    .execute()
}

/**
 * The person of a live session (within both limits, by the database's clock, so that every
 * instance agrees), and whether its last use is older than `touchMs`.
 */
export async function findSession (db: Queryable, idHash: string, idleMs: number, touchMs: number): Promise<{ person: Person; stale: boolean } | undefined> {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      ...personColumns,
      sql<boolean>`sessions.last_seen_at < now() - ${millis(touchMs)}`.as('stale'),
    ])
    .where('sessions.id_hash', '=', idHash)
    .where('sessions.expires_at', '>', sql<Date>`now()`)
    .where('sessions.last_seen_at', '>', sql<Date>`now() - ${millis(idleMs)}`)
    .executeTakeFirst()
  return row && { person: toPerson(row), stale: row.stale }
}

export async function touchSession (db: Queryable, idHash: string): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: sql<Date>`now()` }).where('id_hash', '=', idHash).execute()
}

export async function deleteSession (db: Queryable, idHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute()
}

/** Ends every session of a user but `keep` (the one that asked, when it is theirs). */
export async function deleteSessionsOf (db: Queryable, userId: number, keep?: string): Promise<void> {
  let query = db.deleteFrom('sessions').where('user_id', '=', userId)
  if (keep !== undefined) query = query.where('id_hash', '!=', keep)
  await query.execute()
}

/** Keeps a user's `keep` newest sessions and ends the others. */
export async function trimSessions (trx: Transaction<DB>, userId: number, keep: number): Promise<void> {
  await trx
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .where('id_hash', 'not in', (eb) =>
      eb.selectFrom('sessions').select('id_hash').where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id_hash').limit(keep)
    )
    .execute()
}

export async function countSessions (db: Queryable, userId: number): Promise<number> {
  const row = await db.selectFrom('sessions').select((eb) => eb.fn.countAll<string>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Removes sessions past either limit. */
export async function deleteExpiredSessions (db: Queryable, idleMs: number): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', sql<Date>`now()`), eb('last_seen_at', '<=', sql<Date>`now() - ${millis(idleMs)}`)]))
    .execute()
}
