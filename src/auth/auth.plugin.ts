import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Database } from '../db/types.js'
import { ApiError, permissionDenied } from '../errors.js'
import {
  coversEnvironment,
  coversProject,
  hashSecret,
  isAdmin,
  secretFromHeader,
  type TokenScope,
} from './tokens.js'
import { type ApiToken, findTokenBySecret } from './tokens.store.js'

declare module 'fastify' {
  interface FastifyRequest {
    token: TokenScope
  }
  interface FastifyContextConfig {
    /** Needs a token scoped to every project and environment (`*`/`*`). */
    admin?: boolean
  }
}

/**
 * Token lookups cached in memory for `ttlMs`. A revoked token keeps working on another
 * instance for at most that long; on the instance that revoked it, at once (forget()).
 */
export class TokenCache {
  readonly #entries = new Map<string, { token: ApiToken; expires: number }>()

  constructor (
    private readonly db: Database,
    private readonly ttlMs: number
  ) {}

  async lookup (secret: string): Promise<ApiToken | undefined> {
    const key = hashSecret(secret)
    const hit = this.#entries.get(key)
    const now = Date.now()
    if (hit && hit.expires > now) return hit.token
    const token = await findTokenBySecret(this.db, secret)
    if (token && this.ttlMs > 0) {
      if (this.#entries.size > 10_000) this.#entries.clear()
      this.#entries.set(key, { token, expires: now + this.ttlMs })
    } else {
      this.#entries.delete(key)
    }
    return token
  }

  forget (name: string): void {
    for (const [key, entry] of this.#entries) {
      if (entry.token.name === name) this.#entries.delete(key)
    }
  }
}

/** The project and environment named by the route's path parameters, if any. */
function scopeOf (request: FastifyRequest) {
  const params = (request.params ?? {}) as Record<string, string | undefined>
  return { project: params.projectId, environment: params.environment }
}

export function authorise (token: TokenScope, request: FastifyRequest): void {
  if (request.routeOptions.config.admin && !isAdmin(token)) {
    throw permissionDenied(
      `API token ${token.name} needs access to all projects and environments (*) for this operation`
    )
  }
  const { project, environment } = scopeOf(request)
  if (project !== undefined && !coversProject(token, project)) {
    throw permissionDenied(`API token ${token.name} has no access to project ${project}`)
  }
  if (environment !== undefined && !coversEnvironment(token, environment)) {
    throw permissionDenied(`API token ${token.name} has no access to environment ${environment}`)
  }
}

/** Every request under /api/admin, known route or not, must carry a valid token. */
export const authPlugin = fp<{ tokens: TokenCache }>(
  async (app: FastifyInstance, { tokens }) => {
    app.decorateRequest('token', null as unknown as TokenScope)
    app.addHook('onRequest', async (request) => {
      if (!request.url.startsWith('/api/admin')) return
      const secret = secretFromHeader(request.headers.authorization)
      if (secret === undefined) {
        throw new ApiError(
          'AuthenticationRequired',
          'You must send an API token in the Authorization header'
        )
      }
      const token = await tokens.lookup(secret)
      if (!token) throw new ApiError('UnauthorizedError', 'The API token is unknown or was deleted')
      request.token = token
      authorise(token, request)
    })
  },
  { name: 'auth' }
)
