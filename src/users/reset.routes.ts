import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ApiError } from '../errors.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply } from '../http/schemas.js'
import { checkPassword } from './passwords.js'
import { linkBase } from './reset-links.js'
import { createResetLink, resetPassword, resetTokenUser } from './reset.service.js'
import type { PeopleContext } from './users.service.js'
import { AdminPassword, ChangePasswordWithToken, EmailBody, ResetLink, ResetLinkRequest, ResetTokenQuery, TokenUser } from './users.schemas.js'

/** The errors of a route without a token that needs the database. */
const PUBLIC_ERRORS = [429, 503]

/**
 * Password resets without a mail server: an Admin makes a link and hands it on; the person
 * opens it (the admin UI's /reset-password or /new-user page) and sets a password.
 */
export const resetRoutes: FastifyPluginAsyncTypebox<{ people: PeopleContext }> = async (app, { people }) => {
  app.post(
    '/api/admin/user-admin/reset-password',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags: ['Users'],
        operationId: 'resetUserPassword',
        summary: 'A password-reset link for a user, to hand on',
        description: 'id is the user\'s email or username (404 when no user has it). Answers UNLEASH_URL/reset-password?token=… (the request\'s origin without UNLEASH_URL): no mail is sent, the Admin hands it on. It lives 24 hours and works once; it replaces the user\'s other links; one new link per user per minute (429). Only a hash of the token is kept. Records user-updated with passwordResetLinkCreated: true.',
        body: ResetLinkRequest,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: ResetLink },
      },
    },
    async (request) => ({ resetPasswordUrl: await createResetLink(people, request.body.id, linkBase(people.publicUrl, request), request.author) })
  )

  app.get(
    '/auth/reset/validate',
    {
      config: { access: 'public', secretQuery: true },
      schema: {
        tags: ['Auth'],
        operationId: 'validateToken',
        summary: 'Whose a reset or invitation link is',
        description: 'The user the token of a live link belongs to, in Unleash\'s shape; 401 InvalidTokenError for a token unknown, used or expired (the same answer for each). No sign-in needed; the token never reaches the log.',
        querystring: ResetTokenQuery,
        errors: [400, 401, ...PUBLIC_ERRORS],
        response: { 200: TokenUser },
      },
    },
    async (request) => {
      const { token } = request.query
      if (token === undefined) throw new ApiError('InvalidTokenError', 'Token was not valid')
      return resetTokenUser(people, token)
    }
  )

  app.post(
    '/auth/reset/password',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Auth'],
        operationId: 'changePassword',
        summary: 'Set a password with a reset or invitation link',
        description: 'The link must be live (401 InvalidTokenError otherwise) and the password follow the rules (400 naming the rule). The link is used up with every other link of the user, and every session of theirs ends. Records user-updated with passwordChanged: true. No sign-in needed.',
        body: ChangePasswordWithToken,
        errors: [400, 401, 413, 415, ...PUBLIC_ERRORS],
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await resetPassword(people, request.body.token, request.body.password)
      return reply.code(200).send()
    }
  )

  app.post(
    '/auth/reset/validate-password',
    {
      config: { access: 'public', maintenance: 'open' },
      schema: {
        tags: ['Auth'],
        operationId: 'validatePassword',
        summary: 'Check a password against the password rules',
        description: '200 when it may be used; 400 naming the rule it breaks. Stores nothing; no sign-in needed.',
        body: AdminPassword,
        errors: [400, 413, 415],
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      checkPassword(request.body.password)
      return reply.code(200).send()
    }
  )

  app.post(
    '/auth/reset/password-email',
    {
      config: { access: 'public', maintenance: 'open' },
      schema: {
        tags: ['Auth'],
        operationId: 'sendResetPasswordEmail',
        summary: 'Ask for a reset mail: none is sent',
        description: 'This server sends no mail: 200 whatever the address, and nothing happens (unlike Unleash, the answer tells nothing about whether the address is a user\'s). An Admin makes reset links (POST /api/admin/user-admin/reset-password) and hands them on.',
        body: EmailBody,
        errors: [400, 413, 415],
        response: { 200: EmptyReply },
      },
    },
    async (_request, reply) => reply.code(200).send()
  )
}
