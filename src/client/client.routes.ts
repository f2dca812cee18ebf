import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { replyConditionally } from '../http/conditional.js'
import { errorStatuses } from '../http/openapi.js'
import { responseHeader } from '../http/schemas.js'
import { ClientFeatures, ClientFeaturesQuery, ClientSpecHeader } from './client.schemas.js'
import { type ClientFeaturesReader, readsSegments } from './client.service.js'

export const clientRoutes: FastifyPluginAsyncTypebox<{ features: ClientFeaturesReader }> = async (app, { features }) => {
  app.get(
    '/api/client/features',
    {
      config: { access: 'client' },
      schema: {
        tags: ['Client API'],
        operationId: 'getAllClientFeatures',
        summary: "The features of the client token's environment and projects, for Unleash SDKs",
        description:
          "Unleash's client format (version 2). Every answer has an ETag; send it back as If-None-Match (weak comparison: W/\"…\" from a compressing proxy matches too) and an unchanged state is answered 304 without a body. A change made on any instance is seen at once (the change feed), or within CLIENT_STATE_CACHE_MS (1 s by default) while the feed is not listening. SDKs that send Unleash-Client-Spec 4.2.0 or later get the segments once at the top level and strategies with their ids; others get segment constraints inlined into each strategy (the ETag covers the choice). Needs a client token (an admin token is 403).",
        querystring: ClientFeaturesQuery,
        headers: Type.Object({
          'if-none-match': Type.Optional(Type.String({ description: 'The ETag of the answer you hold (a list, or *)' })),
          'unleash-client-spec': Type.Optional(ClientSpecHeader),
        }),
        errors: errorStatuses(400, 403),
        response: {
          200: { ...ClientFeatures, headers: { etag: responseHeader('Version of this answer', true) } },
          304: {
            type: 'null',
            description: 'Not modified: the answer whose ETag was sent still holds',
            headers: { etag: responseHeader('Version of this answer', true) },
          },
        },
      },
    },
    async (request, reply) => {
      const wants = { ...request.query, segments: readsSegments(request.headers['unleash-client-spec']) }
      const { etag, json } = await features(request.token, wants)
      return replyConditionally(reply, request.headers['if-none-match'], etag, json)
    }
  )
}
