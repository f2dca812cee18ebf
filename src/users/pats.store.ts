import { sql, type Transaction } from 'kysely'
import { isUniqueViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import { nameExists } from '../errors.js'
import type { Person } from './roles.js'
import { personColumns, toPerson } from './users.store.js'

export interface PersonalAccessToken {
  id: number
  description: string
  expiresAt: Date
  createdAt: Date
  seenAt: Date | null
  userId: number
}

const columns = ['id', 'description', 'expires_at', 'created_at', 'seen_at', 'user_id'] as const

const toPat = (row: { id: number; description: string; expires_at: Date; created_at: Date; seen_at: Date | null; user_id: number }): PersonalAccessToken => ({
  id: row.id,
  description: row.description,
  expiresAt: row.expires_at,
  createdAt: row.created_at,
  seenAt: row.seen_at,
  userId: row.user_id,
})

export async function insertPat (trx: Transaction<DB>, userId: number, pat: { description: string; expiresAt: Date }, secretHash: string): Promise<PersonalAccessToken> {
  try {
    const row = await trx
      .insertInto('personal_access_tokens')
      .values({ user_id: userId, description: pat.description, expires_at: pat.expiresAt, secret_hash: secretHash, seen_at: null })
      .returning(columns)
      .executeTakeFirstOrThrow()
    return toPat(row)
  } catch (error) {
    if (isUniqueViolation(error)) throw nameExists('You already have a personal access token with this description')
    throw error
  }
}

export async function listPats (db: Queryable, userId: number): Promise<PersonalAccessToken[]> {
  const rows = await db.selectFrom('personal_access_tokens').select(columns).where('user_id', '=', userId).orderBy('id').execute()
  return rows.map(toPat)
}

/** Counts a user's tokens, holding their user row's lock so that two creations count in turn. */
export async function countPats (trx: Transaction<DB>, userId: number): Promise<number> {
  await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute()
  const row = await trx.selectFrom('personal_access_tokens').select((eb) => eb.fn.countAll<string>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function deletePat (trx: Transaction<DB>, id: number, userId: number): Promise<PersonalAccessToken | undefined> {
  const row = await trx.deleteFrom('personal_access_tokens').where('id', '=', id).where('user_id', '=', userId).returning(columns).executeTakeFirst()
  return row && toPat(row)
}

/** The owner of an unexpired token with this secret hash, as they are now. */
export async function findPatOwner (db: Queryable, secretHash: string, touchMs: number): Promise<{ person: Person; patId: number; stale: boolean } | undefined> {
  const row = await db
    .selectFrom('personal_access_tokens')
    .innerJoin('users', 'users.id', 'personal_access_tokens.user_id')
    .select([
      ...personColumns,
      'personal_access_tokens.id as pat_id',
      sql<boolean>`personal_access_tokens.seen_at IS NULL OR personal_access_tokens.seen_at < now() - (${touchMs} * interval '1 millisecond')`.as('stale'),
    ])
    .where('personal_access_tokens.secret_hash', '=', secretHash)
    .where('personal_access_tokens.expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst()
  return row && { person: toPerson(row), patId: row.pat_id, stale: row.stale }
}

export async function touchPat (db: Queryable, id: number): Promise<void> {
  await db.updateTable('personal_access_tokens').set({ seen_at: sql<Date>`now()` }).where('id', '=', id).execute()
}
