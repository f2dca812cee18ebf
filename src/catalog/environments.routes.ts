import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, ProjectParams } from '../http/schemas.js'
import { Environment, EnvironmentParams, ListedEnvironment, NewEnvironment, ProjectEnvironment, SortOrderBody } from './environments.schemas.js'
import { createEnvironment, environment, environments, projectEnvironments, setEnvironmentEnabled, setSortOrders } from './environments.service.js'

export const environmentRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (
  app,
  { db }
) => {
  app.get(
    '/api/admin/environments',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Environments'],
        operationId: 'getAllEnvironments',
        summary: 'List environments',
        description: 'As Unleash: in list order (sortOrder, then creation), each with how many projects it is enabled in, API tokens name it and features are on in it.',
        errors: errorStatuses(403),
        response: {
          200: Type.Object({ version: Type.Literal(1), environments: Type.Array(ListedEnvironment) }),
        },
      },
    },
    async () => ({ version: 1 as const, environments: await environments(db) })
  )

  app.post(
    '/api/admin/environments',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags: ['Environments'],
        operationId: 'createEnvironment',
        summary: 'Create an environment (needs a */* token)',
        description: 'Environments are global; enable one in a project to use it there. Without a sortOrder it is listed after the last one.',
        body: NewEnvironment,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: Environment },
      },
    },
    async (request, reply) => reply.code(201).send(await createEnvironment(db, request.body, request.author))
  )

  app.put(
    '/api/admin/environments/sort-order',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags: ['Environments'],
        operationId: 'updateSortOrder',
        summary: 'Set where environments are listed',
        description:
          'Body `{name: sortOrder, …}`; environments not named keep theirs. All or nothing: an environment that does not exist is a 404 naming it (Unleash ignores it). Each environment whose order changes records environment-updated (Unleash records nothing).',
        body: SortOrderBody,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await setSortOrders(db, request.body, request.author)
      return reply.code(200).send()
    }
  )

  app.get(
    '/api/admin/environments/:name',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Environments'],
        operationId: 'getEnvironment',
        summary: 'One environment',
        params: EnvironmentParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Environment },
      },
    },
    async (request) => environment(db, request.params.name)
  )

  app.get(
    '/api/admin/environments/project/:projectId',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Environments'],
        operationId: 'getProjectEnvironments',
        summary: 'Every environment as a project sees it',
        description:
          "As Unleash: every environment, `visible` when it is enabled in the project, with the project's tokens and features on there, and the project's default strategy there. A project that does not exist is a 404 (Unleash answers every environment).",
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Type.Object({ version: Type.Literal(1), environments: Type.Array(ProjectEnvironment) }) },
      },
    },
    async (request) => ({ version: 1 as const, environments: await projectEnvironments(db, request.params.projectId) })
  )

  for (const [state, enabled] of [['on', true], ['off', false]] as const) {
    app.post(
      `/api/admin/environments/:name/${state}`,
      {
        config: { access: 'admin', role: 'admin' },
        schema: {
          tags: ['Environments'],
          operationId: enabled ? 'toggleEnvironmentOn' : 'toggleEnvironmentOff',
          summary: enabled ? 'Enable an environment' : 'Disable (deprecate) an environment',
          description: `As Unleash: 204. Records environment-updated (Unleash records nothing); an environment already ${enabled ? 'enabled' : 'disabled'} changes nothing. ${enabled ? '' : 'A disabled environment is still served to SDKs and still writable: clients only stop offering it.'}`,
          params: EnvironmentParams,
          errors: errorStatuses(400, 403, 404, 413, 415),
          response: { 204: EmptyReply },
        },
      },
      async (request, reply) => {
        await setEnvironmentEnabled(db, request.params.name, enabled, request.author)
        return reply.code(204).send()
      }
    )
  }
}
