import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply } from '../http/schemas.js'
import { UsageRate } from './admission.js'
import { BulkMetrics, ClientMetrics, ClientRegistration } from './usage.schemas.js'
import type { UsageSink } from './usage.service.js'

interface Options {
  /** Where reports go: the database on the server, upstream at a relay. */
  usage: UsageSink
  ratePerMinute: number
  /** What the descriptions say happens to a report (the server's words, or a relay's). */
  fate?: { register: string; metrics: string; bulk: string }
}

const METRICS =
  "Unleash's metrics body, validated strictly. Counts are summed in memory and written every USAGE_FLUSH_MS, added per feature and application (the app name with this token) to the hour the bucket stopped (as Unleash files them; a bucket stopping in the future counts in the current hour), with per-variant counts (at most 100 variant names per feature, application and hour); features that are archived or outside the token's projects are ignored, and names of no feature are kept a day as unknown flags (GET /api/admin/metrics/unknown-flags). The reporting instance is marked seen (recorded, if it never registered, while the token has fewer than CLIENT_MAX_INSTANCES). Hourly counts are kept USAGE_RETENTION_DAYS. The first evaluation moves a feature to the lifecycle stage live (in an environment of type production where it is on) or pre-live (anywhere else) when its counts are written, with the event feature-lifecycle-stage-entered; the counts themselves are usage data and record no event. A new application past CLIENT_MAX_APPLICATIONS is 400. At most CLIENT_USAGE_RATE usage reports per token per minute; more are 429."

const SERVER = {
  register: 'Unleash\'s registration body, validated strictly (unknown members are refused). An instance is recorded for its application (the app name reported with this token, its environment and projects): registrations through other tokens never replace it. Usage data, not a change: no event; summed in memory and written every USAGE_FLUSH_MS. A token may report CLIENT_MAX_APPLICATIONS applications and have CLIENT_MAX_INSTANCES instances (forgotten 48 hours after they were last seen); a new one past either is 400. At most CLIENT_USAGE_RATE usage reports (registrations and metrics) per token per minute; more are 429.',
  metrics: METRICS,
  bulk: "As Unleash (for Unleash Edge and relays): the applications are registered (browser SDKs' are not stored, as their own registrations) and the metrics of the token's environment counted (others ignored), each application as if it had reported itself, with the same rules and caps. What one application is refused does not stop the others: they are recorded and the answer is 400 naming the refusal. One usage report of the token (CLIENT_USAGE_RATE).",
}

export const usageRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { usage, ratePerMinute, fate = SERVER }) => {
  const rate = new UsageRate(ratePerMinute)

  app.post(
    '/api/client/register',
    {
      config: { access: 'client' },
      schema: {
        tags: ['Client API'],
        operationId: 'registerClientApplication',
        summary: 'An SDK instance announces itself',
        description: fate.register,
        body: ClientRegistration,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 202: EmptyReply },
      },
    },
    async (request, reply) => {
      rate.take(request.token.name)
      await usage.register(request.token, request.body)
      return reply.code(202).send()
    }
  )

  app.post(
    '/api/client/metrics',
    {
      config: { access: 'client' },
      schema: {
        tags: ['Client API'],
        operationId: 'registerClientMetrics',
        summary: 'An SDK reports how often it evaluated each feature',
        description: fate.metrics,
        body: ClientMetrics,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 202: EmptyReply },
      },
    },
    async (request, reply) => {
      rate.take(request.token.name)
      await usage.count(request.token, request.body)
      return reply.code(202).send()
    }
  )

  app.post(
    '/api/client/metrics/bulk',
    {
      config: { access: 'client' },
      schema: {
        tags: ['Client API'],
        operationId: 'clientBulkMetrics',
        summary: 'Registrations and metrics of many SDKs at once (Unleash Edge, relays)',
        description: fate.bulk,
        body: BulkMetrics,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 202: EmptyReply },
      },
    },
    async (request, reply) => {
      rate.take(request.token.name)
      await usage.bulk(request.token, request.body)
      return reply.code(202).send()
    }
  )
}
