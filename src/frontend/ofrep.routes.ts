import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { cors, type OriginRule } from '../http/cors.js'
import { sendError, toApiError } from '../http/error-handler.js'
import { replyConditionally } from '../http/conditional.js'
import { errorStatuses } from '../http/openapi.js'
import { responseHeader } from '../http/schemas.js'
import { ofrepContext } from './context.js'
import { OfrepBody, OfrepBulk, OfrepBulkFailure, OfrepFailure, OfrepParams, OfrepSuccess } from './frontend.schemas.js'
import type { Engines } from './engines.js'
import { ofrepFlag, ofrepFlags } from './frontend.service.js'
import { bytesUntilSent } from './pooled-sending.js'

const MAPPING =
  'Values: a flag that is off is false (reason DISABLED); on with a variant, the variant\'s payload converted by its type (json → object or array, number → number, string and csv → string), or the variant\'s name when it has no payload (reason SPLIT, variant its name); on without variants, true (reason TARGETING_MATCH). Evaluated as the frontend API evaluates (what the official Node SDK computes). Authorization: a frontend token, as "Bearer <secret>" or the bare secret.'

/** JSON already serialised, sent as it is. */
const sendJson = (reply: FastifyReply, json: Buffer) => reply.type('application/json; charset=utf-8').send(json)

/** Where OFREP's single-flag route is; its key is the rest of the path. */
export const OFREP_FLAG_PATH = '/ofrep/v1/evaluate/flags/'

/**
 * A refused request as OFREP answers it, always as application/json (OFREP's media type): its
 * error codes for bad input (a key no flag can have, such as one with a NUL, is FLAG_NOT_FOUND);
 * the problem body for the rest (401, 403, 413, 415, 429, 503).
 */
function ofrepError (key: (request: FastifyRequest) => string | undefined) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error, request)
    if (apiError.status !== 400) return sendError(request, reply, error)
    request.log.info({ errorName: apiError.errorName, detail: apiError.message }, 'request refused')
    const flag = key(request)
    if (flag !== undefined && apiError.details.some((d) => d.path?.startsWith('/params/key'))) {
      return reply.code(404).type('application/json; charset=utf-8').send({ key: flag, errorCode: 'FLAG_NOT_FOUND', errorDetails: 'No flag has this key' })
    }
    const errorCode = /not valid JSON|empty/.test(apiError.message) ? 'PARSE_ERROR' : 'INVALID_CONTEXT'
    return reply.code(400).type('application/json; charset=utf-8').send({ ...(flag !== undefined && { key: flag }), errorCode, errorDetails: apiError.message })
  }
}

/**
 * Whether a request target the router could not decode names OFREP's single-flag route, read as
 * the router reads a target: an absolute-form target (`http://host/path`) reduced to its path,
 * the query and a trailing slash left out, and the path before the key (its last segment)
 * percent-decoded. The key is what failed to decode; a prefix that does not decode is no route's.
 */
export function targetsOfrepFlag (target: string): boolean {
  const absolute = /^https?:\/\/[^/?#]+/i.exec(target)
  let path = absolute === null ? target : target.slice(absolute[0].length)
  if (!path.startsWith('/') || path.includes('#')) return false
  const query = path.indexOf('?')
  if (query !== -1) path = path.slice(0, query)
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1)
  const prefix = path.slice(0, path.lastIndexOf('/') + 1)
  try {
    return decodeURI(prefix) === OFREP_FLAG_PATH
  } catch {
    return false
  }
}

/**
 * A path the router could not decode (a malformed %-escape in the flag key), on OFREP's route:
 * OFREP's 400 PARSE_ERROR as application/json.
 */
export function ofrepPathError (request: FastifyRequest, reply: FastifyReply) {
  request.log.info({ url: request.url }, 'request refused: the flag key is not valid percent-encoding')
  return reply.code(400).type('application/json; charset=utf-8').send({ errorCode: 'PARSE_ERROR', errorDetails: 'The flag key in the path is not valid percent-encoding' })
}

export const ofrepRoutes: FastifyPluginAsyncTypebox<{ engines: Engines; origins: () => OriginRule }> = async (app, { engines, origins }) => {
  const { preflight } = cors(app, origins)

  app.post(
    `${OFREP_FLAG_PATH}:key`,
    {
      config: { access: 'frontend', errorMediaType: 'application/json' },
      errorHandler: ofrepError((request) => (request.params as { key?: string }).key),
      schema: {
        tags: ['OFREP'],
        operationId: 'evaluateFlag',
        summary: 'Evaluate one flag (OpenFeature Remote Evaluation Protocol)',
        description: `${MAPPING} An unknown flag (or one outside the token's projects and environment, or a key no flag can have: longer than 100 characters, a NUL) is 404 FLAG_NOT_FOUND; a malformed %-escape in the key is 400 PARSE_ERROR; a context that is not an object of strings, numbers and booleans is 400 INVALID_CONTEXT.`,
        params: OfrepParams,
        body: OfrepBody,
        errors: errorStatuses(403, 413, 415),
        response: {
          200: OfrepSuccess,
          400: { ...OfrepFailure, description: 'INVALID_CONTEXT (or PARSE_ERROR for a body that is not JSON, or a key that is not valid percent-encoding)' },
          404: { ...OfrepFailure, description: 'FLAG_NOT_FOUND' },
        },
      },
    },
    async (request, reply) => {
      const { key } = request.params
      const context = ofrepContext(request.body.context, request.ip)
      if (typeof context === 'string') return reply.code(400).send({ key, errorCode: 'INVALID_CONTEXT' as const, errorDetails: context })
      const result = await ofrepFlag(engines, request.token, key, context)
      if (!result) return reply.code(404).send({ key, errorCode: 'FLAG_NOT_FOUND' as const, errorDetails: `Flag '${key}' was not found` })
      // Sent as JSON bytes: a value may be any JSON (an object payload keeps its members).
      return sendJson(reply, result)
    }
  )

  app.post(
    '/ofrep/v1/evaluate/flags',
    {
      config: { access: 'frontend', errorMediaType: 'application/json' },
      errorHandler: ofrepError(() => undefined),
      schema: {
        tags: ['OFREP'],
        operationId: 'evaluateFlagsBulk',
        summary: 'Evaluate every flag of the token (OpenFeature Remote Evaluation Protocol)',
        description: `${MAPPING} Every flag of the frontend token's environment and projects, by name. The answer has an ETag; If-None-Match (compared weakly) is answered 304 when the answer is the same.`,
        body: OfrepBody,
        headers: Type.Object({ 'if-none-match': Type.Optional(Type.String()) }),
        errors: errorStatuses(403, 413, 415),
        response: {
          200: { ...OfrepBulk, headers: { etag: responseHeader('A hash of this answer', true) } },
          304: { type: 'null', description: 'Not modified', headers: { etag: responseHeader('A hash of the answer', true) } },
          400: { ...OfrepBulkFailure, description: 'INVALID_CONTEXT (or PARSE_ERROR for a body that is not JSON)' },
        },
      },
    },
    async (request, reply) => {
      const context = ofrepContext(request.body.context, request.ip)
      if (typeof context === 'string') return reply.code(400).send({ errorCode: 'INVALID_CONTEXT' as const, errorDetails: context })
      const answer = await ofrepFlags(engines, request.token, context)
      return replyConditionally(reply, request.headers['if-none-match'], answer.etag, () => bytesUntilSent(answer, reply.raw))
    }
  )

  preflight('/ofrep/v1/evaluate/flags/:key', ['POST'])
  preflight('/ofrep/v1/evaluate/flags', ['POST'])
}
