import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type Static, Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, UrlFriendly } from '../http/schemas.js'
import type { TokenCache } from './auth.plugin.js'
import { ALL, type TokenScope } from '../access/scope.js'
import { CreatedToken, NewToken, TokenInfo } from './tokens.schemas.js'
import { createToken, removeToken, tokens } from './tokens.service.js'

/** `*` anywhere in a scope list means all, so it is stored alone. */
const normalizeScope = (list: string[] | undefined) =>
  list === undefined || list.includes(ALL) ? [ALL] : list

/** The scope of a new token, from a body the schema has validated. */
function tokenScope (body: Static<typeof NewToken>): TokenScope {
  const type = body.type ?? 'admin'
  return {
    name: body.tokenName,
    type,
    projects: normalizeScope(body.projects),
    environments: type === 'admin' ? normalizeScope(body.environments) : [body.environment!],
  }
}

export const tokenRoutes: FastifyPluginAsyncTypebox<{ db: Database; tokens: TokenCache }> = async (
  app,
  { db, tokens: cache }
) => {
  app.post(
    '/api/admin/api-tokens',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags: ['API tokens'],
        operationId: 'createApiToken',
        summary: 'Create an API token (needs a */* token)',
        description: 'An admin token (the default) is scoped to projects and environments. A client token (type client) serves the Unleash server SDKs, a frontend token (type frontend) browser and mobile apps through the frontend API and OFREP: one environment, a list of projects, and a secret in Unleash\'s form project:environment.<random> (* for all projects, [] for several). The secret is shown only in this response. Records api-token-created.',
        body: NewToken,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: CreatedToken },
      },
    },
    async (request, reply) => reply.code(201).send(await createToken(db, tokenScope(request.body), request.author))
  )

  app.get(
    '/api/admin/api-tokens',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags: ['API tokens'],
        operationId: 'getAllApiTokens',
        summary: 'List API tokens (never their secrets; needs a */* token)',
        errors: errorStatuses(403),
        response: { 200: Type.Object({ tokens: Type.Array(TokenInfo) }) },
      },
    },
    async () => ({ tokens: await tokens(db) })
  )

  app.delete(
    '/api/admin/api-tokens/:tokenName',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags: ['API tokens'],
        operationId: 'deleteApiToken',
        summary: 'Delete an API token (needs a */* token)',
        description:
          'Records api-token-deleted. The secret stops working at once on this instance and within TOKEN_CACHE_MS (1 s by default) on the others.',
        params: Type.Object({ tokenName: UrlFriendly('Token name') }),
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeToken(db, request.params.tokenName, request.author)
      cache.forget(request.params.tokenName)
      return reply.code(200).send()
    }
  )
}
