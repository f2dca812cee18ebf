import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { badData, permissionDenied } from '../errors.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply } from '../http/schemas.js'
import { preferencesOf } from './feedback.service.js'
import { createPat, pats, removePat } from './pats.service.js'
import { ROLE_IDS } from '../vocabulary/roles.js'
import { type Person, permissionsOf, ROLES, roleByName } from './roles.js'
import { changeOwnPassword, type PeopleContext, user, userInfo } from './users.service.js'
import { CreatedPat, Me, NewPat, OwnPassword, Pat, PatParams, Profile, Roles, RolesQuery } from './users.schemas.js'
import { Type } from '@sinclair/typebox'

const TAGS = ['Users']
const PAT_TAGS = ['Personal access tokens']

/** The signed-in person of a `person` route (the auth plugin admitted no one else). */
const me = (request: FastifyRequest): Person => request.person!

/** The signed-in person's own account: who they are, their password, their roles and their personal access tokens. */
export const meRoutes: FastifyPluginAsyncTypebox<{ people: PeopleContext }> = async (app, { people }) => {
  const { db } = people

  app.get(
    '/api/admin/user',
    {
      config: { access: 'person' },
      schema: {
        tags: TAGS,
        operationId: 'getMe',
        summary: 'Who is signed in, and what they may do',
        description: 'The user, and their permissions in Unleash\'s shape (ADMIN for an Admin; for others what they may change, by project and environment, * for all; none for a Viewer). Never cached. An API token is not a person: 403.',
        errors: errorStatuses(403),
        response: { 200: Me },
      },
    },
    async (request) => {
      const person = me(request)
      // rootRole is the one the person acts with: the highest of their own and their groups'.
      const [found, preferences] = await Promise.all([user(db, person.id), preferencesOf(db, person.id)])
      return { user: { ...userInfo(found), rootRole: ROLE_IDS[person.rootRole] }, permissions: permissionsOf(person), ...preferences }
    }
  )

  app.get(
    '/api/admin/user/profile',
    {
      config: { access: 'person' },
      schema: {
        tags: TAGS,
        operationId: 'getProfile',
        summary: 'Your root role and the projects in which you have a role',
        errors: errorStatuses(403),
        response: { 200: Profile },
      },
    },
    async (request) => {
      const person = me(request)
      const found = await user(db, person.id)
      return {
        rootRole: roleByName(person.rootRole),
        projects: Object.keys(person.projectRoles).sort(),
        groups: [],
        features: [],
        subscriptions: [],
        canChangePassword: found.hasPassword,
      }
    }
  )

  app.post(
    '/api/admin/user/change-password',
    {
      config: { access: 'person' },
      schema: {
        tags: TAGS,
        operationId: 'changeMyPassword',
        summary: 'Change your own password',
        description: 'Needs the current password (a wrong one is 401, and counts against the account\'s login limit: 429 past it). The new one must follow the password rules (400 naming the rule). Every other session of yours ends; this one stays.',
        body: OwnPassword,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await changeOwnPassword(people, me(request), request.body, request.sessionId, request.author)
      return reply.code(200).send()
    }
  )

  app.get(
    '/api/admin/user/roles',
    {
      config: { access: 'person' },
      schema: {
        tags: TAGS,
        operationId: 'getUserRoles',
        summary: 'Your roles in a project',
        description: 'The project roles you hold in projectId (required: 400 without it, as Unleash).',
        querystring: RolesQuery,
        errors: errorStatuses(400, 403),
        response: { 200: Roles },
      },
    },
    async (request) => {
      const { projectId } = request.query
      if (projectId === undefined) throw badData('projectId is required', [{ path: '/query/projectId', message: 'is required' }])
      const role = me(request).projectRoles[projectId]
      return { version: 1 as const, roles: ROLES.filter((r) => r.name === role) }
    }
  )

  app.get(
    '/api/admin/user/tokens',
    {
      config: { access: 'person' },
      schema: {
        tags: PAT_TAGS,
        operationId: 'getPats',
        summary: 'Your personal access tokens (never their secrets)',
        errors: errorStatuses(403),
        response: { 200: Type.Object({ pats: Type.Array(Pat) }) },
      },
    },
    async (request) => ({ pats: await pats(db, me(request)) })
  )

  app.post(
    '/api/admin/user/tokens',
    {
      config: { access: 'person' },
      schema: {
        tags: PAT_TAGS,
        operationId: 'createPat',
        summary: 'Create a personal access token',
        description: 'The secret (user:<hex>) is shown only in this response. Sent in Authorization (bare or Bearer), it acts with your roles as they are at each request, until expiresAt (any future instant), until it is deleted, or until you are. At most 10 per user. Needs a session: a personal access token cannot create another (403). Records pat-created.',
        body: NewPat,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: CreatedPat },
      },
    },
    async (request, reply) => {
      if (request.sessionId === undefined) throw permissionDenied('A personal access token cannot create another: sign in to create one')
      return reply.code(201).send(await createPat(db, me(request), request.body, request.author))
    }
  )

  app.delete(
    '/api/admin/user/tokens/:id',
    {
      config: { access: 'person' },
      schema: {
        tags: PAT_TAGS,
        operationId: 'deletePat',
        summary: 'Delete one of your personal access tokens',
        description: 'It stops working at once, on every instance. 404 when you have no token with this id. Records pat-deleted.',
        params: PatParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removePat(db, me(request), request.params.id, request.author)
      return reply.code(200).send()
    }
  )
}
