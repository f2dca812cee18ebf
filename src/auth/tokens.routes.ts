import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type Static, Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, UrlFriendly } from '../http/schemas.js'
import { requireEnvironment, type TokenCache } from './auth.plugin.js'
import { ALL, isAdmin, type TokenType } from '../access/scope.js'
import { CreatedToken, NEW_TOKEN_TYPES, type NewApiToken, NewProjectToken, NewToken, TokenExpiry, TokenList, TokenParams } from './tokens.schemas.js'
import { changeExpiry, createProjectToken, createToken, projectTokens, removeProjectToken, removeToken, type TokenReader, tokens } from './tokens.service.js'

/** `*` anywhere in a scope list means all, so it is stored alone. */
const normalizeScope = (list: string[] | undefined) =>
  list === undefined || list.includes(ALL) ? [ALL] : list

/** The stored type of a type sent: backend is Unleash 8's name of a client token. */
const storedType = (type: (typeof NEW_TOKEN_TYPES)[number]): TokenType => (type === 'backend' ? 'client' : type)

/** An expiry sent (an RFC 3339 date-time the schema has checked), or none. */
const expiryOf = (expiresAt: string | undefined) => (expiresAt === undefined ? null : new Date(expiresAt))

/** The new token, from a body the schema has validated. */
function newToken (body: Static<typeof NewToken>): NewApiToken {
  const type = storedType(body.type ?? 'admin')
  return {
    name: body.tokenName,
    type,
    projects: normalizeScope(body.project === undefined ? body.projects : [body.project]),
    environments: type === 'admin' ? normalizeScope(body.environments) : [body.environment!],
    expiresAt: expiryOf(body.expiresAt),
  }
}

/** Who reads tokens: an Admin or a token for everything sees them all; an Editor (or a token of some projects) the client and frontend ones of its scope. */
const readerOf = (request: FastifyRequest): TokenReader => ({
  scope: request.token,
  everything: request.person === null ? isAdmin(request.token) : request.person.rootRole === 'Admin',
})

const tags = ['API tokens']

/** The path parameter may be a secret: the log line redacts it. */
const SECRET_PATH = ['token'] as const

const BY_SECRET = 'As Unleash, `{token}` is the token\'s secret (stored only as a hash, so it is hashed and looked up); a secret that names no token changes nothing and is no error (200). A value without ":" that does not start with ffa_ (the form of the admin secrets this server made before) is read as the token\'s name instead (404 when no token has it): token names can never have a secret\'s form, so the two are never confused. Log lines show this path with the value redacted.'

export const tokenRoutes: FastifyPluginAsyncTypebox<{ db: Database; tokens: TokenCache }> = async (
  app,
  { db, tokens: cache }
) => {
  app.post(
    '/api/admin/api-tokens',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags,
        operationId: 'createApiToken',
        summary: 'Create an API token (needs a */* token)',
        description: 'An admin token (the default) is scoped to projects and environments. A client token (type client, or backend) serves the Unleash server SDKs, a frontend token (type frontend) browser and mobile apps through the frontend API and OFREP: one environment, a list of projects. Every secret has Unleash\'s form project:environment.<random> (* for all, [] for several). The secret is shown only in this response. expiresAt (optional) ends it. Records api-token-created.',
        body: NewToken,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: CreatedToken },
      },
    },
    async (request, reply) => reply.code(201).send(await createToken(db, newToken(request.body), request.author))
  )

  app.get(
    '/api/admin/api-tokens',
    {
      config: { access: 'admin', role: 'editor' },
      schema: {
        tags,
        operationId: 'getAllApiTokens',
        summary: 'List API tokens (never their secrets)',
        description: 'An Admin (or a */* token) sees every token; an Editor the client and frontend tokens, as Unleash\'s Editor. environment and project join several names with commas.',
        errors: errorStatuses(403),
        response: { 200: TokenList },
      },
    },
    async (request) => ({ tokens: await tokens(db, readerOf(request)) })
  )

  app.get(
    '/api/admin/api-tokens/:token',
    {
      config: { access: 'admin', role: 'editor', secretPath: SECRET_PATH },
      schema: {
        tags,
        operationId: 'getApiTokensByName',
        summary: 'The API tokens of a name (a list, as Unleash: empty when none)',
        description: 'What the list shows, of the one token with this name (names are unique here). A value in a secret\'s form (with ":") names no token: an empty list.',
        params: TokenParams,
        errors: errorStatuses(400, 403),
        response: { 200: TokenList },
      },
    },
    async (request) => ({ tokens: await tokens(db, readerOf(request), request.params.token) })
  )

  app.put(
    '/api/admin/api-tokens/:token',
    {
      config: { access: 'admin', role: 'admin', secretPath: SECRET_PATH },
      schema: {
        tags,
        operationId: 'updateApiToken',
        summary: "Change an API token's expiry (needs a */* token)",
        description: `Terraform's provider changes expiry so. Records api-token-updated with the token before and after (the same expiry again records nothing). A token whose expiry has passed is refused (401) from then on, here at once and on other instances within TOKEN_CACHE_MS; its streams end. ${BY_SECRET}`,
        params: TokenParams,
        body: TokenExpiry,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      const changed = await changeExpiry(db, request.params.token, new Date(request.body.expiresAt), request.author)
      if (changed !== undefined) cache.forget(changed)
      return reply.code(200).send()
    }
  )

  app.delete(
    '/api/admin/api-tokens/:token',
    {
      config: { access: 'admin', role: 'admin', secretPath: SECRET_PATH },
      schema: {
        tags,
        operationId: 'deleteApiToken',
        summary: 'Delete an API token (needs a */* token)',
        description: `Records api-token-deleted. The secret stops working at once on this instance and within TOKEN_CACHE_MS (1 s by default) on the others. ${BY_SECRET}`,
        params: TokenParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      const deleted = await removeToken(db, request.params.token, request.author)
      if (deleted !== undefined) cache.forget(deleted)
      return reply.code(200).send()
    }
  )
}

const ProjectParams = Type.Object({ projectId: UrlFriendly('Project id') })

/**
 * A project's API tokens, as Unleash's project API tokens: client and frontend tokens of that
 * one project, which its Members (and Editors) manage without being Admins.
 */
export const projectTokenRoutes: FastifyPluginAsyncTypebox<{ db: Database; tokens: TokenCache }> = async (
  app,
  { db, tokens: cache }
) => {
  app.get(
    '/api/admin/projects/:projectId/api-tokens',
    {
      config: { access: 'token', role: 'editor' },
      schema: {
        tags,
        operationId: 'getProjectApiTokens',
        summary: "A project's API tokens (never their secrets)",
        description: 'The tokens whose projects name this one (a token for every project belongs to none), as the list shows them. An Admin or a */* token sees them all; an Editor, a Member of the project or a token of some projects the client and frontend tokens within its scope. 404 when the project does not exist.',
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: TokenList },
      },
    },
    async (request) => ({ tokens: await projectTokens(db, request.params.projectId, readerOf(request)) })
  )

  app.post(
    '/api/admin/projects/:projectId/api-tokens',
    {
      config: { access: 'token', role: 'editor' },
      schema: {
        tags,
        operationId: 'createProjectApiToken',
        summary: 'Create an API token of one project',
        description: 'As Unleash: a client (or backend) or frontend token of this project, for one environment (default: default), with an optional expiresAt; 201 with the token and its secret, shown only in this response. The environment must exist (400) and be within the caller\'s scope (403); 404 when the project does not exist; 409 when the name is taken. Records api-token-created with the project.',
        params: ProjectParams,
        body: NewProjectToken,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 201: CreatedToken },
      },
    },
    async (request, reply) => {
      const { tokenName, type, environment = 'default', expiresAt } = request.body
      requireEnvironment(request.token, environment)
      const created = await createProjectToken(db, request.params.projectId, {
        name: tokenName,
        type: storedType(type),
        environments: [environment],
        expiresAt: expiryOf(expiresAt),
      }, request.author)
      return reply.code(201).send(created)
    }
  )

  app.delete(
    '/api/admin/projects/:projectId/api-tokens/:token',
    {
      config: { access: 'token', role: 'editor', secretPath: ['token'] },
      schema: {
        tags,
        operationId: 'deleteProjectApiToken',
        summary: 'Delete an API token of one project',
        description: 'As Unleash, `{token}` is the secret (a value without ":" that does not start with ffa_ is read as the token\'s name). A token of exactly this project is deleted (api-token-deleted with the project); one of other or more projects is 400; one the caller may not see (as the list) or none is 404. Log lines show this path with the value redacted.',
        params: Type.Composite([ProjectParams, TokenParams]),
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      const deleted = await removeProjectToken(db, request.params.projectId, request.params.token, readerOf(request), request.author)
      cache.forget(deleted)
      return reply.code(200).send()
    }
  )
}
