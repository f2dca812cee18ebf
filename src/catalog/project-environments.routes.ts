import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, ProjectParams } from '../http/schemas.js'
import { newStrategySchema, type StrategyLimits } from '../strategies/strategies.schemas.js'
import { DefaultStrategy, EnableEnvironment, ProjectEnvironmentParams } from './projects.schemas.js'
import { enableEnvironment, removeEnvironment, setProjectDefaultStrategy } from './project-environments.service.js'

/** The environments of a project: enabling one, taking one out, and the project's default strategy in one. */
export const projectEnvironmentRoutes: FastifyPluginAsyncTypebox<{ db: Database; limits: StrategyLimits }> = async (app, { db, limits }) => {
  app.post(
    '/api/admin/projects/:projectId/environments',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags: ['Environments'],
        operationId: 'addEnvironmentToProject',
        summary: 'Enable an environment in a project (needs a */* token)',
        description:
          'Every feature of the project gets a feature-environment there (disabled, no variants); records project-environment-added. Enabling an environment already enabled changes nothing and records no event.',
        params: ProjectParams,
        body: EnableEnvironment,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await enableEnvironment(db, request.params.projectId, request.body.environment, request.author)
      return reply.code(200).send()
    }
  )

  app.delete(
    '/api/admin/projects/:projectId/environments/:environment',
    {
      config: { access: 'admin', role: 'admin', guard: 'none' },
      schema: {
        tags: ['Projects'],
        operationId: 'removeEnvironmentFromProject',
        summary: 'Take an environment out of a project (needs a */* token)',
        description:
          "As Unleash: the project's features lose their feature-environment there, with its strategies and variants (SDKs of that environment no longer get them), and the project's default strategy there goes; records project-environment-removed. The last environment may go. One that is not enabled in the project changes nothing (200, no event); a project or environment that does not exist is a 404 naming it.",
        params: ProjectEnvironmentParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeEnvironment(db, request.params.projectId, request.params.environment, request.author)
      return reply.code(200).send()
    }
  )

  app.post(
    '/api/admin/projects/:projectId/environments/:environment/default-strategy',
    {
      config: { access: 'admin', role: 'admin', guard: 'none', documentRoots: { strategy: '/body', variants: '/body/variants' } },
      schema: {
        tags: ['Projects'],
        operationId: 'addDefaultStrategyToProjectEnvironment',
        summary: "Set the project's default strategy in an environment (needs a */* token)",
        description:
          "What a feature of the project gets when it is switched on in the environment with no active strategy (instead of a flexibleRollout at 100 %). As Unleash: only a flexibleRollout (400 otherwise), answered as stored; a strategy's rules apply (parameters, constraints, variants, segments of this project or of none), and it cannot be disabled. Without a groupId each feature uses its own name. Records default-strategy-updated with data and preData; the same strategy again changes nothing. Read back in GET /api/admin/environments/project/{projectId} and the project overview.",
        params: ProjectEnvironmentParams,
        body: newStrategySchema(limits),
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: DefaultStrategy },
      },
    },
    async (request) => {
      const { projectId: project, environment } = request.params
      return setProjectDefaultStrategy(db, { project, environment }, request.body, limits, request.author)
    }
  )
}
