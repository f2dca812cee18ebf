import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { Environment, NewEnvironment } from './environments.schemas.js'
import { createEnvironment, environments } from './environments.service.js'

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
        errors: errorStatuses(403),
        response: {
          200: Type.Object({ environments: Type.Array(Environment) }),
        },
      },
    },
    async () => ({ environments: await environments(db) })
  )

  app.post(
    '/api/admin/environments',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags: ['Environments'],
        operationId: 'createEnvironment',
        summary: 'Create an environment (needs a */* token)',
        description: 'Environments are global; enable one in a project to use it there.',
        body: NewEnvironment,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: Environment },
      },
    },
    async (request, reply) => reply.code(201).send(await createEnvironment(db, request.body, request.author))
  )
}
