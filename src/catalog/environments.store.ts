import type { Static } from '@sinclair/typebox'
import type { Transaction } from 'kysely'
import { isUniqueViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import { nameExists } from '../errors.js'
import type { NewEnvironment } from './environments.schemas.js'

export async function listEnvironments (db: Queryable) {
  const rows = await db.selectFrom('environments').select(['name', 'type', 'created_at']).orderBy('name').execute()
  return rows.map((r) => ({ name: r.name, type: r.type, createdAt: r.created_at }))
}

export async function insertEnvironment (trx: Transaction<DB>, environment: Static<typeof NewEnvironment>) {
  try {
    const row = await trx
      .insertInto('environments')
      .values(environment)
      .returning(['name', 'type', 'created_at'])
      .executeTakeFirstOrThrow()
    return { name: row.name, type: row.type, createdAt: row.created_at }
  } catch (error) {
    if (isUniqueViolation(error)) throw nameExists(`An environment named ${environment.name} already exists`)
    throw error
  }
}
