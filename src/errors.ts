import { randomUUID } from 'node:crypto'
import { type Static, Type } from '@sinclair/typebox'

export interface ErrorDetail {
  message: string
  /** JSON Pointer into the request (`/body/0/op`) or into the resulting variants (`/variants/1/weight`). */
  path?: string
}

/**
 * The one table of error kinds: name, HTTP status, title, and what the status means in the
 * OpenAPI document. Every error response is built from a row of it.
 */
const kinds = {
  BadDataError: {
    status: 400,
    title: 'Bad request data',
    description: 'Invalid request data (body, path parameters, query, or the resulting variants)',
  },
  AuthenticationRequired: {
    status: 401,
    title: 'Authentication required',
    description: 'No API token, or an unknown one',
  },
  UnauthorizedError: { status: 401, title: 'Invalid API token', description: 'No API token, or an unknown one' },
  InvalidTokenError: {
    status: 401,
    title: 'Invalid token',
    description: 'The password-reset or invitation link is unknown, used or expired',
  },
  PasswordMismatch: {
    status: 401,
    title: 'Wrong username or password',
    description: 'The username (or email) and password do not match a user; the same answer whether the user exists or not',
  },
  SignInError: {
    status: 401,
    title: 'Sign-in refused',
    description: 'The single sign-on callback failed a check: a login this browser did not start, or one used or expired; the provider\'s refusal; an ID token with the wrong signature, algorithm, issuer, audience, nonce or time; an email that is missing or not verified',
  },
  PermissionError: {
    status: 403,
    title: 'Missing permission',
    description: 'The API token does not cover this project or environment, or is of the wrong type; or the user\'s role does not allow this',
  },
  CrossSiteRequestError: {
    status: 403,
    title: 'Cross-site request refused',
    description: 'A request that changes something, authenticated by the session cookie, came from another site (Origin or Sec-Fetch-Site)',
  },
  NotFoundError: {
    status: 404,
    title: 'Not found',
    description: 'The project, feature, environment or route does not exist',
  },
  MethodNotAllowedError: {
    status: 405,
    title: 'Method not allowed',
    description: 'The path exists, but not with this method; the Allow header lists the methods it has',
  },
  RequestTimeoutError: {
    status: 408,
    title: 'Request timeout',
    description: 'The request did not arrive in time',
  },
  NameExistsError: { status: 409, title: 'Name already exists', description: 'The name is taken' },
  FeatureArchivedError: {
    status: 409,
    title: 'Feature archived',
    description: 'The feature is archived: revive it before changing it',
  },
  SettingLockedError: {
    status: 409,
    title: 'Set by the environment',
    description: 'The setting is fixed by an environment variable (named in the message) and cannot be changed through the API',
  },
  InUseError: {
    status: 409,
    title: 'In use',
    description: 'Other resources depend on it (a segment used by strategies, a feature other features depend on)',
  },
  ChangeRequestStateError: {
    status: 409,
    title: 'Not in this state',
    description: "The change request's state does not allow this (a closed request, one not yet approved, one scheduled, or without changes)",
  },
  ChangeRequestConflictError: {
    status: 409,
    title: 'Change request in conflict',
    description: 'What a change of the request changes has moved since it was added (a strategy, variants or segment updated or deleted, the feature archived): nothing was applied',
  },
  PreconditionFailedError: {
    status: 412,
    title: 'Precondition failed',
    description: 'If-Match does not match the current ETag',
  },
  PayloadTooLargeError: {
    status: 413,
    title: 'Payload too large',
    description: 'The request body is larger than the configured limit',
  },
  DisabledError: {
    status: 422,
    title: 'Disabled',
    description: 'Password login is turned off; sign in with single sign-on (the break-glass admin of UNLEASH_DEFAULT_ADMIN_USERNAME excepted)',
  },
  ContentTypeError: { status: 415, title: 'Unsupported content type', description: 'The request body is not JSON' },
  TooManyRequestsError: {
    status: 429,
    title: 'Too many requests',
    description: 'The service is busy (every database connection in use and the wait queue full or too slow); retry after the Retry-After header',
  },
  RequestHeaderFieldsTooLargeError: {
    status: 431,
    title: 'Request header fields too large',
    description: 'The request headers are larger than the server accepts',
  },
  InternalError: { status: 500, title: 'Internal error', description: 'An unexpected error; its id is logged' },
  IdentityProviderError: {
    status: 502,
    title: 'Identity provider unavailable',
    description: 'The identity provider did not answer in time, or answered with something that is not OpenID Connect',
  },
  ServiceUnavailableError: {
    status: 503,
    title: 'Service unavailable',
    description: 'The database is unreachable',
  },
  MaintenanceModeError: {
    status: 503,
    title: 'Maintenance mode',
    description: 'Maintenance mode is on (POST /api/admin/maintenance): every change is refused until an Admin turns it off; reads, the SDK APIs and signing in work',
  },
} as const

export type ErrorName = keyof typeof kinds

/** Another way to sign in, as Unleash's 401 lists it: `{type: 'oidc', message, path}`. */
export interface LoginOption {
  type: string
  message: string
  path: string
}

/**
 * What Unleash's clients read from a 401 to find the login: where, and of which kind;
 * `defaultHidden` when password login is off, and the other ways to sign in.
 */
export interface LoginHint {
  type: 'password'
  path: string
  defaultHidden: boolean
  options?: LoginOption[]
}

/** The one error type the service throws; the error handler turns it into the problem body. */
export class ApiError extends Error {
  readonly status: number
  readonly details: ErrorDetail[]

  constructor (
    readonly errorName: ErrorName,
    message: string,
    details?: ErrorDetail[],
    /** Response headers that belong to this error (Retry-After, Allow). */
    readonly headers: Record<string, string> = {},
    /** Members of the body that replace or join the common ones (the login hint of a 401). */
    readonly members: LoginHint | Record<string, never> = {}
  ) {
    super(message)
    this.name = errorName
    this.status = kinds[errorName].status
    this.details = details ?? [{ message }]
  }
}

export const badData = (message: string, details?: ErrorDetail[]) =>
  new ApiError('BadDataError', message, details)
/** 400 about one field: the message starts with its path, and the one detail names it. */
export const invalidField = (path: string, why: string) =>
  badData(`${path} ${why}`, [{ path, message: `${path} ${why}` }])
export const notFound = (message: string) => new ApiError('NotFoundError', message)
export const nameExists = (message: string) => new ApiError('NameExistsError', message)
export const permissionDenied = (message: string) => new ApiError('PermissionError', message)
export const payloadTooLarge = () => new ApiError('PayloadTooLargeError', 'The request body is larger than the limit')

/** The status a kind answers with, and the first kind for a status (for errors Fastify raises). */
export const statusOf = (name: ErrorName) => kinds[name].status
export const errorNameForStatus = (status: number): ErrorName | undefined =>
  (Object.keys(kinds) as ErrorName[]).find((name) => kinds[name].status === status)

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
    path: Type.Optional(Type.String({ description: 'On a 401 without credentials: where to log in (/auth/simple/login), as Unleash; type is then "password"' })),
    defaultHidden: Type.Optional(Type.Boolean({ description: 'On a 401 without credentials, as Unleash: true when password login is turned off' })),
    options: Type.Optional(
      Type.Array(
        Type.Object({
          type: Type.String({ description: 'oidc' }),
          message: Type.String({ description: 'What a sign-in button says' }),
          path: Type.String({ description: 'Where the browser goes to sign in (/auth/oidc/login; add ?redirect=<path>)' }),
        }),
        { description: 'On a 401 without credentials, as Unleash: the other ways to sign in (single sign-on, when on)' }
      )
    ),
  },
  {
    $id: 'ErrorBody',
    description: 'RFC 9457 problem details, plus the members Unleash clients read',
  }
)
export type ErrorBodyType = Static<typeof ErrorBody>

export function toErrorBody (error: ApiError): ErrorBodyType {
  const body: ErrorBodyType = {
    type: `urn:feature-flag-admin:error:${error.errorName}`,
    title: kinds[error.errorName].title,
    status: error.status,
    detail: error.message,
    id: randomUUID(),
    name: error.errorName,
    message: error.message,
    details: error.details,
  }
  return Object.assign(body, error.members)
}

/** What each error status means, for the OpenAPI document: every kind with that status, and its name. */
export const statusDescription = (status: number) => {
  const names = (Object.keys(kinds) as ErrorName[]).filter((name) => kinds[name].status === status)
  if (names.length === 0) return `HTTP ${status}`
  return [...new Set(names.map((name) => `${kinds[name].description} (${name})`))].join('; ')
}

/** The documents a business rule checks; a route says where each one is in its request. */
export type RuleDocument = 'operations' | 'variants' | 'strategy' | 'segment' | 'constraint' | 'import' | 'feature'

export interface RuleProblem {
  /** JSON Pointer into the document, when the problem has a place. */
  at?: string
  /** The sentence, given the pointer rooted where the route puts the document. */
  describe(path: string): string
}

/**
 * A 400 found by a pure rule (patch application, variant validation, the weight rule). It
 * knows places only within its document (`/0/weight` in the variants); the route declares
 * where that document is in its request (`/body`, or `/variants` for a patch result) in its
 * `documentRoots` config, and the error handler roots the paths.
 */
export class RuleError extends Error {
  constructor (
    readonly document: RuleDocument,
    readonly problems: [RuleProblem, ...RuleProblem[]]
  ) {
    super(problems[0].describe(problems[0].at ?? ''))
    this.name = 'RuleError'
  }

  toApiError (root: string): ApiError {
    const details = this.problems.map((p) =>
      p.at === undefined
        ? { message: p.describe(root) }
        : { path: root + p.at, message: p.describe(root + p.at) }
    )
    return new ApiError('BadDataError', details[0]?.message ?? this.message, details)
  }
}

/** A problem whose sentence starts with its place: "/variants/0/weight must be integer". */
export const problemAt = (at: string, text: string): RuleProblem => ({
  at,
  describe: (path) => `${path || '/'} ${text}`,
})

/** A problem with a fixed sentence, and optionally a place for details[].path. */
export const problem = (text: string, at?: string): RuleProblem => ({ at, describe: () => text })

/** Where a write's documents are below the element it writes (a strategy's variants: `{ variants: '/variants' }`). */
export type DocumentPlaces = Partial<Record<RuleDocument, string>>

/**
 * What a single write refused about its own request body (`/body/…` paths, or a RuleError of
 * one of its documents), placed instead where the same element is in a larger request (an
 * import's `/body/data/featureStrategies/3`), with the same sentence. Other refusals of the
 * element become 400s naming it; 403s and 5xx pass as they are.
 */
export function placedAt (error: unknown, root: string, documents: DocumentPlaces = {}): unknown {
  if (error instanceof RuleError) return error.toApiError(root + (documents[error.document] ?? ''))
  if (!(error instanceof ApiError) || error.status >= 500 || error.status === 403) return error
  const reroot = (text: string) => (text.startsWith('/body') ? root + text.slice('/body'.length) : `${root}: ${text}`)
  return new ApiError('BadDataError', reroot(error.message), error.details.map((d) => ({ message: reroot(d.message), path: d.path === undefined ? root : reroot(d.path) })))
}

/** Runs `work` (a single write, or its checks) for the element at `root`; what it refuses is refused there (`placedAt`). */
export async function refusedAt<T> (root: string, work: () => Promise<T>, documents: DocumentPlaces = {}): Promise<T> {
  try {
    return await work()
  } catch (error) {
    throw placedAt(error, root, documents)
  }
}
