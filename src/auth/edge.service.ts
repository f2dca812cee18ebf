import type { Static } from '@sinclair/typebox'
import type { TokenScope } from '../access/scope.js'
import { ApiError } from '../errors.js'
import type { EdgeToken } from './edge.schemas.js'

/** How many secrets are looked up at once (each may be a query, or a question upstream). */
const AT_ONCE = 10

/**
 * The valid tokens among `secrets`, as Unleash's POST /edge/validate lists them: each with its
 * type, projects and environment; unknown ones are left out. `lookup` finds a token: in the
 * database on the server, upstream at a relay.
 */
export async function validTokens (lookup: (secret: string) => Promise<TokenScope | undefined>, secrets: readonly string[]): Promise<Static<typeof EdgeToken>[]> {
  const unique = [...new Set(secrets)]
  const found: (TokenScope | undefined)[] = []
  for (let i = 0; i < unique.length; i += AT_ONCE) {
    found.push(...await Promise.all(unique.slice(i, i + AT_ONCE).map((secret) => (secret.trim() === '' ? undefined : lookup(secret)))))
  }
  return unique.flatMap((token, i) => {
    const scope = found[i]
    if (scope === undefined) return []
    const environment = scope.environments.length === 1 ? scope.environments[0]! : '*'
    return [{ token, type: scope.type, projects: [...scope.projects], environment }]
  })
}

/** How long a signed request stays acceptable, as Unleash. */
const REQUEST_LIFETIME_MS = 5 * 60_000

/**
 * Unleash's checks of an Enterprise Edge's signed request (POST /edge/issue-token), in its
 * order: the HMAC Authorization header, its content headers, a timestamp within five minutes;
 * then the client it names must be registered. No Edge client is ever registered here (Unleash
 * registers them only in its Enterprise edition), so every request ends in a 401 naming the
 * first check it fails.
 */
export function refuseIssueToken (headers: Record<string, string | string[] | undefined>, now = Date.now()): never {
  const refuse = (why: string) => new ApiError('UnauthorizedError', why)
  const authorization = typeof headers.authorization === 'string' ? headers.authorization : ''
  if (!/^HMAC ([^:]+):(.+)$/.test(authorization)) throw refuse('Missing HMAC authorization header')
  const timestamp = headers['x-timestamp']
  if (typeof timestamp !== 'string' || typeof headers['x-nonce'] !== 'string' || typeof headers['content-sha256'] !== 'string') {
    throw refuse('Missing content headers')
  }
  const at = Date.parse(timestamp)
  if (!(Math.abs(now - at) <= REQUEST_LIFETIME_MS)) throw refuse('Stale request')
  throw refuse('Unknown client: no Enterprise Edge client is registered on this server')
}
