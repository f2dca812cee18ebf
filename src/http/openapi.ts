import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ErrorBody, statusDescription } from '../errors.js'
import { MAX_JSON_DEPTH, MAX_JSON_VALUES, MAX_MEMBER_NAMES } from './json-body.js'
import { answersArePrivate } from './no-store.js'

declare module 'fastify' {
  interface FastifySchema {
    /** Error statuses the route can answer, for the OpenAPI document. */
    errors?: number[]
  }
}

/**
 * The error statuses of a route that needs the database and a token: these, plus 401 (no
 * or unknown token), 429 (no database connection free in time) and 503 (database unreachable).
 */
export const errorStatuses = (...statuses: number[]) => [...statuses, 401, 429, 503].sort((a, b) => a - b)

/**
 * OpenAPI responses for error statuses. Routes list their statuses in `schema.errors`, and
 * the transform below turns them into these, so Fastify compiles no serializer for them (the
 * error handler writes the problem body itself).
 */
function problemResponses (statuses: number[], mediaType = 'application/problem+json') {
  const out: Record<number, unknown> = {}
  for (const status of statuses) {
    out[status] = {
      description: statusDescription(status),
      content: { [mediaType]: { schema: Type.Ref(ErrorBody) } },
    }
  }
  return out
}

type Header = { required?: boolean; description?: string; schema: Record<string, unknown> }
type Document = Record<string, unknown> & { paths?: Record<string, Record<string, { responses?: Record<string, { headers?: Record<string, Header> }> }>> }

/**
 * Response headers declared with `x-always` (see responseHeader) become `required: true`
 * header objects: present on every response of that status.
 */
function markAlwaysPresentHeaders<T> (document: T): T {
  const doc = document as Document
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values(operation.responses ?? {})) {
        for (const header of Object.values(response.headers ?? {})) {
          if (header.schema['x-always'] === true) {
            delete header.schema['x-always']
            header.required = true
          }
        }
      }
    }
  }
  return document
}

/** Every response of a private route (answersArePrivate) says it carries `Cache-Control: no-store`. */
function documentNoStore<T> (document: T): T {
  const doc = document as Document
  const header: Header = { required: true, description: 'Never kept by browsers or proxies', schema: { type: 'string', const: 'no-store' } }
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    if (!answersArePrivate(path)) continue
    for (const operation of Object.values(operations)) {
      for (const response of Object.values(operation.responses ?? {})) response.headers = { ...response.headers, 'cache-control': header }
    }
  }
  return document
}

/** The OpenAPI 3.1 document at /docs/json and the interactive docs at /docs, both without a token. */
export const openApiPlugin = fp(
  async (app: FastifyInstance) => {
    app.addSchema(ErrorBody)
    await app.register(swagger, {
      // Shared schemas keep their $id as their name in components.schemas.
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
      },
      transform: ({ schema, url, route }) => {
        if (!schema) return { schema, url }
        const { errors = [], ...rest } = schema
        return {
          schema: {
            ...rest,
            // Routes that need no token say so, instead of inheriting the global requirement;
            // the SDK APIs take API tokens only, never a session.
            ...(route.config?.access === 'public' ? { security: [] } : {}),
            ...(route.config?.access === 'client' || route.config?.access === 'frontend' ? { security: [{ apiToken: [] }] } : {}),
            response: { ...(rest.response as object), ...problemResponses(errors, route.config?.errorMediaType) },
          },
          url,
        }
      },
      transformObject: (document) => documentNoStore(markAlwaysPresentHeaders('openapiObject' in document ? document.openapiObject : {})),
      openapi: {
        openapi: '3.1.0',
        servers: [{ url: '/', description: 'This server' }],
        info: {
          license: { name: 'MIT', identifier: 'MIT' },
          title: 'Feature-flag admin API',
          version: '1.0.0',
          description:
            "Unleash-compatible admin API for feature-flag variants (RFC 6902 JSON Patch) and lifecycle completion. Every error is an RFC 9457 problem body (application/problem+json) with Unleash's `id`, `name`, `message` and `details`. " +
            `A JSON request body is counted while it is read: nested more than ${MAX_JSON_DEPTH} levels, more than ${MAX_JSON_VALUES} values (each array, object and comma-separated item) or more than ${MAX_MEMBER_NAMES} distinct member names is a 400 naming the rule and the byte, before it is parsed; over its route's size limit, a 413.`,
        },
        components: {
          securitySchemes: {
            apiToken: {
              type: 'apiKey',
              in: 'header',
              name: 'Authorization',
              description: 'An API token\'s secret, or a personal access token (user:<hex>), optionally prefixed with "Bearer "',
            },
            sessionCookie: {
              type: 'apiKey',
              in: 'cookie',
              name: 'unleash-session',
              description: 'The session POST /auth/simple/login opens. A request that changes something with it must come from this server\'s own pages (403 otherwise)',
            },
          },
        },
        security: [{ apiToken: [] }, { sessionCookie: [] }],
      },
    })
    await app.register(async (docs) => {
      docs.addHook('onRoute', (route) => {
        route.config = { ...route.config, access: 'public' }
      })
      await docs.register(swaggerUi, { routePrefix: '/docs' })
    })
  },
  { name: 'openapi' }
)
