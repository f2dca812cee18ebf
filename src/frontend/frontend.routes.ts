import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply } from 'fastify'
import { cors, type OriginRule } from '../http/cors.js'
import { replyConditionally } from '../http/conditional.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, responseHeader } from '../http/schemas.js'
import { UsageRate } from '../usage/admission.js'
import { ClientMetrics } from '../usage/usage.schemas.js'
import type { UsageRecorder } from '../usage/usage.service.js'
import { frontendContext } from './context.js'
import type { Engines } from './engines.js'
import { FrontendBody, FrontendQuery, FrontendRegistration, FrontendToggles } from './frontend.schemas.js'
import { frontendToggles } from './frontend.service.js'
import { type Answer, bytesUntilSent } from './pooled-sending.js'

interface Options {
  usage: UsageRecorder
  engines: Engines
  /** Which origins may read the answers (FRONTEND_ALLOWED_ORIGINS, or as an Admin set them), asked at every request. */
  origins: () => OriginRule
  ratePerMinute: number
}

const TOGGLES_DESCRIPTION =
  "As Unleash's frontend API: the features of the frontend token's environment and projects that are on for the context, each with the variant the official Node SDK (unleash-client) picks for it, computed by an evaluator compiled once per state version; features that are off are left out. A change is evaluated within CLIENT_STATE_CACHE_MS. The ETag is a hash of what the answer says, so that an answer unchanged by a change elsewhere keeps its tag. Needs a frontend token (client and admin tokens are 403). CORS: the allowed origins (FRONTEND_ALLOWED_ORIGINS, or as an Admin set them with POST /api/admin/ui-config/cors) may read the answer and its ETag (OPTIONS answers the preflight without a token)."

const togglesResponse = {
  200: { ...FrontendToggles, headers: { etag: responseHeader('A hash of this answer', true) } },
}

export const frontendRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { usage, engines, origins, ratePerMinute }) => {
  const { preflight } = cors(app, origins)
  const rate = new UsageRate(ratePerMinute)

  const answer = async (reply: FastifyReply, toggles: Answer, ifNoneMatch?: string) => {
    reply.header('cache-control', 'no-cache')
    return replyConditionally(reply, ifNoneMatch, toggles.etag, () => bytesUntilSent(toggles, reply.raw))
  }

  app.get(
    '/api/frontend',
    {
      config: { access: 'frontend' },
      schema: {
        tags: ['Frontend API'],
        operationId: 'getFrontendFeatures',
        summary: 'The features on for a context given in the query, for browser and mobile apps',
        description: `${TOGGLES_DESCRIPTION} If-None-Match (compared weakly) is answered 304 when the answer is the same.`,
        querystring: FrontendQuery,
        headers: Type.Object({ 'if-none-match': Type.Optional(Type.String()) }),
        errors: errorStatuses(400, 403),
        response: {
          ...togglesResponse,
          304: { type: 'null', description: 'Not modified', headers: { etag: responseHeader('A hash of the answer', true) } },
        },
      },
    },
    async (request, reply) =>
      answer(reply, await frontendToggles(engines, request.token, frontendContext(request.query, request.ip)), request.headers['if-none-match'])
  )

  app.post(
    '/api/frontend',
    {
      config: { access: 'frontend' },
      schema: {
        tags: ['Frontend API'],
        operationId: 'getFrontendApiFeaturesWithContext',
        summary: 'The features on for a context given in the body',
        description: `${TOGGLES_DESCRIPTION} Body: {context: {…}}, the fields of the GET query.`,
        body: FrontendBody,
        errors: errorStatuses(400, 403, 413, 415),
        response: togglesResponse,
      },
    },
    async (request, reply) => answer(reply, await frontendToggles(engines, request.token, frontendContext(request.body.context ?? {}, request.ip)))
  )

  app.post(
    '/api/frontend/client/metrics',
    {
      config: { access: 'frontend' },
      schema: {
        tags: ['Frontend API'],
        operationId: 'registerFrontendClientMetrics',
        summary: 'A browser SDK reports how often it evaluated each feature',
        description:
          "As Unleash: 200. The client API's metrics body and rules: counts in hourly buckets of the token's environment, features outside its projects ignored, the first evaluation moves the lifecycle (pre-live, live) when the counts are written (every USAGE_FLUSH_MS). At most CLIENT_USAGE_RATE reports per token per minute (429); CLIENT_MAX_APPLICATIONS applications per token.",
        body: ClientMetrics,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      rate.take(request.token.name)
      await usage.count(request.token, request.body)
      return reply.code(200).send()
    }
  )

  app.post(
    '/api/frontend/client/register',
    {
      config: { access: 'frontend' },
      schema: {
        tags: ['Frontend API'],
        operationId: 'registerFrontendClient',
        summary: 'A browser SDK announces itself',
        description: 'As Unleash: 200, and nothing is stored (Unleash keeps it for future use). The body is validated; at most CLIENT_USAGE_RATE reports per token per minute (429).',
        body: FrontendRegistration,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      rate.take(request.token.name)
      return reply.code(200).send()
    }
  )

  preflight('/api/frontend', ['GET', 'POST'])
  preflight('/api/frontend/client/metrics', ['POST'])
  preflight('/api/frontend/client/register', ['POST'])
}
