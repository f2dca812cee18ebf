import { Type } from '@sinclair/typebox'

/** POST /edge/validate: the secrets to check (Unleash's tokenStringListSchema). */
export const TokenList = Type.Object({
  tokens: Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000, description: 'API token secrets (at most 1,000)' }),
})

/** A valid token as Unleash's validatedEdgeTokensSchema lists it. */
export const EdgeToken = Type.Object({
  token: Type.String({ description: 'The secret, as sent' }),
  type: Type.Union([Type.Literal('client'), Type.Literal('frontend'), Type.Literal('admin'), Type.Literal('backend')], { description: 'client (Unleash 8 also says backend), frontend or admin' }),
  projects: Type.Array(Type.String(), { description: 'Its projects; ["*"] for all' }),
  environment: Type.String({ description: 'Its environment; * for an admin token of several or all' }),
})

export const ValidatedTokens = Type.Object({ tokens: Type.Array(EdgeToken) })

/** POST /edge/issue-token: the environments and projects an Enterprise Edge asks tokens for. */
export const IssueTokenRequest = Type.Object({
  tokens: Type.Array(Type.Object({ environment: Type.String({ maxLength: 100 }), projects: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 1000 }) }), { maxItems: 100 }),
})
