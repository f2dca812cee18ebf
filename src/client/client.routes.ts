import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { responseHeader, UrlFriendly } from '../http/schemas.js'
import { Variant } from '../variants/variants.schemas.js'
import { clientEtag, clientFeaturesJson, stateVersion } from './client.store.js'

const ClientStrategy = Type.Object({
  name: Type.String(),
  constraints: Type.Array(Type.Unknown()),
  parameters: Type.Record(Type.String(), Type.String()),
  variants: Type.Array(Type.Unknown()),
})

const ClientFeatures = Type.Object({
  version: Type.Literal(2),
  features: Type.Array(
    Type.Object({
      name: Type.String(),
      type: Type.String(),
      project: Type.String(),
      enabled: Type.Boolean(),
      stale: Type.Boolean(),
      impressionData: Type.Boolean(),
      strategies: Type.Array(ClientStrategy),
      variants: Type.Array(Variant),
      dependencies: Type.Array(Type.Unknown()),
    })
  ),
  query: Type.Object({
    environment: Type.String(),
    inlineSegmentConstraints: Type.Boolean(),
    projects: Type.Optional(Type.Array(Type.String())),
    project: Type.Optional(Type.String()),
    namePrefix: Type.Optional(Type.String()),
  }),
})

/** Answers recently built, by ETag: a poll without If-None-Match costs no query but the version. */
const RECENT = 64

export const clientRoutes: FastifyPluginAsyncTypebox<{ db: Database; stateCacheMs: number }> = async (
  app,
  { db, stateCacheMs }
) => {
  const recent = new Map<string, string>()
  // SDKs poll every few seconds: the state version is read at most once per stateCacheMs,
  // so an unchanged poll usually costs no query at all.
  let version = { value: '', expires: 0 }
  const currentVersion = async () => {
    const now = Date.now()
    if (version.expires > now) return version.value
    const value = await stateVersion(db)
    if (stateCacheMs > 0) version = { value, expires: now + stateCacheMs }
    return value
  }

  app.get(
    '/api/client/features',
    {
      config: { access: 'client' },
      schema: {
        tags: ['Client API'],
        operationId: 'getAllClientFeatures',
        summary: "The features of the client token's environment and projects, for Unleash SDKs",
        description:
          "Unleash's client format (version 2). Every answer has an ETag; send it back as If-None-Match and an unchanged state is answered 304 without a body. A change is seen within CLIENT_STATE_CACHE_MS (1 s by default). Needs a client token (an admin token is 403).",
        querystring: Type.Object({
          namePrefix: Type.Optional(Type.String({ maxLength: 100, description: 'Only features whose name starts with this' })),
          project: Type.Optional(UrlFriendly('Only features of this project (within the token\'s projects)')),
        }),
        headers: Type.Object({
          'if-none-match': Type.Optional(Type.String({ description: 'The ETag of the answer you hold' })),
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
      const query = { namePrefix: request.query.namePrefix, project: request.query.project }
      const etag = clientEtag(await currentVersion(), request.token, query)
      reply.header('etag', etag)
      const held = request.headers['if-none-match']
      if (held !== undefined && held.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
        return reply.code(304).send()
      }
      let json = recent.get(etag)
      if (json === undefined) {
        json = await clientFeaturesJson(db, request.token, query)
        if (recent.size >= RECENT) recent.delete(recent.keys().next().value as string)
        recent.set(etag, json)
      }
      return reply.type('application/json; charset=utf-8').send(json)
    }
  )
}
