import { randomUUID } from 'node:crypto'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyServerOptions, LogController } from 'fastify'
import type { Config } from '../config.js'
import { loggerOptions } from '../logger.js'
import { clientErrorHandler, registerErrorHandling } from './error-handler.js'
import { REQUEST_ID_PATTERN } from './request-log.js'
import { validatorCompiler } from './validation.js'

/**
 * The HTTP server both modes build on (the server's app, a relay's): its limits and timeouts,
 * request ids, the router, the caller's address, the validator and the one error mapping.
 */
export function httpServer (config: Config, frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']>, loggerInstance?: FastifyBaseLogger) {
  const app = Fastify({
    ...(loggerInstance ? { loggerInstance } : { logger: loggerOptions(config.logLevel) }),
    bodyLimit: config.bodyLimit,
    // Slow clients: all of a request must arrive within requestTimeout, and an idle
    // connection is closed after connectionTimeout; Node checks both every second.
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.connectionTimeoutMs,
    http: { connectionsCheckingInterval: 1000, headersTimeout: config.requestTimeoutMs },
    genReqId: (req) => {
      const sent = req.headers['x-request-id']
      return typeof sent === 'string' && REQUEST_ID_PATTERN.test(sent) ? sent : randomUUID()
    },
    // Long enough for any key an OFREP client may send (its route answers FLAG_NOT_FOUND for
    // them); other routes refuse a parameter over 100 characters with a 400 naming it.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    trustProxy: config.trustProxy as FastifyServerOptions['trustProxy'],
    logController: new LogController({ disableRequestLogging: true }),
    // Errors the router raises before any route is found (a malformed %-escape in the path).
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>()
  app.decorate('draining', false)
  app.setValidatorCompiler(validatorCompiler)
  registerErrorHandling(app)
  return app
}
