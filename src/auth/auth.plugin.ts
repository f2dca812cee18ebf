import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { Database } from '../db/types.js'
import { ApiError, type LoginHint, permissionDenied } from '../errors.js'
import type { Author } from '../events/events.schemas.js'
import { PAT_SECRET, patPerson } from '../users/pats.service.js'
import { authorName, type Person, personMay, refusal, type RouteRole } from '../users/roles.js'
import { sessionPerson } from '../users/sessions.service.js'
import type { PeopleContext } from '../users/users.service.js'
import { isCrossSite } from './csrf.js'
import { clearedSessionCookie, sessionIdFromCookie } from '../users/session-cookie.js'
import { ALL, coversEnvironment, coversProject, isAdmin, type TokenScope } from '../access/scope.js'
import { hasExpired, hashSecret, secretFromHeader } from './tokens.js'
import { type ApiToken, findTokenBySecret } from './tokens.store.js'

/**
 * Who may call a route. Every route declares it in its `config.access`; the app refuses to
 * start if one does not, so no route can exist without its guard.
 * - `public`: no token (health, readiness, metrics, docs, login and logout);
 * - `token`: an API token whose scope covers the route's `projectId` and `environment`
 *   path parameters (any API token on a route without them);
 * - `admin`: an API token scoped to every project and environment (`*`/`*`);
 * - `client`: a client token (an Unleash SDK's); the client API answers for its environment
 *   and projects;
 * - `frontend`: a frontend token (a browser or mobile app's); the frontend API and OFREP answer
 *   for its environment and projects;
 * - `person`: a signed-in person only (a session, or a personal access token): their own
 *   account, or what only people do (change requests), with the route's role; an API token is
 *   not a person (403);
 * - `any`: any valid token, whatever its type (the 405 answers: a method a path does not have
 *   is 405 for every caller who may learn that the path exists).
 * As Unleash: a token on the routes of another type (a client token on an admin route, an
 * admin token on a client route, a frontend token anywhere but the frontend routes) is 403.
 *
 * People (a session cookie, or a personal access token in Authorization) may call the `token`,
 * `admin`, `person` and `any` routes, as the route's `config.role` allows their roles (see
 * users/roles.ts); never the client or frontend API.
 */
export type Access = 'public' | 'token' | 'admin' | 'client' | 'frontend' | 'person' | 'any'

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The scope of the caller; set on every route whose access is not `public`. A person sees
     * every project and environment (what they may change is their role's business).
     */
    token: TokenScope
    /** The signed-in person, when a person (not an API token) made the request. */
    person: Person | null
    /** The session id the request was authenticated with (a session cookie), if any. */
    sessionId: string | undefined
    /** Who is making the request, as events record it. */
    author: Author
  }
  interface FastifyContextConfig {
    access?: Access
    /** What the route asks of a person (required on `token` and `admin` routes). */
    role?: RouteRole
    /** A route that opens or ends a session: refused when cross-site, although public. */
    sessionRoute?: boolean
    /**
     * The project (and environment) the route acts on are named in its body, not its path: the
     * members named here are checked as the path's `projectId` and `environment` would be, once
     * the body is parsed (before it is validated, so that a refusal is the same whatever else
     * the body holds).
     */
    bodyScope?: { project: string; environment?: string }
  }
}

/**
 * Token lookups cached in memory for `ttlMs`. A revoked token keeps working on another
 * instance for at most that long; on the instance that revoked it, at once (forget()).
 */
export class TokenCache {
  readonly #entries = new Map<string, { token: ApiToken; expires: number }>()
  /** Lookups under way: requests with the same secret meanwhile wait for the same one. */
  readonly #reading = new Map<string, Promise<ApiToken | undefined>>()

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
    const reading = this.#reading.get(key)
    if (reading) return reading
    const read = this.#read(key, secret).finally(() => this.#reading.delete(key))
    this.#reading.set(key, read)
    return read
  }

  async #read (key: string, secret: string): Promise<ApiToken | undefined> {
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
  if (access === 'person') throw permissionDenied(`API token ${token.name} is not a person: sign in, or use a personal access token`)
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

/** 403 unless the person may call a route of this access and role with these path parameters. */
export function authorisePerson (person: Person, access: Access | undefined, role: RouteRole | undefined, params: unknown): void {
  if (access === 'client' || access === 'frontend') {
    throw permissionDenied(`User ${authorName(person)} is a person; the ${access} API needs a ${access} token`)
  }
  if (access === undefined || access === 'any') return
  // A person route asks nothing more of its caller unless it declares a role (change requests: people only, who may write).
  if (access === 'person' && role === undefined) return
  const { projectId } = (params ?? {}) as Record<string, unknown>
  const need = role ?? 'admin'
  if (!personMay(person, need, typeof projectId === 'string' ? projectId : undefined)) {
    throw permissionDenied(refusal(person, need, typeof projectId === 'string' ? projectId : undefined))
  }
}

/** A person's scope: every project and environment. */
const personScope = (person: Person): TokenScope => ({ name: authorName(person), type: 'admin', projects: [ALL], environments: [ALL] })

const unknownToken = () => new ApiError('UnauthorizedError', 'The API token is unknown, expired or was deleted')

/** Routes people may call, where a 401 says how to log in (as Unleash's clients read it). */
const admitsPeople = (access: Access | undefined) => access !== 'client' && access !== 'frontend'

const LOGIN_HINT: LoginHint = { type: 'password', path: '/auth/simple/login', defaultHidden: false }

/** The login hint of a 401 (password login on or off, other ways to sign in): at once when it is known. */
export type LoginHintSource = () => LoginHint | Promise<LoginHint>

const noCredentials = (access: Access | undefined, hint: LoginHint = LOGIN_HINT) =>
  admitsPeople(access)
    ? new ApiError('AuthenticationRequired', 'You must log in (POST /auth/simple/login) or send an API token in the Authorization header', undefined, {}, hint)
    : new ApiError('AuthenticationRequired', 'You must send an API token in the Authorization header')

/** Calls `done` with the 401 of a request without (valid) credentials, with the current login hint. */
function refuseWithHint (access: Access | undefined, loginHint: LoginHintSource | undefined, done: (error: Error) => void) {
  const hint = admitsPeople(access) ? loginHint?.() : undefined
  if (hint instanceof Promise) hint.then((h) => done(noCredentials(access, h)), done)
  else done(noCredentials(access, hint))
}

/** The request's own host, as the browser addressed it (X-Forwarded-Host only behind a trusted proxy). */
const ownHost = (request: FastifyRequest) => request.host

export const refuseCrossSite = (request: FastifyRequest) => {
  if (isCrossSite(request.method, request.headers, ownHost(request))) {
    throw new ApiError('CrossSiteRequestError', 'A request from another site may not change anything with this session; send it from this server\'s own pages')
  }
}

/**
 * Authentication and authorisation, decided from the route the router matched (after it
 * decoded the path and dropped an absolute-form target), never from the request text.
 * A request that matches no route needs a valid token too, so that the answer (404) reveals
 * nothing about which paths exist to someone without one.
 *
 * Credentials, in this order: `Authorization` (an API token, or a personal access token in
 * Unleash's form `user:<hex>`), else the session cookie. A request authenticated by the cookie
 * that changes something must come from this server's own pages (refuseCrossSite); one with
 * an Authorization header cannot have been sent cross-site by a browser without CORS, which
 * the admin API does not grant.
 */
export const authPlugin = fp<{ tokens: TokenCache; people: Pick<PeopleContext, 'db' | 'sessions'>; loginHint?: LoginHintSource }>(
  async (app: FastifyInstance, { tokens, people, loginHint }) => {
    app.decorateRequest('token', null as unknown as TokenScope)
    app.decorateRequest('person', null)
    app.decorateRequest('sessionId', undefined)
    app.decorateRequest('author', null as unknown as Author)
    const routes: RouteOptions[] = []
    app.addHook('onRoute', (route) => {
      routes.push(route)
    })
    app.addHook('onReady', async () => {
      const unguarded = routes.filter((r) => r.config?.access === undefined).map((r) => `${r.method} ${r.url}`)
      if (unguarded.length > 0) throw new Error(`Routes without a declared access: ${unguarded.join(', ')}`)
      const undecided = routes
        .filter((r) => (r.config?.access === 'token' || r.config?.access === 'admin') && r.config?.role === undefined)
        .map((r) => `${r.method} ${r.url}`)
      if (undecided.length > 0) throw new Error(`Routes without a declared role for people: ${undecided.join(', ')}`)
    })
    const admitPerson = (request: FastifyRequest, person: Person) => {
      request.person = person
      request.token = personScope(person)
      request.author = { name: authorName(person), userId: person.id }
      const config = request.routeOptions.config
      // With the scope in the body, the person's role is checked once the body is there.
      if (config.bodyScope === undefined) authorisePerson(person, config.access, config.role, request.params)
    }
    app.addHook('preValidation', (request, _reply, done) => {
      const { bodyScope, access, role } = request.routeOptions.config
      if (bodyScope === undefined) return done()
      const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>
      const named = (member: string | undefined) => (member !== undefined && typeof body[member] === 'string' ? body[member] : undefined)
      const params = { projectId: named(bodyScope.project), environment: named(bodyScope.environment) }
      try {
        if (request.person) authorisePerson(request.person, access, role, params)
        else authorise(request.token, access, params)
      } catch (error) {
        return done(error as Error)
      }
      done()
    })
    // A callback hook, answered at once when the token is cached (almost every request).
    app.addHook('onRequest', (request, reply, done) => {
      const config = request.routeOptions.config
      const access = config.access
      if (access === 'public') {
        if (config.sessionRoute !== true) return done()
        try {
          refuseCrossSite(request)
        } catch (error) {
          return done(error as Error)
        }
        return done()
      }
      const admit = (token: ApiToken | undefined) => {
        // A cached token is checked again: its expiry may have passed since it was read.
        if (!token || hasExpired(token)) throw unknownToken()
        request.token = token
        request.author = { name: token.name }
        authorise(token, access, request.params)
      }
      const secret = secretFromHeader(request.headers.authorization)
      if (secret === undefined) {
        // On the client and frontend APIs too: a person there is refused with 403, as a role refusal.
        const sessionId = sessionIdFromCookie(request.headers.cookie)
        if (sessionId === undefined) return refuseWithHint(access, loginHint, done)
        sessionPerson(people, sessionId).then((person) => {
          if (!person) {
            reply.header('set-cookie', clearedSessionCookie(request.protocol === 'https'))
            return false
          }
          request.sessionId = sessionId
          refuseCrossSite(request)
          admitPerson(request, person)
          return true
        }).then((admitted) => (admitted ? done() : refuseWithHint(access, loginHint, done)), done)
        return
      }
      if (PAT_SECRET.test(secret)) {
        patPerson(people.db, secret).then((person) => {
          if (!person) throw new ApiError('UnauthorizedError', 'The personal access token is unknown, expired or was deleted')
          admitPerson(request, person)
        }).then(() => done(), done)
        return
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
