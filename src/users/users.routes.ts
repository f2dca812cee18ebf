import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, responseHeader } from '../http/schemas.js'
import { checkPassword } from './passwords.js'
import { linkBase } from './reset-links.js'
import {
  adminCount,
  createUser,
  deleteInactiveUsers,
  inactiveUsers,
  type PeopleContext,
  projectAccess,
  removeProjectRoles,
  removeUser,
  searchUsers,
  setPassword,
  setProjectRoles,
  updateUser,
  user,
  userInfo,
  users,
  usersAndGroups,
} from './users.service.js'
import {
  AdminCount,
  AdminPassword,
  CreatedUser,
  Ids,
  InactiveUsers,
  NewUser,
  ProjectAccess,
  ProjectRoles,
  ProjectUserParams,
  SearchQuery,
  User,
  UserParams,
  Users,
  UsersAndGroups,
  UserUpdate,
} from './users.schemas.js'
import { Type } from '@sinclair/typebox'

const TAGS = ['Users']
/** Admin routes: an Admin, or an API token with access to everything. */
const ADMIN = { access: 'admin', role: 'admin' } as const

/** Users and their roles, for Admins (Unleash's /api/admin/user-admin), and the roles people hold in projects. */
export const userAdminRoutes: FastifyPluginAsyncTypebox<{ people: PeopleContext; inactiveDays: number }> = async (app, { people, inactiveDays }) => {
  const { db } = people

  // Fastify prefers these static paths to /user-admin/:id, whatever the order they are registered in.
  app.get(
    '/api/admin/user-admin/inactive',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'getInactiveUsers',
        summary: 'Users not seen for USER_INACTIVITY_THRESHOLD_IN_DAYS days',
        description: `Users whose last login, creation and personal access tokens' last use are all older than USER_INACTIVITY_THRESHOLD_IN_DAYS (${inactiveDays} here), or never happened; one entry per user, with the last use of their tokens (patSeenAt).`,
        errors: errorStatuses(403),
        response: { 200: InactiveUsers },
      },
    },
    async () => inactiveUsers(db, inactiveDays)
  )

  app.post(
    '/api/admin/user-admin/inactive/delete',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'deleteInactiveUsers',
        summary: 'Delete inactive users',
        description: 'Deletes the users named, all or none: the caller is skipped (as Unleash), an unknown id is 404, a user who is not inactive (seen meanwhile) 400, and the last Admin stays (400). Their sessions and personal access tokens end with them. Records user-deleted for each.',
        body: Ids,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await deleteInactiveUsers(db, request.body.ids, inactiveDays, request.person?.id, request.author)
      return reply.code(200).send()
    }
  )

  app.get(
    '/api/admin/user-admin/access',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'getBaseUsersAndGroups',
        summary: 'Every user and group, briefly (for pickers)',
        description: 'Users with their name, username and email; groups with their member count and root role. Admins only (unlike Unleash, which lets anyone signed in read every email).',
        errors: errorStatuses(403),
        response: { 200: UsersAndGroups },
      },
    },
    async () => usersAndGroups(db)
  )

  app.get(
    '/api/admin/user-admin/admin-count',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'getAdminCount',
        summary: 'How many users hold the Admin root role, with and without a password',
        errors: errorStatuses(403),
        response: { 200: AdminCount },
      },
    },
    async () => adminCount(db)
  )

  app.delete(
    '/api/admin/user-admin/scim-users',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'deleteScimUsers',
        summary: 'Delete the users a SCIM provider made: none here',
        description: 'This server has no SCIM: no user was made by one, so this deletes nothing and records nothing (200, as Unleash answers with none).',
        errors: errorStatuses(403, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (_request, reply) => reply.code(200).send()
  )

  app.get(
    '/api/admin/user-admin',
    {
      config: ADMIN,
      schema: { tags: TAGS, operationId: 'getUsers', summary: 'List users, with the root roles', errors: errorStatuses(403), response: { 200: Users } },
    },
    async () => users(db)
  )

  app.get(
    '/api/admin/user-admin/search',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'searchUsers',
        summary: 'Search users by username, email or name',
        description: 'At most 100 users whose username, email or name holds q (at least 2 characters; fewer find none, as Unleash). Admins only (unlike Unleash, which lets anyone signed in read every email).',
        querystring: SearchQuery,
        errors: errorStatuses(400, 403),
        response: { 200: Type.Array(User) },
      },
    },
    async (request) => searchUsers(db, request.query.q)
  )

  app.post(
    '/api/admin/user-admin/validate-password',
    {
      config: { access: 'person', maintenance: 'open' },
      schema: {
        tags: TAGS,
        operationId: 'validateUserPassword',
        summary: 'Check a password against the password rules',
        description: '200 when the password may be used; 400 naming the rule it breaks (at least 10 characters, not a common password). Stores nothing. For people (a session or a personal access token); an API token gets 403.',
        body: AdminPassword,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      checkPassword(request.body.password)
      return reply.code(200).send()
    }
  )

  app.post(
    '/api/admin/user-admin',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'createUser',
        summary: 'Create a user',
        description: 'With a username or an email (or both), a root role, and optionally a password (the password rules apply: 400 naming the rule). Without a password (and with password login on) the answer holds inviteLink, UNLEASH_URL/new-user?token=…: a link for an Admin to hand on, where the new user sets a password (24 hours, used once; only a hash of it is kept). No mail is sent (emailSent: false). Records user-created.',
        body: NewUser,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: { ...CreatedUser, headers: { location: responseHeader('The new user', true) } } },
      },
    },
    async (request, reply) => {
      const { user: created, inviteLink } = await createUser(people, request.body, request.author, linkBase(people.publicUrl, request))
      reply.header('location', `/api/admin/user-admin/${created.id}`)
      return reply.code(201).send({ ...userInfo(created), rootRole: request.body.rootRole, ...(inviteLink !== undefined && { inviteLink }), emailSent: false })
    }
  )

  app.get(
    '/api/admin/user-admin/:id',
    {
      config: ADMIN,
      schema: { tags: TAGS, operationId: 'getUser', summary: 'A user', params: UserParams, errors: errorStatuses(400, 403, 404), response: { 200: User } },
    },
    async (request) => userInfo(await user(db, request.params.id))
  )

  app.put(
    '/api/admin/user-admin/:id',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'updateUser',
        summary: "Change a user's email, name or root role",
        description: 'The last Admin cannot be demoted (400). A new role holds from the user\'s next request. Records user-updated.',
        params: UserParams,
        body: UserUpdate,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 200: CreatedUser },
      },
    },
    async (request) => {
      const updated = await updateUser(db, request.params.id, request.body, request.author)
      return { ...userInfo(updated), ...(request.body.rootRole !== undefined && { rootRole: request.body.rootRole }) }
    }
  )

  app.delete(
    '/api/admin/user-admin/:id',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'deleteUser',
        summary: 'Delete a user',
        description: 'Their sessions and personal access tokens stop working at once. The last Admin cannot be deleted (400). Records user-deleted.',
        params: UserParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeUser(db, request.params.id, request.author)
      return reply.code(200).send()
    }
  )

  app.post(
    '/api/admin/user-admin/:id/change-password',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'changeUserPassword',
        summary: "Set a user's password",
        description: 'The password rules apply (400 naming the rule). Every session of the user ends (but the one making the request, when it is theirs). Records user-updated.',
        params: UserParams,
        body: AdminPassword,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      const own = request.person?.id === request.params.id ? request.sessionId : undefined
      await setPassword(people, request.params.id, request.body.password, request.author, own)
      return reply.code(200).send()
    }
  )

  app.get(
    '/api/admin/projects/:projectId/access',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'getProjectAccess',
        summary: 'The users with a role in a project',
        description: 'Beyond Unleash OSS (in the shape of Unleash Enterprise): a user may hold a role in one project on top of their root role. Member (5) writes features, strategies, variants, dependencies and lifecycle in that project.',
        params: Type.Object({ projectId: ProjectUserParams.properties.projectId }),
        errors: errorStatuses(400, 403, 404),
        response: { 200: ProjectAccess },
      },
    },
    async (request) => projectAccess(db, request.params.projectId)
  )

  app.put(
    '/api/admin/projects/:projectId/users/:userId/roles',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'setUserRolesForProject',
        summary: "Set a user's role in a project",
        description: '{"roles": [5]} makes the user a Member of the project; {"roles": []} takes the role away. Holds from the user\'s next request. Records project-access-user-roles-updated when it changes anything.',
        params: ProjectUserParams,
        body: ProjectRoles,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await setProjectRoles(db, request.params.projectId, request.params.userId, request.body.roles, request.author)
      return reply.code(200).send()
    }
  )

  app.delete(
    '/api/admin/projects/:projectId/users/:userId/roles',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'removeUserRolesFromProject',
        summary: "Take away a user's role in a project",
        description: '404 when the user has none there. Records project-access-user-roles-deleted.',
        params: ProjectUserParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeProjectRoles(db, request.params.projectId, request.params.userId, request.author)
      return reply.code(200).send()
    }
  )
}
