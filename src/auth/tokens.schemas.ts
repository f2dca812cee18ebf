import { Type } from '@sinclair/typebox'
import { ALL, TOKEN_TYPES, type TokenScope } from '../access/scope.js'
import { Nullable, Refused, STORABLE_TEXT_PATTERN, StringEnum, Timestamp, UrlFriendly } from '../http/schemas.js'

/** The admin secrets this server made before it made them in Unleash's form start so. */
export const OLD_SECRET_PREFIX = 'ffa_'

const ScopeList = (what: string) =>
  Type.Array(UrlFriendly(`${what} name, or * for all`), {
    minItems: 1,
    maxItems: 1000,
    uniqueItems: true,
    default: [ALL],
    description: `${what}s the token may act on; ["*"] (the default) means all`,
  })

/**
 * A token's name: URL-friendly (so never with a `:`), and not in the form of this server's older
 * admin secrets, so that `/api/admin/api-tokens/{token}` can never read a name as a secret.
 */
export const TokenName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: `^(?!${OLD_SECRET_PREFIX})(?!\\.{1,2}$)[A-Za-z0-9\\-_.!~*'()]{1,100}$`,
  description: `Unique name; recorded as createdBy on the events the token causes. Letters, digits and - _ . ! ~ * ' ( ); not starting with ${OLD_SECRET_PREFIX}`,
})

/** The types a new token may have: `backend` is Unleash 8's newer name of a client token (stored and shown as client). */
export const NEW_TOKEN_TYPES = [...TOKEN_TYPES, 'backend'] as const

const ExpiresAt = Type.Unsafe<string>({
  type: 'string',
  format: 'date-time',
  description: 'When the token stops working (RFC 3339); from then on it is refused (401) wherever it is sent. Left out: never',
})

/**
 * The members depend on the type: an admin token (the default) names its environments in
 * `environments`; a client token names its one environment in `environment` (as Unleash's API).
 * The schema says which member each type refuses, so the document is what the route does.
 */
export const NewToken = Type.Object(
  {
    tokenName: TokenName,
    type: Type.Optional(
      StringEnum(NEW_TOKEN_TYPES, {
        default: 'admin',
        description: 'admin (the default): the admin API. client (or backend, its newer name in Unleash): the client API of the Unleash server SDKs, for one environment. frontend: the frontend API and OFREP, for browser and mobile apps, for one environment',
      })
    ),
    projects: Type.Optional(ScopeList('Project')),
    project: Type.Optional(UrlFriendly('One project, or * for all (as Unleash: instead of projects)')),
    environments: Type.Optional(ScopeList('Environment')),
    environment: Type.Optional(UrlFriendly('The one environment of a client or frontend token (required for those types, refused for admin tokens)')),
    expiresAt: Type.Optional(ExpiresAt),
  },
  {
    additionalProperties: false,
    allOf: [
      {
        if: { required: ['type'], properties: { type: { enum: ['client', 'backend', 'frontend'] } } },
        then: { required: ['environment'], properties: { environments: Refused('is not allowed on a client or frontend token (it has one environment: environment)') } },
      },
      {
        // Also when type is absent: admin is the default.
        if: { properties: { type: { const: 'admin' } } },
        then: { properties: { environment: Refused('is not allowed on an admin token (use environments)') } },
      },
      {
        if: { required: ['projects'] },
        then: { properties: { project: Refused('is not allowed with projects: send one of them') } },
      },
    ],
  }
)

/** A project token (Unleash's createProjectApiTokenSchema): a client or frontend token of the path's project. */
export const NewProjectToken = Type.Object(
  {
    tokenName: TokenName,
    type: StringEnum(['client', 'backend', 'frontend'] as const, { description: 'client (or backend, its newer name in Unleash) or frontend' }),
    environment: Type.Optional(UrlFriendly('The environment; default: default (as Unleash); it must exist')),
    expiresAt: Type.Optional(ExpiresAt),
  },
  { additionalProperties: false }
)

/** A new expiry (Unleash's updateApiTokenSchema). */
export const TokenExpiry = Type.Object({ expiresAt: ExpiresAt }, { additionalProperties: false })

/**
 * A token as Unleash's apiTokenSchema shows it, never with its secret: `environment` is its
 * environments joined with commas (`*` for all; an admin token here may have several, and
 * environment names never hold a comma), `project` its projects joined the same way.
 */
export const TokenInfo = Type.Object({
  tokenName: Type.String(),
  type: StringEnum(TOKEN_TYPES),
  environment: Type.String({ description: 'The environment, * for all; several joined with commas' }),
  project: Type.String({ description: 'The project, * for all; several joined with commas' }),
  projects: Type.Array(Type.String()),
  expiresAt: Nullable(Timestamp),
  createdAt: Timestamp,
})

export const TokenList = Type.Object({ tokens: Type.Array(TokenInfo) })

export const CreatedToken = Type.Composite([
  TokenInfo,
  Type.Object({ secret: Type.String({ description: 'Shown only in this response' }) }),
])

/** `{token}`: a token's secret; or, when the value has no `:` and is not of the older secret form, its name. */
export const TokenParams = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: 1000,
    pattern: STORABLE_TEXT_PATTERN,
    description: `The token's secret (as Unleash); or its name (a value without ":" that does not start with ${OLD_SECRET_PREFIX})`,
  }),
})

/** A new token: its scope and, when it has one, its expiry. */
export interface NewApiToken extends TokenScope {
  expiresAt: Date | null
}
