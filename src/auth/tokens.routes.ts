import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { notFound } from '../errors.js'
import { insertEvent, toJsonText } from '../events/events.store.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, Timestamp, UrlFriendly } from '../http/schemas.js'
import type { TokenCache } from './auth.plugin.js'
import { ALL, generateSecret } from './tokens.js'
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
    projects: Type.Optional(ScopeList('Project')),
    environments: Type.Optional(ScopeList('Environment')),
  },
  { additionalProperties: false }
)

const TokenInfo = Type.Object({
  tokenName: Type.String(),
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
  projects: t.projects,
  environments: t.environments,
  createdAt: t.createdAt,
})

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
        body: NewToken,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: CreatedToken },
      },
    },
    async (request, reply) => {
      const secret = generateSecret()
      const scope = {
        name: request.body.tokenName,
        projects: normalizeScope(request.body.projects),
        environments: normalizeScope(request.body.environments),
      }
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
