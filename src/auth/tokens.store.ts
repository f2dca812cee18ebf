import { isUniqueViolation } from '../db/errors.js'
import type { Transaction } from 'kysely'
import type { Database, DB, Queryable } from '../db/types.js'
import { nameExists } from '../errors.js'
import type { TokenScope, TokenType } from '../access/scope.js'
import { hashSecret } from './tokens.js'

export interface ApiToken extends TokenScope {
  createdAt: Date
}

const columns = ['name', 'type', 'projects', 'environments', 'created_at'] as const

const toToken = (row: {
  name: string
  type: TokenType
  projects: string[]
  environments: string[]
  created_at: Date
}): ApiToken => ({
  name: row.name,
  type: row.type,
  projects: row.projects,
  environments: row.environments,
  createdAt: row.created_at,
})

export async function findTokenBySecret (
  db: Queryable,
  secret: string
): Promise<ApiToken | undefined> {
  const row = await db
    .selectFrom('api_tokens')
    .select(columns)
    .where('secret_hash', '=', hashSecret(secret))
    .executeTakeFirst()
  return row && toToken(row)
}

export async function insertToken (
  db: Transaction<DB>,
  token: TokenScope,
  secret: string
): Promise<ApiToken> {
  try {
    const row = await db
      .insertInto('api_tokens')
      .values({
        name: token.name,
        type: token.type,
        secret_hash: hashSecret(secret),
        projects: JSON.stringify(token.projects),
        environments: JSON.stringify(token.environments),
      })
      .returning(columns)
      .executeTakeFirstOrThrow()
    return toToken(row)
  } catch (error) {
    if (isUniqueViolation(error)) { throw nameExists(`An API token named ${token.name} already exists`) }
    throw error
  }
}

export async function listTokens (db: Queryable): Promise<ApiToken[]> {
  const rows = await db.selectFrom('api_tokens').select(columns).orderBy('name').execute()
  return rows.map(toToken)
}

export async function deleteToken (db: Transaction<DB>, name: string): Promise<ApiToken | undefined> {
  const row = await db
    .deleteFrom('api_tokens')
    .where('name', '=', name)
    .returning(columns)
    .executeTakeFirst()
  return row && toToken(row)
}

/**
 * Makes each INIT_ADMIN_API_TOKENS secret exist as a `*`/`*` token. Idempotent: a secret
 * already stored is left alone, so restarts (and instances starting together) change nothing.
 */
export async function ensureInitTokens (db: Database, secrets: string[]): Promise<void> {
  for (const secret of secrets) {
    const hash = hashSecret(secret)
    await db
      .insertInto('api_tokens')
      .values({
        name: `init-admin-${hash.slice(0, 12)}`,
        secret_hash: hash,
        projects: JSON.stringify(['*']),
        environments: JSON.stringify(['*']),
      })
      .onConflict((oc) => oc.doNothing())
      .execute()
  }
}

export async function anyTokenExists (db: Database): Promise<boolean> {
  return (await db.selectFrom('api_tokens').select('name').limit(1).executeTakeFirst()) !== undefined
}
