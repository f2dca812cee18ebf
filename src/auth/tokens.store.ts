import { isUniqueViolation } from '../db/errors.js'
import { sql, type Transaction } from 'kysely'
import type { Database, DB, Queryable } from '../db/types.js'
import { nameExists } from '../errors.js'
import type { TokenScope, TokenType } from '../access/scope.js'
import { hashSecret } from './tokens.js'
import type { NewApiToken } from './tokens.schemas.js'

export interface ApiToken extends TokenScope {
  createdAt: Date
  expiresAt: Date | null
}

const columns = ['name', 'type', 'projects', 'environments', 'created_at', 'expires_at'] as const

const toToken = (row: {
  name: string
  type: TokenType
  projects: string[]
  environments: string[]
  created_at: Date
  expires_at: Date | null
}): ApiToken => ({
  name: row.name,
  type: row.type,
  projects: row.projects,
  environments: row.environments,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
})

/** The token of this secret (expired or not: the caller decides). */
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

/** How a token is named in `/api/admin/api-tokens/{token}`: by its secret, or by its name. */
export type TokenKey = { secret: string } | { name: string }

const keyed = (key: TokenKey) =>
  'secret' in key ? (['secret_hash', hashSecret(key.secret)] as const) : (['name', key.name] as const)

/** The token, locked until the transaction ends (its writers serialise). */
export async function lockToken (trx: Transaction<DB>, key: TokenKey): Promise<ApiToken | undefined> {
  const [column, value] = keyed(key)
  const row = await trx.selectFrom('api_tokens').select(columns).where(column, '=', value).forUpdate().executeTakeFirst()
  return row && toToken(row)
}

export async function insertToken (
  db: Transaction<DB>,
  token: NewApiToken,
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
        expires_at: token.expiresAt,
      })
      .returning(columns)
      .executeTakeFirstOrThrow()
    return toToken(row)
  } catch (error) {
    if (isUniqueViolation(error)) { throw nameExists(`An API token named ${token.name} already exists`) }
    throw error
  }
}

/** Every token, by name; only those of this name, or those whose projects name this project, when asked. */
export async function listTokens (db: Queryable, only: { name?: string; project?: string } = {}): Promise<ApiToken[]> {
  let query = db.selectFrom('api_tokens').select(columns)
  if (only.name !== undefined) query = query.where('name', '=', only.name)
  if (only.project !== undefined) query = query.where(sql<boolean>`projects ? ${only.project}`)
  const rows = await query.orderBy('name').execute()
  return rows.map(toToken)
}

export async function setExpiry (trx: Transaction<DB>, name: string, expiresAt: Date | null): Promise<ApiToken> {
  const row = await trx
    .updateTable('api_tokens')
    .set({ expires_at: expiresAt })
    .where('name', '=', name)
    .returning(columns)
    .executeTakeFirstOrThrow()
  return toToken(row)
}

export async function deleteToken (db: Transaction<DB>, name: string): Promise<void> {
  await db.deleteFrom('api_tokens').where('name', '=', name).execute()
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

export async function projectExists (db: Queryable, project: string): Promise<boolean> {
  return (await db.selectFrom('projects').select('id').where('id', '=', project).executeTakeFirst()) !== undefined
}

export async function environmentExists (db: Queryable, environment: string): Promise<boolean> {
  return (await db.selectFrom('environments').select('name').where('name', '=', environment).executeTakeFirst()) !== undefined
}

export async function anyTokenExists (db: Database): Promise<boolean> {
  return (await db.selectFrom('api_tokens').select('name').limit(1).executeTakeFirst()) !== undefined
}
