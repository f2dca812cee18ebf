import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable, isUnstorableValue } from '../db/errors.js'
import {
  ApiError,
  errorNameForStatus,
  payloadTooLarge,
  RuleError,
  type RuleDocument,
  toErrorBody,
} from '../errors.js'
import { ajvErrorDetails } from './validation.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Where the documents that business rules check are in this route's request, so that
     * their errors point into it: e.g. `{operations: '/body', variants: '/variants'}`.
     */
    documentRoots?: Partial<Record<RuleDocument, string>>
    /** The media type of this route's error bodies (the problem body), when not application/problem+json (OFREP's application/json). */
    errorMediaType?: string
  }
}

/** The one mapping from anything thrown (ours, Fastify's, the driver's) to an ApiError. */
export function toApiError (error: FastifyError | Error, request?: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error
  if (error instanceof RuleError) {
    return error.toApiError(request?.routeOptions.config.documentRoots?.[error.document] ?? '')
  }
  const fastifyError = error as FastifyError
  if (fastifyError.validation) {
    // Paths name the part of the request as users write it: /body, /params, /query, /headers.
    const part = fastifyError.validationContext === 'querystring' ? 'query' : (fastifyError.validationContext ?? 'body')
    const details = ajvErrorDetails(fastifyError.validation as never, `/${part}`)
    return new ApiError('BadDataError', details[0]?.message ?? 'Invalid request', details)
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('ContentTypeError', 'The request body must be JSON (application/json)')
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge()
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('BadDataError', 'The request body is empty; send JSON')
  }
  const status = fastifyError.statusCode
  if (status !== undefined && status >= 400 && status < 500) {
    return new ApiError(errorNameForStatus(status) ?? 'BadDataError', error.message)
  }
  if (isDatabaseUnavailable(error)) {
    return new ApiError('ServiceUnavailableError', 'The database is unavailable; try again shortly')
  }
  if (isUnstorableValue(error)) {
    return new ApiError('BadDataError', 'The request holds a value the database cannot store')
  }
  return new ApiError('InternalError', 'Something went wrong on our side; the error id is logged')
}

export function sendError (request: FastifyRequest, reply: FastifyReply, error: FastifyError | Error) {
  const apiError = toApiError(error, request)
  const body = toErrorBody(apiError)
  if (apiError.status >= 500) {
    request.log.error({ err: error, errorId: body.id }, `request failed: ${apiError.errorName}`)
  } else {
    request.log.info(
      { errorId: body.id, errorName: apiError.errorName, detail: body.detail },
      'request refused'
    )
  }
  if (apiError.status === 401) reply.header('www-authenticate', 'Bearer')
  reply.headers(apiError.headers)
  return reply.code(apiError.status).type(request.routeOptions.config?.errorMediaType ?? 'application/problem+json').send(body)
}

/**
 * Errors Node's HTTP parser raises before there is a request (headers too large, a request
 * that did not arrive in time, malformed HTTP): the common problem body, written to the
 * socket, which is then closed.
 */
export function clientErrorHandler (this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const apiError =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new ApiError('RequestHeaderFieldsTooLargeError', 'The request headers are larger than the server accepts')
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new ApiError('RequestTimeoutError', 'The request did not arrive in time')
          : new ApiError('BadDataError', 'The request is not valid HTTP')
  const problem = toErrorBody(apiError)
  const body = JSON.stringify(problem)
  this.log.info({ errorId: problem.id, errorName: apiError.errorName, code: error.code }, 'connection refused')
  if (socket.writable) {
    socket.write(
        `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\n` +
          'Content-Type: application/problem+json\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          'Connection: close\r\n\r\n' +
          body
    )
  }
  socket.destroy()
}

export function registerErrorHandling (app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => sendError(request, reply, error))
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new ApiError('NotFoundError', `No route ${request.method} ${request.url.split('?')[0]}`)
    )
  )
}
