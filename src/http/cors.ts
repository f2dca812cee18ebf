import type { FastifyInstance } from 'fastify'

/** What browser SDKs send with their requests (unleash-proxy-client, OpenFeature web providers). */
export const CORS_REQUEST_HEADERS = ['authorization', 'content-type', 'if-none-match', 'unleash-appname', 'unleash-sdk', 'unleash-connection-id', 'x-api-key']
const MAX_AGE_SECONDS = 86_400

/** The check a CORS answer makes of a request's Origin, compiled once per list of origins. */
export interface OriginRule {
  /** `*` when any origin may read the answers, the origin itself when it may, else undefined. */
  allow(origin: string | undefined): string | undefined
}

/** The rule of a list of origins (`*` allows any). */
export function originRule (origins: readonly string[]): OriginRule {
  if (origins.includes('*')) return { allow: (origin) => (origin === undefined ? undefined : '*') }
  const allowed = new Set(origins)
  return { allow: (origin) => (origin !== undefined && allowed.has(origin) ? origin : undefined) }
}

/**
 * CORS on the routes of `app` (an encapsulated plugin: the frontend API and OFREP, never the
 * admin or client APIs): a request from an allowed origin (`*` allows any) gets
 * Access-Control-Allow-Origin and can read the ETag; a disallowed origin gets no CORS header, so
 * the browser keeps the answer from the page. `rule` is asked at every request (the origins an
 * Admin sets change at run time; it answers from memory). `preflight` registers the OPTIONS
 * answer (204, no token needed, as browsers send none) for a path.
 */
export function cors (app: FastifyInstance, rule: () => OriginRule) {
  // A callback hook: no promise per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    const origin = rule().allow(request.headers.origin)
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
        if (rule().allow(request.headers.origin) !== undefined) {
          reply.header('access-control-allow-methods', [...methods, 'OPTIONS'].join(', '))
          reply.header('access-control-allow-headers', CORS_REQUEST_HEADERS.join(', '))
          reply.header('access-control-max-age', String(MAX_AGE_SECONDS))
        }
        return reply.code(204).send()
      })
    },
  }
}
