import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { clearedSessionCookie, sessionCookie, sessionIdFromCookie } from './session-cookie.js'
import { responseHeader } from '../http/schemas.js'
import { login, logoutTo } from './sessions.service.js'
import type { PeopleContext } from './users.service.js'
import { Login, User } from './users.schemas.js'

/** Where a browser goes after logging out, as Unleash. */
export const SIGNED_OUT = '/signed-out'

export const authRoutes: FastifyPluginAsyncTypebox<{ people: PeopleContext }> = async (app, { people }) => {
  app.post(
    '/auth/simple/login',
    {
      config: { access: 'public', sessionRoute: true, maintenance: 'open' },
      schema: {
        tags: ['Auth'],
        operationId: 'login',
        summary: 'Log in with a username (or email) and password',
        description:
          'Answers the user and sets the session cookie (unleash-session: HttpOnly, SameSite=Lax, Path=/, Secure over HTTPS), with a new session id at every login; a session the request carried ends. A wrong password and an unknown user get the same 401 in the same time. Failed attempts are limited per account name (LOGIN_MAX_FAILURES_PER_ACCOUNT, known or not) and per source address (LOGIN_MAX_FAILURES_PER_ADDRESS) in LOGIN_FAILURE_WINDOW_MS: more get 429 with Retry-After. When an Admin turned password login off (POST /api/admin/auth/simple/settings), every attempt answers 422 DisabledError but the break-glass admin\'s (UNLEASH_DEFAULT_ADMIN_USERNAME) with the right password. Refused with 403 when sent from another site.',
        body: Login,
        errors: [400, 401, 403, 413, 415, 422, 429, 503],
        response: { 200: { ...User, headers: { 'set-cookie': responseHeader('The session cookie', true) } } },
      },
    },
    async (request, reply) => {
      const previous = sessionIdFromCookie(request.headers.cookie)
      const { sessionId, user } = await login(people, request.body, { ip: request.ip, previous })
      reply.header('set-cookie', sessionCookie(sessionId, request.protocol === 'https', people.sessions.maxAgeMs))
      return user
    }
  )

  await app.register(async (scope) => {
    // A browser posts the logout as a form: any body, of any type, is accepted and ignored.
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined))
    scope.post(
      '/logout',
      {
        config: { access: 'public', sessionRoute: true, maintenance: 'open' },
        schema: {
          tags: ['Auth'],
          operationId: 'logout',
          summary: 'Log out',
          description: `Ends the session of the cookie (other sessions of the user stay) and clears the cookie; answers 302 to ${SIGNED_OUT}, as Unleash. A session single sign-on opened, with single sign-out on, answers 303 to the identity provider's end_session_endpoint (with client_id and post_logout_redirect_uri ${SIGNED_OUT} on UNLEASH_URL), which ends the provider's session too. Any content type. Refused with 403 when sent from another site.`,
          errors: [403, 413, 429, 503],
          response: {
            302: Type.Unsafe<undefined>({
              type: 'null',
              description: `Redirect to ${SIGNED_OUT}`,
              headers: { location: responseHeader(SIGNED_OUT, true), 'set-cookie': responseHeader('Clears the session cookie', true) },
            } as never),
            303: Type.Unsafe<undefined>({
              type: 'null',
              description: 'Redirect to the identity provider\'s sign-out (single sign-out)',
              headers: { location: responseHeader('The provider\'s end_session_endpoint', true), 'set-cookie': responseHeader('Clears the session cookie', true) },
            } as never),
          },
        },
      },
      async (request, reply) => {
        const sessionId = sessionIdFromCookie(request.headers.cookie)
        const next = await logoutTo(people, sessionId, `${request.protocol}://${request.host}`, SIGNED_OUT)
        return reply.code(next.external ? 303 : 302).header('location', next.location).header('set-cookie', clearedSessionCookie(request.protocol === 'https')).send()
      }
    )
  })
}
