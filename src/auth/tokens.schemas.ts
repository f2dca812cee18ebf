import { Type } from '@sinclair/typebox'
import { ALL, TOKEN_TYPES } from '../access/scope.js'
import { Refused, StringEnum, Timestamp, UrlFriendly } from '../http/schemas.js'

const ScopeList = (what: string) =>
  Type.Array(UrlFriendly(`${what} name, or * for all`), {
    minItems: 1,
    maxItems: 1000,
    uniqueItems: true,
    default: [ALL],
    description: `${what}s the token may act on; ["*"] (the default) means all`,
  })

/**
 * The members depend on the type: an admin token (the default) names its environments in
 * `environments`; a client token names its one environment in `environment` (as Unleash's API).
 * The schema says which member each type refuses, so the document is what the route does.
 */
export const NewToken = Type.Object(
  {
    tokenName: UrlFriendly('Unique name; recorded as createdBy on the events the token causes'),
    type: Type.Optional(
      StringEnum(TOKEN_TYPES, {
        default: 'admin',
        description: 'admin (the default): the admin API. client: the client API of the Unleash server SDKs, for one environment. frontend: the frontend API and OFREP, for browser and mobile apps, for one environment',
      })
    ),
    projects: Type.Optional(ScopeList('Project')),
    environments: Type.Optional(ScopeList('Environment')),
    environment: Type.Optional(UrlFriendly('The one environment of a client or frontend token (required for those types, refused for admin tokens)')),
  },
  {
    additionalProperties: false,
    allOf: [
      {
        if: { required: ['type'], properties: { type: { enum: ['client', 'frontend'] } } },
        then: { required: ['environment'], properties: { environments: Refused('is not allowed on a client or frontend token (it has one environment: environment)') } },
      },
      {
        // Also when type is absent: admin is the default.
        if: { properties: { type: { const: 'admin' } } },
        then: { properties: { environment: Refused('is not allowed on an admin token (use environments)') } },
      },
    ],
  }
)

export const TokenInfo = Type.Object({
  tokenName: Type.String(),
  type: StringEnum(TOKEN_TYPES),
  projects: Type.Array(Type.String()),
  environments: Type.Array(Type.String()),
  createdAt: Timestamp,
})

export const CreatedToken = Type.Composite([
  TokenInfo,
  Type.Object({ secret: Type.String({ description: 'Shown only in this response' }) }),
])
