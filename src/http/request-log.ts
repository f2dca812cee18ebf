import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The query holds secrets (an authorization code, a state, a reset token): the log line shows the path only. */
    secretQuery?: boolean
    /**
     * Path parameters that hold secrets: true for every one (a sign-up token's path: the log line
     * shows the route with them redacted and no query), or the names of those that may (an API
     * token's: the route's path with them redacted, the others and the query as sent).
     */
    secretPath?: boolean | readonly string[]
  }
}

/**
 * The URL as logged: without its query when the route says the query holds secrets, or when no
 * route matched; the route's pattern with every parameter `[redacted]` (and no query) when its
 * path holds secrets; the route's pattern with the named parameters `[redacted]` when it names
 * the ones that may.
 */
function loggedUrl (request: FastifyRequest) {
  const { url } = request
  const { secretQuery, secretPath } = request.routeOptions.config
  const route = request.routeOptions.url
  if (secretPath === true && route !== undefined) return route.replace(/:[A-Za-z0-9_]+/g, '[redacted]')
  const at = url.indexOf('?')
  // A path that matched no route: its query may be a link's meant for a page not served (the UI not built).
  const query = at < 0 ? '' : secretQuery === true || route === undefined ? '?[redacted]' : url.slice(at)
  if (!Array.isArray(secretPath) || route === undefined) return `${url.slice(0, at < 0 ? url.length : at)}${query}`
  const named: readonly string[] = secretPath
  const params = request.params as Record<string, unknown>
  const path = route.replace(/:(\w+)/g, (_, name: string) => (named.includes(name) ? '[redacted]' : encodeURIComponent(String(params[name] ?? ''))))
  return `${path}${query}`
}

/** An incoming x-request-id is kept when it looks like an id; otherwise the request gets a UUID. */
export const REQUEST_ID_PATTERN = /^[\w.-]{1,100}$/

/**
 * A request's logger, made only when the request logs something besides its one line (a
 * refusal, an error): most requests never need one, and making one per request was a
 * measurable part of the server's CPU time per request. Methods on the prototype, so that a
 * request that never logs costs one small object.
 */
class LazyChild {
  #child: FastifyBaseLogger | undefined

  constructor (
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: object
  ) {}

  get #real () {
    return (this.#child ??= this.parent.child(this.bindings, this.options))
  }

  get level () { return this.#real.level }
  set level (level: string) { this.#real.level = level }
  child (bindings: Record<string, unknown>, options?: object) { return this.#real.child(bindings, options) }
  fatal (...args: unknown[]) { (this.#real.fatal as (...a: unknown[]) => void)(...args) }
  error (...args: unknown[]) { (this.#real.error as (...a: unknown[]) => void)(...args) }
  warn (...args: unknown[]) { (this.#real.warn as (...a: unknown[]) => void)(...args) }
  info (...args: unknown[]) { (this.#real.info as (...a: unknown[]) => void)(...args) }
  debug (...args: unknown[]) { (this.#real.debug as (...a: unknown[]) => void)(...args) }
  trace (...args: unknown[]) { (this.#real.trace as (...a: unknown[]) => void)(...args) }
  silent () {}
}

/**
 * The routes SDKs call with their tokens (the client API, the frontend API, OFREP). Every SDK
 * instance and every browser tab polls them (a tab every 15 s by default), so a line at info for
 * each answered call would be most of the log: 5,000 polls a second are 430 million lines a day.
 * Their answered calls are logged at debug; their refusals and failures, like every other
 * route's requests, at info.
 */
const SDK_ACCESS = new Set<string | undefined>(['client', 'frontend'])

/**
 * One log line per request (request id, method, url, status, time) instead of Fastify's two,
 * and the request id echoed in `x-request-id` on every response, so that a client can quote
 * it and find the line (the error id of a refusal is in the same request's log).
 */
export const requestLogPlugin = fp(
  async (app: FastifyInstance) => {
    app.setChildLoggerFactory((logger, bindings, options) => new LazyChild(logger, bindings, options) as unknown as FastifyBaseLogger)
    // Callback hooks: no promise per request.
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id)
      done()
    })
    app.addHook('onResponse', (request, reply, done) => {
      const line = {
        reqId: request.id,
        method: request.method,
        url: loggedUrl(request),
        statusCode: reply.statusCode,
        responseTime: Math.round(reply.elapsedTime * 100) / 100,
      }
      if (reply.statusCode < 400 && SDK_ACCESS.has(request.routeOptions.config.access)) app.log.debug(line, 'request completed')
      else app.log.info(line, 'request completed')
      done()
    })
  },
  { name: 'request-log' }
)
