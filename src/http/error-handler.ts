import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable } from '../db/errors.js'
import { ApiError, type ErrorName, toErrorBody } from '../errors.js'
import { ajvErrorDetails } from './validation.js'

const nameByStatus: Record<number, ErrorName> = {
  400: 'BadDataError',
  401: 'UnauthorizedError',
  403: 'PermissionError',
  404: 'NotFoundError',
  409: 'NameExistsError',
  412: 'PreconditionFailedError',
  413: 'PayloadTooLargeError',
  415: 'ContentTypeError',
  503: 'ServiceUnavailableError',
}

/** The one mapping from anything thrown (ours, Fastify's, the driver's) to an ApiError. */
export function toApiError (error: FastifyError | Error): ApiError {
  if (error instanceof ApiError) return error
  const fastifyError = error as FastifyError
  if (fastifyError.validation) {
    const details = ajvErrorDetails(
      fastifyError.validation as never,
      `/${fastifyError.validationContext ?? 'body'}`
    )
    return new ApiError('BadDataError', details[0]?.message ?? 'Invalid request', details)
  }
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ApiError('ContentTypeError', 'The request body must be JSON (application/json)')
  }
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new ApiError('PayloadTooLargeError', 'The request body is larger than the limit')
  }
  if (error instanceof SyntaxError || fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return new ApiError('BadDataError', `The request body is not valid JSON: ${error.message}`)
  }
  const status = fastifyError.statusCode
  if (status !== undefined && status >= 400 && status < 500) {
    return new ApiError(nameByStatus[status] ?? 'BadDataError', error.message)
  }
  if (isDatabaseUnavailable(error)) {
    return new ApiError('ServiceUnavailableError', 'The database is unavailable; try again shortly')
  }
  return new ApiError('InternalError', 'Something went wrong on our side; the error id is logged')
}

export function sendError (
  request: FastifyRequest,
  reply: FastifyReply,
  error: FastifyError | Error
) {
  const apiError = toApiError(error)
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
  return reply.code(apiError.status).type('application/problem+json').send(body)
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
