import type { FastifyInstance, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { Database } from '../db/types.js'
import { ApiError, permissionDenied } from '../errors.js'
import { coversEnvironment, coversProject, isAdmin, type TokenScope } from '../access/scope.js'
import { hashSecret, secretFromHeader } from './tokens.js'
import { type ApiToken, findTokenBySecret } from './tokens.store.js'

/**
 * Who may call a route. Every route declares it in its `config.access`; the app refuses to
 * start if one does not, so no route can exist without its guard.
 * - `public`: no token (health, readiness, metrics, docs);
 * - `token`: an API token whose scope covers the route's `projectId` and `environment`
 *   path parameters (any API token on a route without them);
 * - `admin`: an API token scoped to every project and environment (`*`/`*`);
 * - `client`: a client token (an Unleash SDK's); the client API answers for its environment
 *   and projects;
 * - `frontend`: a frontend token (a browser or mobile app's); the frontend API and OFREP answer
 *   for its environment and projects;
 * - `any`: any valid token, whatever its type (the 405 answers: a method a path does not have
 *   is 405 for every caller who may learn that the path exists).
 * As Unleash: a token on the routes of another type (a client token on an admin route, an
 * admin token on a client route, a frontend token anywhere but the frontend routes) is 403.
 */
export type Access = 'public' | 'token' | 'admin' | 'client' | 'frontend' | 'any'

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated token; set on every route whose access is not `public`. */
    token: TokenScope
  }
  interface FastifyContextConfig {
    access?: Access
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

  /** The cached token of this secret, if a lookup of it is still fresh. */
  cached (secret: string): ApiToken | undefined {
    const hit = this.#entries.get(hashSecret(secret))
    return hit && hit.expires > Date.now() ? hit.token : undefined
  }

  async lookup (secret: string): Promise<ApiToken | undefined> {
    const hit = this.cached(secret)
    if (hit) return hit
    const key = hashSecret(secret)
    const now = Date.now()
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

/** 403 unless the token's scope covers the environment (for environments named in a body). */
export function requireEnvironment (token: TokenScope, environment: string): void {
  if (!coversEnvironment(token, environment)) {
    throw permissionDenied(`API token ${token.name} has no access to environment ${environment}`)
  }
}

/** 403 unless the token may call a route of this access with these path parameters. */
export function authorise (token: TokenScope, access: Access | undefined, params: unknown): void {
  if (access === undefined || access === 'any') return // no route matched: 404 follows for any valid token
  if (access === 'client' || access === 'frontend') {
    if (token.type !== access) throw permissionDenied(`API token ${token.name} is not a ${access} token; the ${access} API needs one`)
    return
  }
  if (token.type !== 'admin') {
    throw permissionDenied(`API token ${token.name} is a ${token.type} token; the admin API needs an admin token`)
  }
  if (access === 'admin' && !isAdmin(token)) {
    throw permissionDenied(
      `API token ${token.name} needs access to all projects and environments (*) for this operation`
    )
  }
  const { projectId, environment } = (params ?? {}) as Record<string, unknown>
  if (typeof projectId === 'string' && !coversProject(token, projectId)) {
    throw permissionDenied(`API token ${token.name} has no access to project ${projectId}`)
  }
  if (typeof environment === 'string') requireEnvironment(token, environment)
}

const unknownToken = () => new ApiError('UnauthorizedError', 'The API token is unknown or was deleted')

/**
 * Authentication and authorisation, decided from the route the router matched (after it
 * decoded the path and dropped an absolute-form target), never from the request text.
 * A request that matches no route needs a valid token too, so that the answer (404) reveals
 * nothing about which paths exist to someone without one.
 */
export const authPlugin = fp<{ tokens: TokenCache }>(
  async (app: FastifyInstance, { tokens }) => {
    app.decorateRequest('token', null as unknown as TokenScope)
    const routes: RouteOptions[] = []
    app.addHook('onRoute', (route) => {
      routes.push(route)
    })
    app.addHook('onReady', async () => {
      const unguarded = routes.filter((r) => r.config?.access === undefined).map((r) => `${r.method} ${r.url}`)
      if (unguarded.length > 0) throw new Error(`Routes without a declared access: ${unguarded.join(', ')}`)
    })
    // A callback hook, answered at once when the token is cached (almost every request).
    app.addHook('onRequest', (request, _reply, done) => {
      const access = request.routeOptions.config.access
      if (access === 'public') return done()
      const admit = (token: ApiToken | undefined) => {
        if (!token) throw unknownToken()
        request.token = token
        authorise(token, access, request.params)
      }
      const secret = secretFromHeader(request.headers.authorization)
      if (secret === undefined) {
        return done(new ApiError('AuthenticationRequired', 'You must send an API token in the Authorization header'))
      }
      const cached = tokens.cached(secret)
      if (cached) {
        try {
          admit(cached)
        } catch (error) {
          return done(error as Error)
        }
        return done()
      }
      tokens.lookup(secret).then(admit).then(() => done(), done)
    })
  },
  { name: 'auth' }
)
