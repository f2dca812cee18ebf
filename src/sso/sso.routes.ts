import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { parseCookie, stringifySetCookie } from 'cookie'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { sendError, toApiError } from '../http/error-handler.js'
import { errorStatuses } from '../http/openapi.js'
import { responseHeader } from '../http/schemas.js'
import { sessionCookie, sessionIdFromCookie } from '../users/session-cookie.js'
import { navigating, signInProblemOf } from './redirects.js'
import { finishLogin, LOGIN_TTL_MS, startLogin } from './login.service.js'
import { oidcSettings, passwordSettings, saveOidcSettings, savePasswordSettings, type SsoContext } from './settings.service.js'
import { CallbackQuery, LoginQuery, OidcSettingsBody, OidcSettingsResponse, PasswordAuth } from './sso.schemas.js'

const TAGS = ['Auth']
/** Sign-in settings: an Admin, or an API token with access to everything. */
const ADMIN = { access: 'admin', role: 'admin' } as const

/**
 * The cookie that binds a login to the browser that started it: a random value (only its hash
 * is stored), HttpOnly, SameSite=Lax (the provider's redirect back is a cross-site top-level
 * GET, which Lax lets through), only on /auth/oidc, gone after ten minutes.
 */
const LOGIN_COOKIE = 'unleash-oidc-login'
const BINDING = /^[A-Za-z0-9_-]{43}$/

const loginCookie = (value: string, secure: boolean) =>
  stringifySetCookie({ name: LOGIN_COOKIE, value, httpOnly: true, sameSite: 'lax', path: '/auth/oidc', secure, maxAge: LOGIN_TTL_MS / 1000 })
const clearedLoginCookie = (secure: boolean) =>
  stringifySetCookie({ name: LOGIN_COOKIE, value: '', httpOnly: true, sameSite: 'lax', path: '/auth/oidc', secure, expires: new Date(0) })

function bindingOf (request: FastifyRequest): string | undefined {
  const header = request.headers.cookie
  if (header === undefined || !header.includes(LOGIN_COOKIE)) return undefined
  const value = parseCookie(header)[LOGIN_COOKIE]
  return value !== undefined && BINDING.test(value) ? value : undefined
}

const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`
const secure = (request: FastifyRequest) => request.protocol === 'https'

const Redirect = (description: string, cookies: string) => Type.Unsafe<undefined>({
  type: 'null',
  description,
  headers: { location: responseHeader(description, true), 'set-cookie': responseHeader(cookies, true) },
} as never)

/**
 * A browser whose sign-in did not complete lands on the sign-in screen saying why in words
 * (303 to /login?sso=<reason>, a fixed list of reasons), not on a problem body; clients that read
 * JSON still get the problem body. Either way the refusal is logged as any other.
 */
function signInRefusal (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const apiError = toApiError(error, request)
  const problem = signInProblemOf(apiError.status)
  if (problem === undefined || !navigating(request.headers.accept)) return sendError(request, reply, error)
  request.log.info({ errorName: apiError.errorName, detail: apiError.message, shown: problem }, 'sign-in refused')
  return reply.code(303).header('location', `/login?sso=${problem}`).header('cache-control', 'no-store').send()
}

/** The 303 a browser gets when its sign-in did not complete. */
const ToSignInScreen = Type.Unsafe<undefined>({
  type: 'null',
  description: 'A browser (Accept naming text/html) whose sign-in did not complete: to the sign-in screen, which says why',
  headers: { location: responseHeader('/login?sso= and the reason: unavailable, refused, not-allowed, busy or off', true) },
} as never)

/** Single sign-on with OpenID Connect: its settings, password login's setting, the login and its callback. */
export const ssoRoutes: FastifyPluginAsyncTypebox<{ sso: SsoContext }> = async (app, { sso }) => {
  const warn = (message: string, details: object) => app.log.warn(details, message)

  app.get(
    '/api/admin/auth/oidc/settings',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'getOidcSettings',
        summary: 'The OpenID Connect settings',
        description: 'The settings in effect (the defaults before anything is saved), the secret masked, and in lockedBy the fields environment variables (OIDC_*) fix.',
        errors: errorStatuses(403),
        response: { 200: OidcSettingsResponse },
      },
    },
    async () => oidcSettings(sso)
  )

  app.post(
    '/api/admin/auth/oidc/settings',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'setOidcSettings',
        summary: 'Set the OpenID Connect settings',
        description: 'Sets the fields sent (the others keep their value; the secret stays unless a new one is sent). 409 for a field an environment variable fixes, sent with another value (naming the variable). 400 naming every problem; when the result is enabled, the provider\'s discovery document is fetched first and must answer JSON listing the endpoints on the discovery URL\'s scheme and supporting the settings (400 naming what is wrong), so that nothing is half-saved. Records setting-created or setting-updated (without the secret) when anything changed.',
        body: OidcSettingsBody,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 200: OidcSettingsResponse },
      },
    },
    async (request) => saveOidcSettings(sso, request.body, request.author, warn)
  )

  app.get(
    '/api/admin/auth/simple/settings',
    {
      config: ADMIN,
      schema: { tags: TAGS, operationId: 'getSimpleSettings', summary: 'Whether password login is off', errors: errorStatuses(403), response: { 200: PasswordAuth } },
    },
    async () => passwordSettings(sso)
  )

  app.post(
    '/api/admin/auth/simple/settings',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'setSimpleSettings',
        summary: 'Turn password login off or on',
        description: 'Off only while OpenID Connect sign-in is on (400 otherwise; turning OpenID Connect off brings password login back). While off, POST /auth/simple/login answers 422 to everyone but the break-glass admin (UNLEASH_DEFAULT_ADMIN_USERNAME), and the 401 of the admin API says defaultHidden: true. Records setting-created or setting-updated when it changes.',
        body: PasswordAuth,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 200: PasswordAuth },
      },
    },
    async (request) => savePasswordSettings(sso, request.body, request.author)
  )

  app.get(
    '/auth/oidc/login',
    {
      config: { access: 'public' },
      errorHandler: signInRefusal,
      schema: {
        tags: TAGS,
        operationId: 'oidcLogin',
        summary: 'Sign in with OpenID Connect',
        description: 'Where a sign-in button points (the 401 of the admin API lists it in options). Redirects the browser to the provider (authorization code flow with state, nonce, PKCE S256 when enablePkce; scopes openid email, and groups with addGroupsScope; redirect_uri UNLEASH_URL + /auth/oidc/callback) and sets a cookie binding the login to this browser. ?redirect= is where to land afterwards: a path on this server, anything else lands on /. 404 when OpenID Connect is off; 502 when the provider cannot be discovered; 429 when too many logins are under way. A browser (Accept naming text/html) gets these refusals as a 303 to the sign-in screen, /login?sso= and the reason (unavailable, busy, off, refused, not-allowed), which it shows in words.',
        querystring: LoginQuery,
        errors: [400, 404, 429, 502, 503],
        response: { 302: Redirect('The provider\'s authorization endpoint', 'The login cookie (unleash-oidc-login)'), 303: ToSignInScreen },
      },
    },
    async (request, reply) => {
      const login = await startLogin(sso, { redirect: request.query.redirect, previousBinding: bindingOf(request), ip: request.ip, origin: origin(request) })
      return reply.code(302).header('location', login.location).header('set-cookie', loginCookie(login.binding, secure(request))).header('cache-control', 'no-store').send()
    }
  )

  app.get(
    '/auth/oidc/callback',
    {
      config: { access: 'public', secretQuery: true },
      errorHandler: signInRefusal,
      schema: {
        tags: TAGS,
        operationId: 'oidcCallback',
        summary: 'The provider\'s redirect back',
        description: 'Finishes the login this browser started (its cookie; each login is used once, for 10 minutes): the state compared, the code exchanged, the ID token checked (signature from the provider\'s keys, only idTokenSigningAlgorithm, iss, aud, azp, exp and iat with 30 s of clock skew, nonce), a verified email in emailDomains. The user with that email (created with defaultRootRole when autoCreate) gets their groups synced (enableGroupSyncing) and a new session, as a password login, and lands on the path the login asked for. Refusals are problem bodies: 401 SignInError naming the check, 403 for an email not allowed or unknown, 502 when the provider does not answer. A browser (Accept naming text/html) gets these refusals as a 303 to the sign-in screen, /login?sso= and the reason (refused, not-allowed, unavailable, busy, off), which it shows in words. The query is never logged.',
        querystring: CallbackQuery,
        errors: [400, 401, 403, 404, 429, 502, 503],
        response: { 302: Redirect('The path the login asked for (a path on this server)', 'The session cookie (unleash-session), and the login cookie cleared'), 303: ToSignInScreen },
      },
    },
    async (request, reply) => {
      // The login cookie goes whatever happens: a login is used once.
      reply.header('set-cookie', clearedLoginCookie(secure(request))).header('cache-control', 'no-store')
      const search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : ''
      const done = await finishLogin(sso, { binding: bindingOf(request), search, origin: origin(request), previousSession: sessionIdFromCookie(request.headers.cookie) })
      // Joins the cleared login cookie above (Fastify adds each Set-Cookie).
      return reply.code(302).header('location', done.redirect).header('set-cookie', sessionCookie(done.sessionId, secure(request), sso.sessions.maxAgeMs)).send()
    }
  )
}
