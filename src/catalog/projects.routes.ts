import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, ProjectParams } from '../http/schemas.js'
import { EnableEnvironment, NewProject, Project } from './projects.schemas.js'
import { createProject, enableEnvironment, project, projects } from './projects.service.js'

export const projectRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/api/admin/projects',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Projects'],
        operationId: 'getProjects',
        summary: 'List the projects the token can see',
        errors: errorStatuses(403),
        response: { 200: Type.Object({ projects: Type.Array(Project) }) },
      },
    },
    async (request) => ({ projects: await projects(db, request.token) })
  )

  app.post(
    '/api/admin/projects',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags: ['Projects'],
        operationId: 'createProject',
        summary: 'Create a project (needs a */* token)',
        body: NewProject,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: Project },
      },
    },
    async (request, reply) => reply.code(201).send(await createProject(db, request.body, request.author))
  )

  app.get(
    '/api/admin/projects/:projectId',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Projects'],
        operationId: 'getProject',
        summary: 'Get a project',
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Project },
      },
    },
    async (request) => project(db, request.params.projectId)
  )

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
}
