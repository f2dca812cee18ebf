import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/types.js'
import { ApiError } from '../errors.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply } from '../http/schemas.js'
import { ClientMetrics, ClientRegistration } from './usage.schemas.js'
import { recordMetrics, registerApplication } from './usage.store.js'

/**
 * At most `limit` usage reports per token per minute, per instance of this service: SDKs
 * report every minute or so, so this only stops a token that floods.
 */
export class UsageRate {
  readonly #windows = new Map<string, { start: number; count: number }>()
  constructor (private readonly limit: number) {}

  take (token: string): void {
    const now = Date.now()
    const minute = Math.floor(now / 60_000) * 60_000
    const window = this.#windows.get(token)
    if (!window || window.start !== minute) {
      if (this.#windows.size > 10_000) this.#windows.clear()
      this.#windows.set(token, { start: minute, count: 1 })
      return
    }
    if (++window.count > this.limit) {
      throw new ApiError(
        'TooManyRequestsError',
        `Client token ${token} sent more than ${this.limit} usage reports this minute`,
        [],
        { 'retry-after': String(Math.ceil((minute + 60_000 - now) / 1000)) }
      )
    }
  }
}

export const usageRoutes: FastifyPluginAsyncTypebox<{ db: Database; ratePerMinute: number }> = async (app, { db, ratePerMinute }) => {
  const rate = new UsageRate(ratePerMinute)

  app.post(
    '/api/client/register',
    {
      config: { access: 'client' },
      schema: {
        tags: ['Client API'],
        operationId: 'registerClientApplication',
        summary: 'An SDK instance announces itself',
        description: 'Unleash\'s registration body, validated strictly (unknown members are refused). At most CLIENT_USAGE_RATE usage reports (registrations and metrics) per token per minute; more are 429.',
        body: ClientRegistration,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 202: EmptyReply },
      },
    },
    async (request, reply) => {
      rate.take(request.token.name)
      await registerApplication(db, request.token, request.body)
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
        description:
          "Unleash's metrics body, validated strictly. Counts are added to hourly buckets per feature, environment (the token's) and application, with per-variant counts; features that do not exist, are archived or are outside the token's projects are ignored. The first evaluation moves a feature to the lifecycle stage pre-live (a non-production environment) or live (an environment of type production) at once. At most CLIENT_USAGE_RATE usage reports per token per minute; more are 429.",
        body: ClientMetrics,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 202: EmptyReply },
      },
    },
    async (request, reply) => {
      rate.take(request.token.name)
      await recordMetrics(db, request.token, request.body)
      return reply.code(202).send()
    }
  )
}
