import { randomUUID } from 'node:crypto'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyServerOptions, LogController } from 'fastify'
import { authPlugin, TokenCache } from './auth/auth.plugin.js'
import { tokenRoutes } from './auth/tokens.routes.js'
import { environmentRoutes, featureRoutes, projectRoutes } from './catalog/catalog.routes.js'
import { ClientState } from './client/client-state.js'
import { clientRoutes } from './client/client.routes.js'
import { streamingRoutes } from './client/streaming.routes.js'
import { Streams } from './client/streaming.service.js'
import { usageRoutes } from './client/usage.routes.js'
import { UsageRecorder } from './client/usage.service.js'
import type { Config } from './config.js'
import type { DatabaseHandle } from './db/database.js'
import { ChangeFeed } from './events/change-feed.js'
import { eventsRoutes } from './events/events.routes.js'
import { frontendRoutes } from './frontend/frontend.routes.js'
import { Engines } from './frontend/frontend.service.js'
import { ofrepPathError, ofrepRoutes, targetsOfrepFlag } from './frontend/ofrep.routes.js'
import { clientErrorHandler, registerErrorHandling, sendError } from './http/error-handler.js'
import { healthRoutes } from './http/health.routes.js'
import { methodNotAllowed } from './http/method-not-allowed.js'
import { noStorePlugin } from './http/no-store.js'
import { openApiPlugin } from './http/openapi.js'
import { requestGuardsPlugin } from './http/request-guards.js'
import { REQUEST_ID_PATTERN, requestLogPlugin } from './http/request-log.js'
import { validatorCompiler } from './http/validation.js'
import { lifecycleRoutes } from './lifecycle/lifecycle.routes.js'
import { loggerOptions } from './logger.js'
import { metricsPlugin } from './metrics/metrics.plugin.js'
import { dependencyRoutes } from './dependencies/dependencies.routes.js'
import { constraintRoutes } from './context/constraint-check.routes.js'
import { contextRoutes } from './context/context.routes.js'
import { featureTypeRoutes } from './feature-types/feature-types.routes.js'
import { featureTagRoutes, tagRoutes, tagTypeRoutes } from './tags/tags.routes.js'
import { migrationRoutes } from './migration/migration.routes.js'
import { importRules } from './migration/migration.service.js'
import { segmentRoutes } from './segments/segments.routes.js'
import { definitionRoutes } from './strategies/definitions.routes.js'
import { strategyRoutes } from './strategies/strategies.routes.js'
import { loadUiFiles } from './ui/ui-files.js'
import { uiRoutes } from './ui/ui.routes.js'
import { variantsRoutes } from './variants/variants.routes.js'
import { Dispatcher } from './webhooks/dispatcher.service.js'
import { type Resolve, systemResolve } from './webhooks/ssrf.js'
import { addonRoutes } from './webhooks/webhooks.routes.js'
import { authRoutes } from './users/auth.routes.js'
import { meRoutes } from './users/me.routes.js'
import { PasswordHasher } from './users/password-hash.js'
import { SessionSweeper } from './users/sessions.service.js'
import type { PeopleContext } from './users/users.service.js'
import { userAdminRoutes } from './users/users.routes.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Set on SIGTERM: /ready answers 503 so that load balancers stop sending work. */
    draining: boolean
    /** Sends webhook deliveries; started when the app is ready, stopped when it closes. */
    webhooks: Dispatcher
    /** SDK usage summed in memory; written every USAGE_FLUSH_MS and when the app closes. */
    usage: UsageRecorder
    /**
     * Wakes its subscribers after every committed change on any instance (LISTEN/NOTIFY):
     * `app.changes.subscribe(() => …)`. Listening from onReady until the app closes.
     */
    changes: ChangeFeed
    /** The SSE streams of GET /api/client/streaming on this instance; all ended when the app closes. */
    streams: Streams
  }
}

export interface AppDeps {
  database: DatabaseHandle
  /** How webhook hosts are resolved (default: the system's dns.lookup); tests pass their own. */
  resolve?: Resolve
  /** The built admin UI (build.mjs writes <dist>/web); served at / when given and built. */
  uiDir?: string
}

/** Builds the HTTP application; the caller owns the database handle and closes it. */
export async function buildApp (config: Config, { database, resolve = systemResolve, uiDir }: AppDeps, loggerInstance?: FastifyBaseLogger) {
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
    frameworkErrors: (error, request, reply) =>
      request.method === 'POST' && targetsOfrepFlag(request.url) ? ofrepPathError(request, reply) : sendError(request, reply, error),
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>()
  app.decorate('draining', false)
  app.setValidatorCompiler(validatorCompiler)
  registerErrorHandling(app)

  const db = database.db
  const tokens = new TokenCache(db, config.tokenCacheMs)
  const people: PeopleContext = {
    db,
    hasher: new PasswordHasher(config.passwordHashCost),
    sessions: config.sessions,
    loginLimits: config.loginLimits,
  }
  await app.register(requestLogPlugin)
  await app.register(noStorePlugin)
  await app.register(authPlugin, { tokens, people })
  await app.register(requestGuardsPlugin)
  await app.register(openApiPlugin)
  if (config.metricsEnabled) await app.register(metricsPlugin, { database })
  const addMethodNotAllowed = methodNotAllowed(app)

  await app.register(healthRoutes, { db })
  await app.register(projectRoutes, { db })
  await app.register(environmentRoutes, { db })
  await app.register(featureRoutes, { db })
  await app.register(variantsRoutes, { db, config })
  await app.register(definitionRoutes, { db })
  await app.register(strategyRoutes, { db, config })
  await app.register(segmentRoutes, { db, config })
  await app.register(dependencyRoutes, { db })
  await app.register(constraintRoutes, { db, limits: config.strategyLimits })
  await app.register(contextRoutes, { db })
  await app.register(tagTypeRoutes, { db })
  await app.register(tagRoutes, { db })
  await app.register(featureTagRoutes, { db })
  await app.register(featureTypeRoutes, { db })
  await app.register(migrationRoutes, { db, rules: importRules(config), config })
  await app.register(lifecycleRoutes, { db })
  await app.register(eventsRoutes, { db })
  await app.register(tokenRoutes, { db, tokens })
  await app.register(authRoutes, { people })
  await app.register(meRoutes, { people })
  await app.register(userAdminRoutes, { people })
  // One change feed per instance: every cache that follows the state hears of a commit at once.
  const changes = new ChangeFeed(database, app.log)
  app.decorate('changes', changes)
  app.addHook('onReady', async () => changes.start())
  app.addHook('onClose', async () => changes.stop())
  const state = new ClientState(db, config.clientStateCacheMs)
  changes.subscribe(() => state.forget())
  const usage = new UsageRecorder(db, {
    limits: { maxApplications: config.clientMaxApplications, maxInstances: config.clientMaxInstances },
    flushMs: config.usageFlushMs,
    maxPending: config.usageMaxPending,
    onError: (err, message) => app.log.warn({ err }, message),
  })
  app.decorate('usage', usage)
  app.addHook('onReady', async () => usage.start())
  // After the server stopped taking requests: what in-flight reports added is written too.
  app.addHook('onClose', async () => usage.stop())
  await app.register(clientRoutes, { db, state })
  const streams = new Streams(db, changes, config.streaming, app.log)
  app.decorate('streams', streams)
  app.addHook('onReady', async () => streams.start())
  // Before the server stops taking connections and waits for them: a stream never ends by itself.
  app.addHook('preClose', async () => streams.closeAll())
  await app.register(streamingRoutes, { db, streams, options: config.streaming })
  await app.register(usageRoutes, { db, usage, ratePerMinute: config.clientUsageRate, retentionDays: config.usageRetentionDays })
  const engines = new Engines(db, state, config.frontendMaxEngines)
  app.addHook('onClose', async () => engines.destroy())
  const origins = config.frontendAllowedOrigins
  await app.register(frontendRoutes, { usage, engines, origins, ratePerMinute: config.clientUsageRate })
  await app.register(ofrepRoutes, { engines, origins })
  await app.register(addonRoutes, { db, config: config.webhooks, resolve, changed: () => app.webhooks.webhooksChanged() })
  addMethodNotAllowed()

  // The admin UI: one more client of the API above, served from the same origin.
  const uiFiles = uiDir === undefined ? undefined : await loadUiFiles(uiDir)
  if (uiFiles) await app.register(uiRoutes, { files: uiFiles })
  else if (uiDir !== undefined) app.log.warn({ uiDir }, 'the admin UI is not built there (npm run build); serving the API only')

  // Every instance delivers webhooks: what is due, from any instance's changes.
  app.decorate('webhooks', new Dispatcher(db, config.webhooks, app.log, resolve))
  // A committed change (its deliveries commit with it) is claimed at once, not at the next poll.
  changes.subscribe(() => app.webhooks.wake())
  app.addHook('onReady', async () => app.webhooks.start())
  app.addHook('onClose', async () => app.webhooks.stop())
  // Ended sessions and old login counts are removed in the background; the stand-in password
  // hash is made before the first login, so that the first unknown name costs no more than others.
  const sweeper = new SessionSweeper(people, (err) => app.log.warn({ err }, 'removing ended sessions failed; retried later'))
  app.addHook('onReady', async () => {
    sweeper.start()
    await people.hasher.warm()
  })
  app.addHook('onClose', async () => sweeper.stop())
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>
