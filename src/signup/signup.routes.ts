import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, responseHeader } from '../http/schemas.js'
import { linkBase } from '../users/reset-links.js'
import type { PeopleContext } from '../users/users.service.js'
import { User } from '../users/users.schemas.js'
import { InvitedUser, MAX_LIVE_SIGNUP_TOKENS, MAX_SIGNUPS_PER_TOKEN, NewSignupToken, SignupToken, SignupTokenParams, SignupTokens, SignupTokenUpdate } from './signup.schemas.js'
import { createSignupToken, signUp, signupToken, signupTokens, updateSignupTokenOf, validateSignupToken } from './signup.service.js'

const TAGS = ['Public signup tokens']
const ADMIN = { access: 'admin', role: 'admin' } as const
const BASE = '/api/admin/invite-link/tokens'

/**
 * Public sign-up tokens (Unleash's invite links): an Admin makes one and hands its link on;
 * whoever opens it signs up (/invite/{token}/…, no sign-in) with the token's root role.
 */
export const signupRoutes: FastifyPluginAsyncTypebox<{ people: PeopleContext }> = async (app, { people }) => {
  const { db } = people

  app.get(
    BASE,
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'getAllPublicSignupTokens',
        summary: 'Every sign-up token, the newest first, with its link and who signed up with it',
        errors: errorStatuses(403),
        response: { 200: SignupTokens },
      },
    },
    async (request) => signupTokens(db, linkBase(people.publicUrl, request))
  )

  app.post(
    BASE,
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'createPublicSignupToken',
        summary: 'Make a sign-up token (an invite link)',
        description: `Its link (url: UNLEASH_URL/new-user?invite=<secret>) lets whoever opens it sign up as a Viewer until expiresAt (a future instant, brought back to a month from now at most, as Unleash) or until it is disabled; no mail is sent, the Admin hands it on. At most ${MAX_LIVE_SIGNUP_TOKENS} work at once. The secret is kept as it is (Admins read it back, as in Unleash). Records public-signup-token-created (without the secret).`,
        body: NewSignupToken,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 201: { ...SignupToken, headers: { location: responseHeader('tokens/<secret>', true) } } },
      },
    },
    async (request, reply) => {
      const token = await createSignupToken(db, request.body, linkBase(people.publicUrl, request), request.author)
      return reply.code(201).header('location', `tokens/${token.secret}`).send(token)
    }
  )

  app.get(
    `${BASE}/:token`,
    {
      config: { ...ADMIN, secretPath: true },
      schema: {
        tags: TAGS,
        operationId: 'getPublicSignupToken',
        summary: 'One sign-up token',
        params: SignupTokenParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: SignupToken },
      },
    },
    async (request) => signupToken(db, request.params.token, linkBase(people.publicUrl, request))
  )

  app.put(
    `${BASE}/:token`,
    {
      config: { ...ADMIN, secretPath: true },
      schema: {
        tags: TAGS,
        operationId: 'updatePublicSignupToken',
        summary: "Change a sign-up token's expiry, or turn it off or on",
        description: 'expiresAt (brought back to a month from now at most; a past instant ends it), enabled, or both (400 with neither). Records public-signup-token-updated when it changes anything.',
        params: SignupTokenParams,
        body: SignupTokenUpdate,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: SignupToken },
      },
    },
    async (request) => updateSignupTokenOf(db, request.params.token, request.body, linkBase(people.publicUrl, request), request.author)
  )

  app.get(
    '/invite/:token/validate',
    {
      config: { access: 'public', secretPath: true },
      schema: {
        tags: TAGS,
        operationId: 'validatePublicSignupToken',
        summary: 'Whether an invite link works (no sign-in)',
        description: '200 (empty) while the token is enabled and not expired; 400 otherwise, the same answer for each reason. Attempts that find no working token count against LOGIN_MAX_FAILURES_PER_ADDRESS per source address (429 past it). The token never reaches the log.',
        params: SignupTokenParams,
        errors: [400, 429, 503],
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await validateSignupToken(people, request.params.token, request.ip)
      return reply.code(200).send()
    }
  )

  app.post(
    '/invite/:token/signup',
    {
      config: { access: 'public', secretPath: true },
      schema: {
        tags: TAGS,
        operationId: 'addPublicSignupTokenUser',
        summary: 'Sign up with an invite link (no sign-in)',
        description: `Creates the user with the token's root role (Viewer) and answers them with 201, as Unleash does (its document says 200): 400 when the token does not work or the password breaks a rule (naming it), 409 when the email or username is taken. At most ${MAX_SIGNUPS_PER_TOKEN} users per token; attempts count per source address as /validate's (429). The person then signs in (POST /auth/simple/login). Records user-created and public-signup-token-user-added.`,
        params: SignupTokenParams,
        body: InvitedUser,
        errors: [400, 409, 413, 415, 429, 503],
        response: { 201: User },
      },
    },
    async (request, reply) => reply.code(201).send(await signUp(people, request.params.token, request.body, request.ip))
  )
}
