import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type Static, Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { invalidField, notFound } from '../errors.js'
import { insertEvent, toJsonText } from '../events/events.store.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, StringEnum, Timestamp, UrlFriendly } from '../http/schemas.js'
import type { TokenCache } from './auth.plugin.js'
import { ALL, generateClientSecret, generateSecret, TOKEN_TYPES, type TokenScope } from './tokens.js'
import { type ApiToken, deleteToken, insertToken, listTokens } from './tokens.store.js'

const ScopeList = (what: string) =>
  Type.Array(UrlFriendly(`${what} name, or * for all`), {
    minItems: 1,
    maxItems: 1000,
    uniqueItems: true,
    default: [ALL],
    description: `${what}s the token may act on; ["*"] (the default) means all`,
  })

const NewToken = Type.Object(
  {
    tokenName: UrlFriendly('Unique name; recorded as createdBy on the events the token causes'),
    type: Type.Optional(
      StringEnum(TOKEN_TYPES, {
        default: 'admin',
        description: 'admin (the default): the admin API. client: the client API of the Unleash SDKs, for one environment',
      })
    ),
    projects: Type.Optional(ScopeList('Project')),
    environments: Type.Optional(ScopeList('Environment')),
    environment: Type.Optional(UrlFriendly('The one environment of a client token (required for type client, refused otherwise)')),
  },
  { additionalProperties: false }
)

const TokenInfo = Type.Object({
  tokenName: Type.String(),
  type: StringEnum(TOKEN_TYPES),
  projects: Type.Array(Type.String()),
  environments: Type.Array(Type.String()),
  createdAt: Timestamp,
})

const CreatedToken = Type.Composite([
  TokenInfo,
  Type.Object({ secret: Type.String({ description: 'Shown only in this response' }) }),
])

const toInfo = (t: ApiToken) => ({
  tokenName: t.name,
  type: t.type,
  projects: t.projects,
  environments: t.environments,
  createdAt: t.createdAt,
})

/**
 * The scope of a new token. A client token has exactly one environment, named by
 * `environment` (as Unleash's API); an admin token names its environments in `environments`.
 */
function tokenScope (body: Static<typeof NewToken>): TokenScope {
  const type = body.type ?? 'admin'
  const misplaced = type === 'client' ? 'environments' : 'environment'
  if (body[misplaced] !== undefined) {
    throw invalidField(`/body/${misplaced}`, `is not allowed on a${type === 'admin' ? 'n' : ''} ${type} token`)
  }
  if (type === 'client' && body.environment === undefined) {
    throw invalidField('/body/environment', 'is required for a client token')
  }
  return {
    name: body.tokenName,
    type,
    projects: normalizeScope(body.projects),
    environments: type === 'client' ? [body.environment!] : normalizeScope(body.environments),
  }
}

/** `*` anywhere in a scope list means all, so it is stored alone. */
const normalizeScope = (list: string[] | undefined) =>
  list === undefined || list.includes(ALL) ? [ALL] : list

export const tokenRoutes: FastifyPluginAsyncTypebox<{ db: Database; tokens: TokenCache }> = async (
  app,
  { db, tokens }
) => {
  app.post(
    '/api/admin/api-tokens',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['API tokens'],
        operationId: 'createApiToken',
        summary: 'Create an API token (needs a */* token)',
        description: 'An admin token (the default) is scoped to projects and environments. A client token (type client) serves the Unleash SDKs: one environment, a list of projects, and a secret in Unleash\'s form project:environment.<random>. The secret is shown only in this response.',
        body: NewToken,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: CreatedToken },
      },
    },
    async (request, reply) => {
      const scope = tokenScope(request.body)
      const secret = scope.type === 'client' ? generateClientSecret(scope.projects, scope.environments[0]!) : generateSecret()
      const token = await db.transaction().execute(async (trx) => {
        const created = await insertToken(trx, scope, secret)
        await insertEvent(trx, { type: 'api-token-created', createdBy: request.token.name, data: toJsonText(toInfo(created)) })
        return created
      })
      return reply.code(201).send({ ...toInfo(token), secret })
    }
  )

  app.get(
    '/api/admin/api-tokens',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['API tokens'],
        operationId: 'getAllApiTokens',
        summary: 'List API tokens (never their secrets; needs a */* token)',
        errors: errorStatuses(403),
        response: { 200: Type.Object({ tokens: Type.Array(TokenInfo) }) },
      },
    },
    async () => ({ tokens: (await listTokens(db)).map(toInfo) })
  )

  app.delete(
    '/api/admin/api-tokens/:tokenName',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['API tokens'],
        operationId: 'deleteApiToken',
        summary: 'Delete an API token (needs a */* token)',
        description:
          'The secret stops working at once on this instance and within TOKEN_CACHE_MS (1 s by default) on the others.',
        params: Type.Object({ tokenName: UrlFriendly('Token name') }),
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      const { tokenName } = request.params
      await db.transaction().execute(async (trx) => {
        const deleted = await deleteToken(trx, tokenName)
        if (!deleted) throw notFound(`API token ${tokenName} does not exist`)
        await insertEvent(trx, { type: 'api-token-deleted', createdBy: request.token.name, data: toJsonText(toInfo(deleted)) })
      })
      tokens.forget(tokenName)
      return reply.code(200).send()
    }
  )
}
