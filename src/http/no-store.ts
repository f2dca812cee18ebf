import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the routes answersArePrivate names: every answer carries `Cache-Control: no-store`. */
    noStore?: true
  }
}

/**
 * Whether the answers of a route (its path, as registered or as the OpenAPI document writes it)
 * are for one caller only and may hold people's data or secrets: the admin API (users, tokens,
 * webhooks and their deliveries, events, the profile…), the session's own routes and the
 * sign-up routes of invite links (whose paths hold a secret). Never the
 * SDK APIs (/api/client, /api/frontend, /ofrep), whose answers are revalidated with ETags.
 */
export const answersArePrivate = (path: string) =>
  path === '/api/admin' || path.startsWith('/api/admin/') || path.startsWith('/auth/') || path === '/logout' || path.startsWith('/invite/')

/**
 * `Cache-Control: no-store` on every answer of a private route (answersArePrivate), refusals
 * included (a 401 too), so that no browser cache, proxy or back button keeps a copy. Set when
 * the request arrives, before authentication can refuse it (an error answer keeps the headers
 * set before it). Register before the auth plugin and the routes.
 */
export const noStorePlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route) => {
      if (answersArePrivate(route.url)) route.config = { ...route.config, noStore: true }
    })
    app.addHook('onRequest', (request, reply, done) => {
      if (request.routeOptions.config.noStore === true) reply.header('cache-control', 'no-store')
      done()
    })
  },
  { name: 'no-store' }
)
