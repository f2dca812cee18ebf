import type { FastifyInstance, HTTPMethods } from 'fastify'
import { ApiError } from '../errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the routes that answer 405 for a path's missing methods. */
    methodNotAllowed?: true
  }
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/**
 * 405 with an Allow header, instead of 404, for a method a path does not have.
 *
 * Call it before the API routes are registered (it watches them being added), and call the
 * function it returns after: that adds, for every API path, one hidden route taking the
 * methods the path lacks. Those routes need a valid token (of any type) like any other, so that
 * without one the answer stays 401 and reveals nothing about which paths exist.
 */
export function methodNotAllowed (app: FastifyInstance): () => void {
  const paths = new Map<string, Set<string>>()
  /** The secret path parameters of a path (its log lines redact them for every method). */
  const secrets = new Map<string, boolean | readonly string[]>()
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.config?.methodNotAllowed) return
    if (route.config?.secretPath) secrets.set(route.url, route.config.secretPath)
    const methods = paths.get(route.url) ?? new Set<string>()
    for (const method of [route.method].flat()) {
      methods.add(method)
      if (method === 'GET') methods.add('HEAD')
    }
    paths.set(route.url, methods)
  })
  return () => {
    for (const [url, methods] of paths) {
      const allow = METHODS.filter((m) => methods.has(m)).join(', ')
      const missing = METHODS.filter((m) => !methods.has(m)) as HTTPMethods[]
      if (missing.length === 0) continue
      app.route({
        method: missing,
        url,
        config: { access: 'any', methodNotAllowed: true, ...(secrets.has(url) && { secretPath: secrets.get(url) }) },
        schema: { hide: true },
        handler: async (request) => {
          throw new ApiError('MethodNotAllowedError', `${request.method} is not allowed on ${url}; it allows ${allow}`, [], {
            allow,
          })
        },
      })
    }
  }
}
