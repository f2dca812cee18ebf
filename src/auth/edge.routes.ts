import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { TokenLookup } from './auth.plugin.js'
import { errorStatuses } from '../http/openapi.js'
import { IssueTokenRequest, TokenList, ValidatedTokens } from './edge.schemas.js'
import { refuseIssueToken, validTokens } from './edge.service.js'

/**
 * Unleash Edge's routes: which tokens are valid (for Edge and for relays, the server's and a
 * relay's own: `tokens` looks them up in the database or upstream), and Enterprise Edge's
 * request for tokens.
 */
export const edgeRoutes: FastifyPluginAsyncTypebox<{ tokens: TokenLookup; issueToken: boolean }> = async (app, { tokens, issueToken }) => {
  app.post(
    '/edge/validate',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Unleash Edge'],
        operationId: 'getValidTokens',
        summary: 'Which of these API tokens are valid (no token needed)',
        description: 'As Unleash: for each valid secret, the secret with its type, projects and environment; unknown ones are left out. Used by Unleash Edge and by relays (a relay answers it by asking its own upstream). At most 1,000 secrets.',
        body: TokenList,
        errors: errorStatuses(400, 413, 415).filter((s) => s !== 401),
        response: { 200: ValidatedTokens },
      },
    },
    async (request) => ({ tokens: await validTokens((secret) => tokens.lookup(secret), request.body.tokens) })
  )

  if (!issueToken) return
  app.post(
    '/edge/issue-token',
    {
      config: { access: 'public' },
      // Unleash checks the signature before it reads the body.
      preValidation: async (request) => refuseIssueToken(request.headers),
      schema: {
        tags: ['Unleash Edge'],
        operationId: 'edgeCreateOrReturnTokens',
        summary: 'Enterprise Edge asks for client tokens (always refused here)',
        description: "Unleash's checks of the signed request (an `Authorization: HMAC <client>:<signature>` header, X-Timestamp, X-Nonce and Content-SHA256, a timestamp within five minutes), each a 401 naming it. The Edge client must then be registered, which only Unleash's Enterprise edition does: here every request is 401 (give Edge or a relay a client token in TOKENS instead).",
        body: IssueTokenRequest,
        errors: [400, 401, 413, 415],
      },
    },
    async (request) => refuseIssueToken(request.headers)
  )
}
