import { type TSchema, Type } from '@sinclair/typebox'

/** `encodeURIComponent(s) === s`, 1–100 characters, and not `.` or `..`. */
export const URL_FRIENDLY_PATTERN = "^(?!\\.{1,2}$)[A-Za-z0-9\\-_.!~*'()]{1,100}$"

export const UrlFriendly = (description: string) =>
  Type.String({ minLength: 1, maxLength: 100, pattern: URL_FRIENDLY_PATTERN, description })

/** A string enum as plain JSON Schema `enum`, which validators and OpenAPI tools both read well. */
export const StringEnum = <const T extends readonly string[]>(values: T, options: object = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/** A Date in handlers, an RFC 3339 string on the wire (the serializer formats it). */
export const Timestamp = Type.Unsafe<Date>({ type: 'string', format: 'date-time' })

export const ProjectParams = Type.Object({ projectId: UrlFriendly('Project id') })
export const FeatureParams = Type.Object({
  projectId: UrlFriendly('Project id'),
  featureName: UrlFriendly('Feature name'),
})
export const FeatureEnvironmentParams = Type.Object({
  projectId: UrlFriendly('Project id'),
  featureName: UrlFriendly('Feature name'),
  environment: UrlFriendly('Environment name'),
})

/**
 * A 200 without a body (and without a Content-Type); handlers call reply.send() with nothing.
 * `type: 'null'` is how the OpenAPI generator leaves out the response content.
 */
export const EmptyReply = Type.Unsafe<undefined>({ type: 'null', description: 'Empty body, no Content-Type' })

/** A response header in a response schema; `always` marks it present on every such response. */
export const responseHeader = (description: string, always = false) => ({
  type: 'string',
  description,
  ...(always ? { 'x-always': true } : {}),
})

/**
 * A member that must not be there (in a conditional: "not on a client token"). Validation
 * refuses it with `message` after its path; the document shows it as `not: {}`.
 */
export const Refused = (message: string) => ({ not: {}, description: message })

/**
 * Free text in a query string or header: what the database can store, so no NUL character and
 * no lone UTF-16 surrogate (the request guard refuses both with a 400 naming the parameter;
 * the pattern says so in the document).
 */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000\\uD800-\\uDFFF]*$'
export const QueryText = (options: { maxLength?: number; minLength?: number; description: string }) =>
  Type.String({ ...options, pattern: STORABLE_TEXT_PATTERN })
