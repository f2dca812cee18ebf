import { Type } from '@sinclair/typebox'
import { QueryText } from '../http/schemas.js'

/** A context value; null is accepted and means absent (as the client specification's contexts have it). */
const ContextValue = Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])

const QueryField = (description: string) => Type.Optional(QueryText({ maxLength: 1000, description }))

/** The evaluation context in the query: these fields, properties[name]=value, and any other name as a property. */
export const FrontendQuery = Type.Object(
  {
    userId: QueryField('The user'),
    sessionId: QueryField('The session'),
    remoteAddress: QueryField("The client's IP address; default: the caller's (behind proxies: TRUST_PROXY)"),
    currentTime: QueryField('The time to evaluate at (RFC 3339); default: now'),
    appName: QueryField('The application'),
    environment: QueryField('The environment field of the context (not the token\'s environment)'),
  },
  {
    additionalProperties: QueryText({ maxLength: 1000, description: 'properties[name]=value, or any other name: a property' }),
    maxProperties: 100,
    propertyNames: { minLength: 1, maxLength: 200 },
  }
)

export const FrontendContext = Type.Object(
  {
    properties: Type.Optional(Type.Record(Type.String(), ContextValue, { maxProperties: 100, propertyNames: { minLength: 1, maxLength: 200 } })),
  },
  {
    additionalProperties: ContextValue,
    maxProperties: 100,
    description: 'userId, sessionId, remoteAddress (default: the caller\'s address), currentTime, appName, environment, properties; any other name is a property',
  }
)

export const FrontendBody = Type.Object({ context: Type.Optional(FrontendContext) }, { additionalProperties: false })

const Payload = Type.Object({ type: Type.String(), value: Type.String() })

export const FrontendToggles = Type.Object({
  toggles: Type.Array(
    Type.Object({
      name: Type.String(),
      enabled: Type.Literal(true),
      variant: Type.Object({
        name: Type.String(),
        enabled: Type.Boolean(),
        feature_enabled: Type.Boolean(),
        featureEnabled: Type.Boolean({ description: 'Deprecated name of feature_enabled' }),
        payload: Type.Optional(Payload),
      }),
      impressionData: Type.Boolean(),
    }),
    { description: 'The features that are on for the context, by name, with the variant the official SDK picks' }
  ),
})

export const FrontendRegistration = Type.Object(
  {
    appName: Type.String({ minLength: 1, maxLength: 255 }),
    interval: Type.Integer({ minimum: 0, maximum: 86_400_000 }),
    started: Type.Union([Type.String({ format: 'date-time', maxLength: 64 }), Type.Integer({ minimum: 0 })]),
    strategies: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100 }),
    instanceId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    sdkVersion: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    environment: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false }
)

// OFREP

export const OfrepParams = Type.Object({ key: QueryText({ minLength: 1, maxLength: 1000, description: 'The flag (feature) name; a key no flag can have is FLAG_NOT_FOUND' }) })

export const OfrepBody = Type.Object(
  {
    context: Type.Record(Type.String(), Type.Unknown(), {
      maxProperties: 100,
      propertyNames: { minLength: 1, maxLength: 200 },
      description: 'targetingKey is the userId; other fields as in the frontend API (strings, numbers or booleans; properties an object of them)',
    }),
  },
  { additionalProperties: false }
)

const OfrepValue = Type.Unknown({
  description: 'A boolean, a string, a number, or an object or array (a json payload)',
  anyOf: [{ type: 'boolean' }, { type: 'string' }, { type: 'number' }, { type: 'object' }, { type: 'array' }],
})

export const OfrepSuccess = Type.Object({
  key: Type.String(),
  reason: Type.Union([Type.Literal('TARGETING_MATCH'), Type.Literal('SPLIT'), Type.Literal('DISABLED')]),
  variant: Type.String(),
  value: OfrepValue,
  metadata: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
})

export const OfrepFailure = Type.Object({
  key: Type.String(),
  errorCode: Type.Union([Type.Literal('FLAG_NOT_FOUND'), Type.Literal('INVALID_CONTEXT'), Type.Literal('PARSE_ERROR')]),
  errorDetails: Type.String(),
})

export const OfrepBulk = Type.Object({ flags: Type.Array(OfrepSuccess) })

export const OfrepBulkFailure = Type.Object({
  errorCode: Type.Union([Type.Literal('INVALID_CONTEXT'), Type.Literal('PARSE_ERROR')]),
  errorDetails: Type.String(),
})
