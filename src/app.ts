import { randomUUID } from 'node:crypto'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify'
import { authPlugin, TokenCache } from './auth/auth.plugin.js'
import { tokenRoutes } from './auth/tokens.routes.js'
import { environmentRoutes, featureRoutes, projectRoutes } from './catalog/catalog.routes.js'
import type { Config } from './config.js'
import type { DatabaseHandle } from './db/database.js'
import { ErrorBody, problemResponses } from './errors.js'
import { eventsRoutes } from './events/events.routes.js'
import { registerErrorHandling, sendError } from './http/error-handler.js'
import { healthRoutes } from './http/health.routes.js'
import { validatorCompiler } from './http/validation.js'
import { lifecycleRoutes } from './lifecycle/lifecycle.routes.js'
import { metricsPlugin } from './metrics/metrics.plugin.js'
import { variantsRoutes } from './variants/variants.routes.js'

declare module 'fastify' {
  interface FastifyInstance {
    registeredRoutes: { method: string; url: string }[]
    /** Set on SIGTERM: /ready answers 503 so that load balancers stop sending work. */
    draining: boolean
  }
}

export interface AppDeps {
  database: DatabaseHandle
}

/** Builds the HTTP application; the caller owns the database handle and closes it. */
export async function buildApp (
  config: Config,
  { database }: AppDeps,
  loggerInstance?: FastifyBaseLogger
) {
  const app = Fastify({
    ...(loggerInstance ? { loggerInstance } : { logger: { level: config.logLevel } }),
    bodyLimit: config.bodyLimit,
    genReqId: (req) => {
      const sent = req.headers['x-request-id']
      return typeof sent === 'string' && /^[\w.-]{1,100}$/.test(sent) ? sent : randomUUID()
    },
    routerOptions: { ignoreTrailingSlash: true },
    // One log line per request (the onResponse hook below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // Errors the router raises before any route is found (a malformed %-escape in the path).
    frameworkErrors: (error, request, reply) => sendError(request, reply, error),
  }).withTypeProvider<TypeBoxTypeProvider>()

  // The route table, for the test that proves every /api/admin route demands a token.
  const routes: { method: string; url: string }[] = []
  app.decorate('registeredRoutes', routes)
  app.decorate('draining', false)
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url })
  })

  app.setValidatorCompiler(validatorCompiler)
  // Only JSON bodies: anything else is a 415. JSON Patch has its own media type; it is JSON.
  app.removeContentTypeParser('text/plain')
  app.addContentTypeParser(
    'application/json-patch+json',
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error')
  )
  app.addSchema(ErrorBody)
  registerErrorHandling(app)
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        responseTime: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request completed'
    )
  })

  await app.register(swagger, {
    // Shared schemas keep their $id as their name in components.schemas.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
    transform: ({ schema, url }) => {
      if (!schema?.errors) return { schema, url }
      const { errors, ...rest } = schema
      return {
        schema: { ...rest, response: { ...(rest.response as object), ...problemResponses(errors) } },
        url,
      }
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Feature-flag admin API',
        version: '1.0.0',
        description:
          "Unleash-compatible admin API for feature-flag variants (RFC 6902 JSON Patch) and lifecycle completion. Every error is an RFC 9457 problem body (application/problem+json) with Unleash's `id`, `name`, `message` and `details`.",
      },
      components: {
        securitySchemes: {
          apiToken: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'The token secret, optionally prefixed with "Bearer "',
          },
        },
      },
      security: [{ apiToken: [] }],
    },
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })

  const tokens = new TokenCache(database.db, config.tokenCacheMs)
  const db = database.db
  await app.register(authPlugin, { tokens })
  if (config.metricsEnabled) await app.register(metricsPlugin, { database })

  await app.register(healthRoutes, { db })
  await app.register(projectRoutes, { db })
  await app.register(environmentRoutes, { db })
  await app.register(featureRoutes, { db })
  await app.register(variantsRoutes, { db, config })
  await app.register(lifecycleRoutes, { db })
  await app.register(eventsRoutes, { db })
  await app.register(tokenRoutes, { db, tokens })
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>
