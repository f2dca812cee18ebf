import { randomUUID } from 'node:crypto'
import { type Static, Type } from '@sinclair/typebox'

export interface ErrorDetail {
  message: string
  /** JSON Pointer into the request (`/body/0/op`) or into the resulting variants (`/variants/1/weight`). */
  path?: string
}

const kinds = {
  BadDataError: { status: 400, title: 'Bad request data' },
  AuthenticationRequired: { status: 401, title: 'Authentication required' },
  UnauthorizedError: { status: 401, title: 'Invalid API token' },
  PermissionError: { status: 403, title: 'Missing permission' },
  NotFoundError: { status: 404, title: 'Not found' },
  NameExistsError: { status: 409, title: 'Name already exists' },
  PreconditionFailedError: { status: 412, title: 'Precondition failed' },
  PayloadTooLargeError: { status: 413, title: 'Payload too large' },
  ContentTypeError: { status: 415, title: 'Unsupported content type' },
  InternalError: { status: 500, title: 'Internal error' },
  ServiceUnavailableError: { status: 503, title: 'Service unavailable' },
} as const

export type ErrorName = keyof typeof kinds

/** The one error type the service throws; the error handler turns it into the problem body. */
export class ApiError extends Error {
  readonly status: number
  readonly details: ErrorDetail[]

  constructor (
    readonly errorName: ErrorName,
    message: string,
    details?: ErrorDetail[]
  ) {
    super(message)
    this.name = errorName
    this.status = kinds[errorName].status
    this.details = details ?? [{ message }]
  }
}

export const badData = (message: string, details?: ErrorDetail[]) =>
  new ApiError('BadDataError', message, details)
export const notFound = (message: string) => new ApiError('NotFoundError', message)
export const nameExists = (message: string) => new ApiError('NameExistsError', message)
export const permissionDenied = (message: string) => new ApiError('PermissionError', message)

export const ErrorBody = Type.Object(
  {
    type: Type.String({ description: 'URI naming the kind of problem' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    id: Type.String({ format: 'uuid', description: 'Also written to the log line of the request' }),
    name: Type.Union(Object.keys(kinds).map((k) => Type.Literal(k))),
    message: Type.String({ description: 'Same text as detail' }),
    details: Type.Array(
      Type.Object({ message: Type.String(), path: Type.Optional(Type.String()) })
    ),
  },
  {
    $id: 'ErrorBody',
    description: 'RFC 9457 problem details, plus the members Unleash clients read',
  }
)
export type ErrorBodyType = Static<typeof ErrorBody>

export function toErrorBody (error: ApiError): ErrorBodyType {
  return {
    type: `urn:feature-flag-admin:error:${error.errorName}`,
    title: kinds[error.errorName].title,
    status: error.status,
    detail: error.message,
    id: randomUUID(),
    name: error.errorName,
    message: error.message,
    details: error.details,
  }
}

const descriptions: Record<number, string> = {
  400: 'Invalid request data (body, path parameters, query, or the resulting variants)',
  401: 'No API token, or an unknown one',
  403: 'The API token does not cover this project or environment',
  404: 'The project, feature, environment or route does not exist',
  409: 'The name is taken',
  412: 'If-Match does not match the current ETag',
  413: 'The request body is larger than the configured limit',
  415: 'The request body is not JSON',
  503: 'The database is unreachable',
}

/**
 * The OpenAPI responses for a route's error statuses. Routes list their statuses in
 * `schema.errors`, and the OpenAPI transform in app.ts turns them into these, so Fastify
 * compiles no serializer for them (the error handler writes the problem body itself).
 */
export function problemResponses (statuses: number[]) {
  const out: Record<number, unknown> = {}
  for (const status of statuses) {
    out[status] = {
      description: descriptions[status],
      content: { 'application/problem+json': { schema: Type.Ref(ErrorBody) } },
    }
  }
  return out
}

/** The error statuses of a route under /api/admin: these plus 401 (token) and 503 (database). */
export const errorStatuses = (...statuses: number[]) => [...statuses, 401, 503]

declare module 'fastify' {
  interface FastifySchema {
    /** Error statuses the route can answer, for the OpenAPI document. */
    errors?: number[]
  }
}
