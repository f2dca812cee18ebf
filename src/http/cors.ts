import type { FastifyInstance } from 'fastify'

/** What browser SDKs send with their requests (unleash-proxy-client, OpenFeature web providers). */
export const CORS_REQUEST_HEADERS = ['authorization', 'content-type', 'if-none-match', 'unleash-appname', 'unleash-sdk', 'unleash-connection-id', 'x-api-key']
const MAX_AGE_SECONDS = 86_400

/**
 * CORS on the routes of `app` (an encapsulated plugin: the frontend API and OFREP, never the
 * admin or client APIs): a request from an allowed origin (`*` allows any) gets
 * Access-Control-Allow-Origin and can read the ETag; a disallowed origin gets no CORS header, so
 * the browser keeps the answer from the page. `preflight` registers the OPTIONS answer (204, no
 * token needed, as browsers send none) for a path.
 */
export function cors (app: FastifyInstance, origins: readonly string[]) {
  const any = origins.includes('*')
  const allowed = new Set(origins)
  const allowedOrigin = (origin: string | undefined) => {
    if (origin === undefined) return undefined
    if (any) return '*'
    return allowed.has(origin) ? origin : undefined
  }
  // A callback hook: no promise per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    const origin = allowedOrigin(request.headers.origin)
    reply.header('vary', 'Origin')
    if (origin !== undefined) {
      reply.header('access-control-allow-origin', origin)
      reply.header('access-control-expose-headers', 'ETag')
    }
    done(null, payload)
  })
  return {
    preflight (url: string, methods: string[]) {
      app.options(url, { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
        if (allowedOrigin(request.headers.origin) !== undefined) {
          reply.header('access-control-allow-methods', [...methods, 'OPTIONS'].join(', '))
          reply.header('access-control-allow-headers', CORS_REQUEST_HEADERS.join(', '))
          reply.header('access-control-max-age', String(MAX_AGE_SECONDS))
        }
        return reply.code(204).send()
      })
    },
  }
}
