import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { replyConditionally } from '../http/conditional.js'
import { errorStatuses } from '../http/openapi.js'
import { responseHeader, UrlFriendly } from '../http/schemas.js'
import type { ClientState } from './client-state.js'
import { ClientFeature, ClientFeatures, ClientFeaturesQuery, ClientSpecHeader } from './client.schemas.js'
import { clientFeature, pollClientFeatures, readsSegments } from './client.service.js'

export const clientRoutes: FastifyPluginAsyncTypebox<{ db: Database; state: ClientState }> = async (app, { db, state }) => {
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
      const { etag, json } = await pollClientFeatures(db, state, request.token, wants)
      return replyConditionally(reply, request.headers['if-none-match'], etag, json)
    }
  )

  app.get(
    '/api/client/features/:featureName',
    {
      config: { access: 'client' },
      schema: {
        tags: ['Client API'],
        operationId: 'getClientFeature',
        summary: 'One feature of the client token\'s environment and projects, for Unleash SDKs',
        description:
          "As Unleash: the feature in the client format of GET /api/client/features (its segments' constraints inlined into its strategies). 404 for a feature that does not exist, is archived, or is of a project outside the token's. Needs a client token (an admin token is 403).",
        params: Type.Object({ featureName: UrlFriendly('Feature name') }),
        errors: errorStatuses(400, 403, 404),
        response: { 200: ClientFeature },
      },
    },
    async (request) => clientFeature(db, request.token, request.params.featureName)
  )
}
