import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ClientSpecHeader } from '../client/client.schemas.js'
import { replyHeld } from '../http/conditional.js'
import { errorStatuses } from '../http/openapi.js'
import { responseHeader } from '../http/schemas.js'
import type { DeltaReader } from './delta.service.js'
import { DeltaEvents, DeltaQuery } from './streaming.schemas.js'
import type { Streams } from './streams.service.js'

/** Headers SDKs send, as they send them (unleash-interval is the text "undefined" in streaming mode). */
const SdkHeaders = {
  'unleash-client-spec': Type.Optional(ClientSpecHeader),
  'unleash-appname': Type.Optional(Type.String({ maxLength: 1000 })),
  'unleash-instanceid': Type.Optional(Type.String({ maxLength: 1000 })),
  'unleash-connection-id': Type.Optional(Type.String({ maxLength: 1000 })),
  'unleash-interval': Type.Optional(Type.String({ maxLength: 100 })),
  'unleash-sdk': Type.Optional(Type.String({ maxLength: 1000 })),
}

interface Options {
  /** Answers a delta poll (the database's clientDelta on the server, memory at a relay). */
  delta: DeltaReader
  streams: Pick<Streams, 'open'>
}

export const streamingRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { delta, streams }) => {
  app.get(
    '/api/client/delta',
    {
      config: { access: 'client' },
      schema: {
        tags: ['Client API'],
        operationId: 'getDelta',
        summary: 'What changed since the revision the SDK holds, for SDKs that poll deltas',
        description:
          "The ETag is the revision (a decimal number, the same on every instance). Send it back as If-None-Match: the same revision is 304; an older one this database gave out, and not more than STREAMING_REPLAY_MAX_EVENTS events behind, gets the changes since (feature-updated, feature-removed, segment-updated, segment-removed); none, an unknown or a too old one gets one hydration event (every feature of the token's scope, and the segments they use). Needs a client token (an admin or frontend token is 403).",
        querystring: DeltaQuery,
        headers: Type.Object({
          'if-none-match': Type.Optional(Type.String({ maxLength: 1000, description: 'The revision held, as the ETag sent it' })),
          ...SdkHeaders,
        }),
        errors: errorStatuses(400, 403),
        response: {
          200: { ...DeltaEvents, headers: { etag: responseHeader('The revision this answer brings the SDK to', true) } },
          304: {
            type: 'null',
            description: 'Not modified: the SDK holds the current revision',
            headers: { etag: responseHeader('The current revision', true) },
          },
        },
      },
    },
    async (request, reply) => {
      const { etag, json } = await delta(request.token, request.query, request.headers['if-none-match'])
      return replyHeld(reply, etag, json)
    }
  )

  app.get(
    '/api/client/streaming',
    {
      config: { access: 'client' },
      schema: {
        tags: ['Client API'],
        operationId: 'getStreaming',
        summary: 'Server-sent events: the features of the client token, then every change as it commits',
        description:
          "For unleash-client's streaming mode (experimentalMode: {type: 'streaming'}). The scope is the client token's environment and projects. First `event: unleash-connected` with a hydration (or, with a Last-Event-ID this database gave out and not more than STREAMING_REPLAY_MAX_EVENTS events behind, exactly the changes since, possibly none), then `event: unleash-updated` for every change, each with `id:` the revision and `data: {\"events\": [...]}` as GET /api/client/delta answers; a `: keep-alive` comment every STREAMING_KEEPALIVE_MS. 429 past STREAMING_MAX_CONNECTIONS on the instance or STREAMING_MAX_CONNECTIONS_PER_TOKEN for the token (the SDK polls instead). Streams are closed when the server shuts down. Needs a client token (an admin or frontend token is 403).",
        headers: Type.Object({
          'last-event-id': Type.Optional(Type.String({ maxLength: 100, description: 'The revision held (the id of the last event received)' })),
          ...SdkHeaders,
        }),
        errors: errorStatuses(400, 403),
        response: {
          200: {
            description: 'A stream of server-sent events (never ends while the server runs)',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (request, reply) => {
      streams.open(request.token, request.headers['last-event-id'], {
        begin: () => {
          reply.hijack()
          reply.raw.writeHead(200, {
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-cache',
            'x-accel-buffering': 'no',
            'x-request-id': String(request.id),
          })
        },
        write: (chunk) => reply.raw.write(chunk),
        end: () => reply.raw.end(),
        destroy: () => reply.raw.destroy(),
        get writableLength () { return reply.raw.writableLength },
        onClose: (listener) => {
          // A socket error ends the stream ('close' follows); it is not the process's concern.
          reply.raw.on('error', () => {})
          // A client that left while its token was looked up is gone already: 'close' was emitted.
          if (reply.raw.closed) listener()
          else reply.raw.once('close', listener)
        },
      })
      return reply
    }
  )
}
