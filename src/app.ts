import type { FastifyBaseLogger } from 'fastify'
import { authPlugin, TokenCache } from './auth/auth.plugin.js'
import { edgeRoutes } from './auth/edge.routes.js'
import { projectTokenRoutes, tokenRoutes } from './auth/tokens.routes.js'
import { featureRoutes } from './catalog/catalog.routes.js'
import { environmentRoutes } from './catalog/environments.routes.js'
import { projectEnvironmentRoutes } from './catalog/project-environments.routes.js'
import { projectRoutes } from './catalog/projects.routes.js'
import { archiveRoutes } from './catalog/archive.routes.js'
import { Background } from './background/background.js'
import { ClientState } from './client/client-state.js'
import { clientRoutes } from './client/client.routes.js'
import { clientFeature, databaseEngineSource, pollClientFeatures } from './client/client.service.js'
import type { Config } from './config.js'
import type { DatabaseHandle } from './db/database.js'
import { ChangeFeed } from './events/change-feed.js'
import { eventsRoutes } from './events/events.routes.js'
import { frontendRoutes } from './frontend/frontend.routes.js'
import { Engines } from './frontend/engines.js'
import { ofrepFrameworkErrors, ofrepRoutes } from './frontend/ofrep.routes.js'
import { healthRoutes } from './http/health.routes.js'
import { maintenanceGuard } from './http/maintenance-guard.js'
import { methodNotAllowed } from './http/method-not-allowed.js'
import { noStorePlugin } from './http/no-store.js'
import { openApiPlugin } from './http/openapi.js'
import { requestGuardsPlugin } from './http/request-guards.js'
import { requestLogPlugin } from './http/request-log.js'
import { httpServer } from './http/http-server.js'
import { lifecycleRoutes } from './lifecycle/lifecycle.routes.js'
import { playgroundRoutes } from './playground/playground.routes.js'
import { Tracers } from './playground/playground.service.js'
import { metricsPlugin } from './metrics/metrics.plugin.js'
import { dependencyRoutes } from './dependencies/dependencies.routes.js'
import { constraintRoutes } from './context/constraint-check.routes.js'
import { contextRoutes } from './context/context.routes.js'
import { projectContextRoutes } from './context/project-context.routes.js'
import { featureTypeRoutes } from './feature-types/feature-types.routes.js'
import { featureLinkRoutes } from './feature-links/feature-links.routes.js'
import { favouriteRoutes } from './favourites/favourites.routes.js'
import { dashboardRoutes } from './dashboard/dashboard.routes.js'
import { featureTagRoutes, tagRoutes, tagTypeRoutes } from './tags/tags.routes.js'
import { importExportRoutes } from './import-export/import-export.routes.js'
import { importRules } from './import-export/import-elements.js'
import { segmentRoutes } from './segments/segments.routes.js'
import { definitionRoutes } from './strategies/definitions.routes.js'
import { strategyRoutes } from './strategies/strategies.routes.js'
import { strategySegmentRoutes } from './strategies/strategy-segments.routes.js'
import { loadUiFiles } from './ui/ui-files.js'
import { uiRoutes } from './ui/ui.routes.js'
import { streamingRoutes } from './streaming/streaming.routes.js'
import { clientDelta } from './streaming/delta.service.js'
import { DatabaseStreamSource } from './streaming/stream-reads.service.js'
import { Streams } from './streaming/streams.service.js'
import { usagePruner } from './usage/pruner.service.js'
import { usageRoutes } from './usage/usage.routes.js'
import { UsageRecorder } from './usage/usage.service.js'
import { variantsRoutes } from './variants/variants.routes.js'
import { deliveryPruner, Dispatcher } from './webhooks/dispatcher.service.js'
import { type Resolve, systemResolve } from './webhooks/ssrf.js'
import { addonRoutes } from './webhooks/webhooks.routes.js'
import { authRoutes } from './users/auth.routes.js'
import { meRoutes } from './users/me.routes.js'
import { PasswordHasher } from './users/password-hash.js'
import { sessionSweeper } from './users/sessions.service.js'
import type { PeopleContext } from './users/users.service.js'
import { userAdminRoutes } from './users/users.routes.js'
import { resetRoutes } from './users/reset.routes.js'
import { feedbackRoutes } from './users/feedback.routes.js'
import { signupRoutes } from './signup/signup.routes.js'
import { groupRoutes } from './groups/groups.routes.js'
import { IdentityProviders } from './sso/identity-provider.js'
import { loginPruner } from './sso/login-pruner.js'
import { signOutLocation, signOutOrigins } from './sso/login.service.js'
import { fixedSettingsProblems } from './sso/oidc-settings.js'
import { passwordLoginDisabled, SignInSettings, type SsoContext } from './sso/settings.service.js'
import { ssoRoutes } from './sso/sso.routes.js'
import { searchRoutes } from './insight/search.routes.js'
import { metricsRoutes } from './insight/metrics.routes.js'
import { projectInsightRoutes } from './insight/projects.routes.js'
import { changeRequestRoutes } from './change-requests/change-requests.routes.js'
import { guardPlugin } from './change-requests/guard.plugin.js'
import { changeRules } from './change-requests/payloads.js'
import { ChangeRequestPolicy } from './change-requests/policy.service.js'
import { Scheduler } from './change-requests/scheduler.service.js'
import { instanceRoutes } from './instance/instance.routes.js'
import { InstanceSettings } from './instance/settings.service.js'
import { uiConfigRoutes } from './ui-config/ui-config.routes.js'

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
  const app = httpServer(config, ofrepFrameworkErrors, loggerInstance)

  const db = database.db
  const tokens = new TokenCache(db, config.tokenCacheMs)
  // Single sign-on: its settings (OIDC_* fix some), the provider's discovery, and what password
  // login and logout ask of it.
  const oidcProblems = fixedSettingsProblems(config.oidc)
  if (oidcProblems.length > 0) throw new Error(`Invalid configuration: ${oidcProblems.join('; ')}`)
  const signIn = new SignInSettings(db, config.oidc)
  const sso: SsoContext = {
    db,
    fixed: config.oidc,
    publicUrl: config.publicUrl,
    providers: new IdentityProviders((message, details) => app.log.warn(details ?? {}, message)),
    signIn,
    sessions: config.sessions,
  }
  const people: PeopleContext = {
    db,
    hasher: new PasswordHasher(config.passwordHashCost),
    sessions: config.sessions,
    loginLimits: config.loginLimits,
    publicUrl: config.publicUrl,
    passwordLogin: { disabled: () => passwordLoginDisabled(sso), breakGlass: config.initialAdmin?.username },
    signOutLocation: (sessionId, origin) => signOutLocation(sso, sessionId, origin),
  }
  await app.register(requestLogPlugin)
  await app.register(noStorePlugin)
  await app.register(authPlugin, { tokens, people, loginHint: () => signIn.loginHint() })
  // Maintenance mode and the frontend API's origins, held in memory: a write asks no query.
  const settings = new InstanceSettings(db, {
    fixedOrigins: config.frontendAllowedOrigins,
    onError: (err) => app.log.warn({ err }, 'reading the instance settings failed; kept what was read before'),
  })
  await app.register(maintenanceGuard, { on: () => settings.maintenance })
  await app.register(requestGuardsPlugin)
  // Change requests: a person's direct write to a guarded environment is refused (routes declare `config.guard`).
  const changeRequestPolicy = new ChangeRequestPolicy(db)
  await app.register(guardPlugin, { policy: changeRequestPolicy, db })
  await app.register(openApiPlugin)
  if (config.metricsEnabled) await app.register(metricsPlugin, { database })
  const addMethodNotAllowed = methodNotAllowed(app)

  await app.register(healthRoutes, { db })
  await app.register(projectRoutes, { db })
  await app.register(environmentRoutes, { db })
  await app.register(projectEnvironmentRoutes, { db, limits: config.strategyLimits })
  await app.register(featureRoutes, { db, config })
  await app.register(archiveRoutes, { db })
  await app.register(featureLinkRoutes, { db })
  await app.register(favouriteRoutes, { db })
  await app.register(dashboardRoutes, { db })
  await app.register(variantsRoutes, { db, config })
  await app.register(definitionRoutes, { db })
  await app.register(strategyRoutes, { db, config })
  await app.register(segmentRoutes, { db, config })
  await app.register(strategySegmentRoutes, { db, config })
  await app.register(dependencyRoutes, { db })
  await app.register(constraintRoutes, { db, limits: config.strategyLimits })
  await app.register(contextRoutes, { db })
  await app.register(projectContextRoutes, { db })
  await app.register(tagTypeRoutes, { db })
  await app.register(tagRoutes, { db })
  await app.register(featureTagRoutes, { db })
  await app.register(featureTypeRoutes, { db })
  await app.register(importExportRoutes, { db, rules: importRules(config), config })
  await app.register(lifecycleRoutes, { db })
  await app.register(eventsRoutes, { db })
  await app.register(tokenRoutes, { db, tokens })
  await app.register(edgeRoutes, { tokens, issueToken: true })
  await app.register(projectTokenRoutes, { db, tokens })
  await app.register(authRoutes, { people })
  await app.register(meRoutes, { people })
  await app.register(userAdminRoutes, { people, inactiveDays: config.userInactivityDays })
  await app.register(resetRoutes, { people })
  await app.register(signupRoutes, { people })
  await app.register(feedbackRoutes, { people })
  await app.register(groupRoutes, { db })
  await app.register(ssoRoutes, { sso })
  await app.register(searchRoutes, { db })
  await app.register(metricsRoutes, { db, retentionDays: config.usageRetentionDays })
  await app.register(projectInsightRoutes, { db })
  const rules = changeRules(config)
  const scheduler = new Scheduler(db, rules, app.log, config.changeRequestPollMs)
  await app.register(changeRequestRoutes, { context: { db, rules, scheduled: () => scheduler.wake() }, policy: changeRequestPolicy })
  await app.register(instanceRoutes, { db, settings, oidcEnabled: async () => (await signIn.current()).oidc.enabled })
  await app.register(uiConfigRoutes, {
    db,
    settings,
    limits: config,
    passwordDisabled: () => passwordLoginDisabled(sso),
    oidcFromEnvironment: Object.keys(config.oidc).length > 0,
    publicUrl: config.publicUrl,
    originsFixed: config.frontendAllowedOrigins !== undefined,
  })
  // One change feed per instance: every cache that follows the state hears of a commit at once.
  const changes = new ChangeFeed(database, app.log)
  app.decorate('changes', changes)
  // A saved sign-in setting (on any instance) is read again at once.
  changes.subscribe(() => signIn.forget())
  // A change request setting saved on any instance is read again at once.
  changes.subscribe(() => changeRequestPolicy.forget())
  // A setting saved on another instance (maintenance mode, the frontend API's origins) is read again.
  changes.subscribe(() => settings.changed())
  const state = new ClientState(db, config.clientStateCacheMs)
  changes.subscribe(() => state.forget())
  const usage = new UsageRecorder(db, {
    limits: { maxApplications: config.clientMaxApplications, maxInstances: config.clientMaxInstances },
    flushMs: config.usageFlushMs,
    maxPending: config.usageMaxPending,
    onError: (err, message) => app.log.warn({ err }, message),
  })
  app.decorate('usage', usage)
  await app.register(clientRoutes, { features: (token, wants) => pollClientFeatures(db, state, token, wants), feature: (token, name) => clientFeature(db, token, name) })
  const streams: Streams = new Streams(new DatabaseStreamSource(db, changes, config.streaming.replayLimit), config.streaming, app.log)
  app.decorate('streams', streams)
  await app.register(streamingRoutes, { delta: (token, query, held) => clientDelta(db, token, query, held, config.streaming.replayLimit), streams })
  await app.register(usageRoutes, { usage, ratePerMinute: config.clientUsageRate })
  const engines = new Engines(databaseEngineSource(db, state), config.frontendMaxEngines)
  app.addHook('onClose', async () => engines.destroy())
  const origins = () => settings.originRule
  await app.register(frontendRoutes, { usage, engines, origins, ratePerMinute: config.clientUsageRate })
  await app.register(ofrepRoutes, { engines, origins })
  await app.register(playgroundRoutes, { tracers: new Tracers(db), preview: { db, rules } })
  // Every instance delivers webhooks: what is due, from any instance's changes.
  const webhooks = new Dispatcher(db, config.webhooks, app.log, resolve)
  app.decorate('webhooks', webhooks)
  // A committed change (its deliveries commit with it) is claimed at once, not at the next poll.
  changes.subscribe(() => webhooks.wake())
  await app.register(addonRoutes, { db, config: config.webhooks, resolve, changed: () => webhooks.webhooksChanged() })
  addMethodNotAllowed()

  // The admin UI: one more client of the API above, served from the same origin.
  const uiFiles = uiDir === undefined ? undefined : await loadUiFiles(uiDir)
  if (uiFiles) await app.register(uiRoutes, { files: uiFiles, formOrigins: () => signOutOrigins(sso) })
  else if (uiDir !== undefined) app.log.warn({ uiDir }, 'the admin UI is not built there (npm run build); serving the API only')

  // Background work, in the order it starts; it stops in the reverse order, each worker before
  // those it relies on (docs/architecture.md, "Background work").
  const background = new Background()
    .add('change feed', changes)
    .add('instance settings', settings)
    .add('usage flush', usage)
    .add('usage pruner', usagePruner(db, config.usageRetentionDays, app.log))
    .add('webhook dispatcher', webhooks)
    .add('webhook deliveries pruner', deliveryPruner(webhooks, app.log))
    .add('session sweeper', sessionSweeper(people, (err) => app.log.warn({ err }, 'removing ended sessions failed; retried later')))
    .add('sign-in pruner', loginPruner(db, (err) => app.log.warn({ err }, 'removing expired single sign-on logins failed; retried later')))
    .add('change request scheduler', scheduler)
    // A stream never ends by itself: streams end as the close begins, before the server waits for its connections.
    .add('streams', streams, { endsConnections: true })
  app.addHook('onReady', async () => {
    await background.start()
    // The stand-in password hash is made before the first login, so that the first unknown name costs no more than others.
    await people.hasher.warm()
  })
  app.addHook('preClose', async () => background.stopConnections())
  // After the last request has been answered: what in-flight reports added is written too.
  app.addHook('onClose', async () => background.stop())
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>
