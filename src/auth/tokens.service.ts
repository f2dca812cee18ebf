import type { Database } from '../db/types.js'
import { notFound } from '../errors.js'
import { withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import type { TokenScope } from '../access/scope.js'
import { generateClientSecret, generateSecret } from './tokens.js'
import { type ApiToken, deleteToken, insertToken, listTokens } from './tokens.store.js'

/** A token as it is shown: never its secret. */
export const tokenInfo = (t: ApiToken) => ({
  tokenName: t.name,
  type: t.type,
  projects: t.projects,
  environments: t.environments,
  createdAt: t.createdAt,
})

/** Creates a token (api-token-created) and returns it with its secret, which is not kept. */
export async function createToken (writer: Writer, scope: TokenScope, createdBy: Author) {
  const secret = scope.type === 'admin' ? generateSecret() : generateClientSecret(scope.projects, scope.environments[0]!)
  const token = await withChange(writer, async ({ trx, record }) => {
    const created = await insertToken(trx, scope, secret)
    record({ type: 'api-token-created', createdBy, data: toJsonText(tokenInfo(created)) })
    return created
  })
  return { ...tokenInfo(token), secret }
}

export const tokens = async (db: Database) => (await listTokens(db)).map(tokenInfo)

/** Deletes a token (api-token-deleted); 404 when there is none of that name. */
export function removeToken (writer: Writer, name: string, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const deleted = await deleteToken(trx, name)
    if (!deleted) throw notFound(`API token ${name} does not exist`)
    record({ type: 'api-token-deleted', createdBy, data: toJsonText(tokenInfo(deleted)) })
  })
}
