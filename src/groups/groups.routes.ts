import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, responseHeader } from '../http/schemas.js'
import { createGroup, group, groups, removeGroup, removeGroupProjectRoles, replaceGroup, setGroupProjectRoles } from './groups.service.js'
import { Group, GroupParams, GroupProjectRoles, Groups, NewGroup, ProjectGroupParams } from './groups.schemas.js'

const TAGS = ['Groups']
/** Groups name people (emails): an Admin, or an API token with access to everything. */
const ADMIN = { access: 'admin', role: 'admin' } as const

/** Groups of users (Unleash Enterprise's /api/admin/groups) and the roles groups hold in projects. */
export const groupRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/api/admin/groups',
    {
      config: ADMIN,
      schema: { tags: TAGS, operationId: 'getGroups', summary: 'List groups, with their members and projects', errors: errorStatuses(403), response: { 200: Groups } },
    },
    async () => groups(db)
  )

  app.post(
    '/api/admin/groups',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'createGroup',
        summary: 'Create a group',
        description: 'A unique name (409 when taken); optionally a description, SSO mappings (the identity provider\'s group names that put users in it at sign-in, with enableGroupSyncing), a root role every member holds (a user acts with the highest of their own and their groups\') and members (400 naming users that do not exist). Records group-created.',
        body: NewGroup,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: { ...Group, headers: { location: responseHeader('The new group', true) } } },
      },
    },
    async (request, reply) => {
      const created = await createGroup(db, request.body, request.author)
      return reply.code(201).header('location', `/api/admin/groups/${created.id}`).send(created)
    }
  )

  app.get(
    '/api/admin/groups/:groupId',
    {
      config: ADMIN,
      schema: { tags: TAGS, operationId: 'getGroup', summary: 'A group, with its members', params: GroupParams, errors: errorStatuses(400, 403, 404), response: { 200: Group } },
    },
    async (request) => group(db, request.params.groupId)
  )

  app.put(
    '/api/admin/groups/:groupId',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'updateGroup',
        summary: 'Replace a group',
        description: 'Name, description, SSO mappings, root role and exactly the members sent (absent members: none); roles it gives hold from its members\' next request. 404 for an unknown group, 409 for a name taken, 400 naming users that do not exist. Records group-updated when anything changed.',
        params: GroupParams,
        body: NewGroup,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 200: Group },
      },
    },
    async (request) => replaceGroup(db, request.params.groupId, request.body, request.author)
  )

  app.delete(
    '/api/admin/groups/:groupId',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'deleteGroup',
        summary: 'Delete a group',
        description: 'Its members lose the roles it gave them at their next request. 404 for an unknown group (Unleash answers 200). Records group-deleted.',
        params: GroupParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeGroup(db, request.params.groupId, request.author)
      return reply.code(200).send()
    }
  )

  app.put(
    '/api/admin/projects/:projectId/groups/:groupId/roles',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'setRolesForGroup',
        summary: "Set a group's role in a project",
        description: '{"roles": [5]} makes every member of the group a Member of the project; {"roles": []} takes the role away. Holds from the members\' next request. Records project-access-group-roles-updated when it changes anything.',
        params: ProjectGroupParams,
        body: GroupProjectRoles,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await setGroupProjectRoles(db, request.params.projectId, request.params.groupId, request.body.roles, request.author)
      return reply.code(200).send()
    }
  )

  app.delete(
    '/api/admin/projects/:projectId/groups/:groupId/roles',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        operationId: 'removeGroupAccess',
        summary: "Take away a group's role in a project",
        description: '404 when the group has none there. Records project-access-group-roles-deleted.',
        params: ProjectGroupParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeGroupProjectRoles(db, request.params.projectId, request.params.groupId, request.author)
      return reply.code(200).send()
    }
  )
}
