import type { FastifyBaseLogger } from 'fastify'
import { Gauge, type Registry } from 'prom-client'
import { authPlugin } from '../auth/auth.plugin.js'
import { edgeRoutes } from '../auth/edge.routes.js'
import { Background } from '../background/background.js'
import { clientRoutes } from '../client/client.routes.js'
import type { Config, RelayConfig } from '../config.js'
import { Engines } from '../frontend/engines.js'
import { frontendRoutes } from '../frontend/frontend.routes.js'
import { ofrepFrameworkErrors, ofrepRoutes } from '../frontend/ofrep.routes.js'
import { originRule } from '../http/cors.js'
import { httpServer } from '../http/http-server.js'
import { methodNotAllowed } from '../http/method-not-allowed.js'
import { openApiPlugin } from '../http/openapi.js'
import { requestGuardsPlugin } from '../http/request-guards.js'
import { requestLogPlugin } from '../http/request-log.js'
import { metricsPlugin } from '../metrics/metrics.plugin.js'
import { streamingRoutes } from '../streaming/streaming.routes.js'
import { Streams } from '../streaming/streams.service.js'
import { usageRoutes } from '../usage/usage.routes.js'
import { UsageForwarder } from './forwarder.js'
import { relayClientFeature, relayClientFeatures, relayDelta, relayEngineSource, relayStreamSource } from './relay-reads.js'
import { relayRoutes } from './relay.routes.js'
import { Relay } from './relay.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Relay mode: the flags held, the tokens known, the upstream. */
    relay: Relay
    /** Relay mode: SDK usage on its way upstream. */
    forwarder: UsageForwarder
  }
}

const FATE = {
  register: 'Unleash\'s registration body, validated strictly. At a relay: sent upstream (POST /api/client/metrics/bulk) with the others reported meanwhile, every USAGE_FLUSH_MS; kept while the upstream is away (at most USAGE_MAX_PENDING rows; what does not fit is dropped and counted). At most CLIENT_USAGE_RATE usage reports per token per minute; more are 429.',
  metrics: 'Unleash\'s metrics body, validated strictly. At a relay: summed per application and feature and sent upstream in one batch every USAGE_FLUSH_MS (POST /api/client/metrics/bulk), where they count as on the server; kept while the upstream is away (at most USAGE_MAX_PENDING rows; what does not fit is dropped and counted). At most CLIENT_USAGE_RATE usage reports per token per minute; more are 429.',
  bulk: 'The batches of relays (or Unleash Edge) behind this one: added to what this relay sends upstream every USAGE_FLUSH_MS. One usage report of the token (CLIENT_USAGE_RATE).',
}

/** The relay's own Prometheus metrics, read at scrape time. */
function relayMetrics (relay: Relay, forwarder: UsageForwarder) {
  return (registry: Registry) => {
    const gauge = (name: string, help: string, collect: (g: Gauge) => void, labelNames: string[] = []) =>
      registry.registerMetric(new Gauge({ name, help, labelNames, registers: [], collect () { collect(this) } }))
    gauge('relay_scopes', 'Environment and project sets whose flags the relay holds', (g) => g.set(relay.scopes.size))
    gauge('relay_tokens', 'API tokens the relay serves', (g) => g.set(relay.tokens.size))
    gauge('relay_upstream_up', '1 while the upstream answers (its last request or stream got an answer), 0 while it cannot be reached', (g) => g.set(relay.upstream.up === true ? 1 : 0))
    gauge('relay_upstream_streaming', '1 when changes arrive on streams, 0 when the upstream is polled every REFRESH_INTERVAL', (g) => g.set(relay.modes.streams === false ? 0 : 1))
    gauge('relay_last_refresh_timestamp_seconds', 'When the upstream was last heard from for a scope (a poll\'s answer, a stream\'s message or keep-alive)', (g) => {
      g.reset()
      for (const scope of relay.scopes.values()) g.set({ scope: `${scope.environment}:${scope.projects?.join(',') ?? '*'}` }, scope.lastRefresh / 1000)
    }, ['scope'])
    gauge('relay_metrics_forwarded_total', 'Usage rows (registrations, counts per application and feature) the upstream accepted', (g) => g.set(forwarder.stats.forwarded))
    gauge('relay_metrics_dropped_total', 'Usage rows dropped: full (USAGE_MAX_PENDING reached while the upstream was away), refused (by the upstream), unserved (no client token to send them with)', (g) => {
      for (const [reason, n] of Object.entries(forwarder.stats.dropped)) g.set({ reason }, n)
    }, ['reason'])
    gauge('relay_metrics_pending', 'Usage rows waiting to be sent upstream', (g) => g.set(forwarder.pending))
    gauge('relay_upstream_requests_total', 'Requests sent to the upstream, by kind: validate (tokens), features (polls), stream (streams opened), bulk (usage batches)', (g) => {
      for (const [kind, n] of Object.entries(relay.upstream.requests)) g.set({ kind }, n)
    }, ['kind'])
  }
}

/**
 * A relay (UPSTREAM_URL set): the SDK-facing routes of the server (client features, delta,
 * streaming, usage, frontend API, OFREP) served from flags held in memory and kept in step
 * with the upstream, and POST /edge/validate for relays behind it; no database, no admin API.
 */
export async function buildRelayApp (config: Config, relayConfig: RelayConfig, loggerInstance?: FastifyBaseLogger) {
  const app = httpServer(config, ofrepFrameworkErrors, loggerInstance)
  const relay = new Relay(relayConfig, app.log)
  app.decorate('relay', relay)
  const forwarder = new UsageForwarder(relay.upstream, {
    flushMs: config.usageFlushMs,
    maxPending: config.usageMaxPending,
    secretFor: (token) => relay.tokens.upstreamSecret(token),
    projectOf: (token, featureName) => relay.tokens.covering(token)?.projectOf(featureName),
    log: app.log,
  })
  app.decorate('forwarder', forwarder)

  await app.register(requestLogPlugin)
  await app.register(authPlugin, { tokens: relay.tokens })
  await app.register(requestGuardsPlugin)
  await app.register(openApiPlugin)
  const streams: Streams = new Streams(relayStreamSource(relay), config.streaming, app.log)
  app.decorate('streams', streams)
  if (config.metricsEnabled) await app.register(metricsPlugin, { more: relayMetrics(relay, forwarder) })
  const addMethodNotAllowed = methodNotAllowed(app)

  await app.register(relayRoutes, { relay })
  await app.register(edgeRoutes, { tokens: relay.tokens, issueToken: false })
  await app.register(clientRoutes, { features: relayClientFeatures(relay), feature: relayClientFeature(relay) })
  await app.register(streamingRoutes, { delta: relayDelta(relay), streams })
  await app.register(usageRoutes, { usage: forwarder, ratePerMinute: config.clientUsageRate, fate: FATE })
  const engines = new Engines(relayEngineSource(relay), config.frontendMaxEngines)
  app.addHook('onClose', async () => engines.destroy())
  // No Admin sets them at a relay: FRONTEND_ALLOWED_ORIGINS, else any origin (the server's default).
  const rule = originRule(config.frontendAllowedOrigins ?? ['*'])
  const origins = () => rule
  await app.register(frontendRoutes, { usage: forwarder, engines, origins, ratePerMinute: config.clientUsageRate, moreErrors: [511] })
  await app.register(ofrepRoutes, { engines, origins, moreErrors: [511] })
  addMethodNotAllowed()

  // The flags first (from the backup, then the upstream), then usage going up, then the streams.
  const background = new Background()
    .add('relay', relay)
    .add('usage forwarder', forwarder)
    .add('streams', streams, { endsConnections: true })
  // Not awaited: the relay listens (and answers /health) while it waits for its upstream.
  app.addHook('onReady', async () => {
    background.start().catch((err: unknown) => app.log.error({ err }, 'relay: starting failed'))
  })
  app.addHook('preClose', async () => background.stopConnections())
  app.addHook('onClose', async () => background.stop())
  return app
}

export type RelayApp = Awaited<ReturnType<typeof buildRelayApp>>
