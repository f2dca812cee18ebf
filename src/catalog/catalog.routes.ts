import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { insertEvent, toJsonText } from '../events/events.store.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, FeatureParams, ProjectParams } from '../http/schemas.js'
import {
  EnableEnvironment,
  Environment,
  Feature,
  FeatureDetails,
  NewEnvironment,
  NewFeature,
  NewProject,
  Project,
} from './catalog.schemas.js'
import {
  enableEnvironment,
  getFeatureDetails,
  getProject,
  insertEnvironment,
  insertFeature,
  insertProject,
  listEnvironments,
  listFeatures,
  listProjects,
} from './catalog.store.js'

export const projectRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/api/admin/projects',
    {
      config: { access: 'token' },
      schema: {
        tags: ['Projects'],
        operationId: 'getProjects',
        summary: 'List the projects the token can see',
        errors: errorStatuses(403),
        response: { 200: Type.Object({ projects: Type.Array(Project) }) },
      },
    },
    async (request) => ({ projects: await listProjects(db, request.token) })
  )

  app.post(
    '/api/admin/projects',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['Projects'],
        operationId: 'createProject',
        summary: 'Create a project (needs a */* token)',
        body: NewProject,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: Project },
      },
    },
    async (request, reply) => {
      const project = await db.transaction().execute(async (trx) => {
        const created = await insertProject(trx, request.body)
        await insertEvent(trx, {
          type: 'project-created',
          createdBy: request.token.name,
          project: created.id,
          data: toJsonText(request.body),
        })
        return created
      })
      return reply.code(201).send(project)
    }
  )

  app.get(
    '/api/admin/projects/:projectId',
    {
      config: { access: 'token' },
      schema: {
        tags: ['Projects'],
        operationId: 'getProject',
        summary: 'Get a project',
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Project },
      },
    },
    async (request) => getProject(db, request.params.projectId)
  )

  app.post(
    '/api/admin/projects/:projectId/environments',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['Environments'],
        operationId: 'addEnvironmentToProject',
        summary: 'Enable an environment in a project (needs a */* token)',
        description:
          'Every feature of the project gets a feature-environment there (disabled, no variants). Enabling an environment already enabled changes nothing.',
        params: ProjectParams,
        body: EnableEnvironment,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await db.transaction().execute((trx) => enableEnvironment(trx, request.params.projectId, request.body.environment))
      return reply.code(200).send()
    }
  )
}

export const environmentRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (
  app,
  { db }
) => {
  app.get(
    '/api/admin/environments',
    {
      config: { access: 'token' },
      schema: {
        tags: ['Environments'],
        operationId: 'getAllEnvironments',
        summary: 'List environments',
        errors: errorStatuses(),
        response: {
          200: Type.Object({ environments: Type.Array(Environment) }),
        },
      },
    },
    async () => ({ environments: await listEnvironments(db) })
  )

  app.post(
    '/api/admin/environments',
    {
      config: { access: 'admin' },
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
    async (request, reply) => {
      const environment = await db.transaction().execute(async (trx) => {
        const created = await insertEnvironment(trx, request.body)
        await insertEvent(trx, {
          type: 'environment-created',
          createdBy: request.token.name,
          environment: created.name,
          data: toJsonText(request.body),
        })
        return created
      })
      return reply.code(201).send(environment)
    }
  )
}

export const featureRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.post(
    '/api/admin/projects/:projectId/features',
    {
      config: { access: 'token' },
      schema: {
        tags: ['Features'],
        operationId: 'createFeature',
        summary: 'Create a feature flag',
        description:
          'The feature gets a disabled feature-environment with no variants in every environment enabled in the project, and enters the lifecycle stage `initial`.',
        params: ProjectParams,
        body: NewFeature,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 201: Feature },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params
      const feature = await db.transaction().execute(async (trx) => {
        const created = await insertFeature(trx, projectId, request.body)
        await insertEvent(trx, {
          type: 'feature-created',
          createdBy: request.token.name,
          project: projectId,
          featureName: created.name,
          data: toJsonText({ name: created.name, description: created.description, type: created.type }),
        })
        return created
      })
      return reply.code(201).send(feature)
    }
  )

  app.get(
    '/api/admin/projects/:projectId/features',
    {
      config: { access: 'token' },
      schema: {
        tags: ['Features'],
        operationId: 'getFeatures',
        summary: 'List the features of a project (archived ones are left out)',
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: {
          200: Type.Object({ features: Type.Array(Feature) }),
        },
      },
    },
    async (request) => ({ features: await listFeatures(db, request.params.projectId) })
  )

  app.get(
    '/api/admin/projects/:projectId/features/:featureName',
    {
      config: { access: 'token' },
      schema: {
        tags: ['Features'],
        operationId: 'getFeature',
        summary: 'Get a feature with its environments and current lifecycle stage',
        description: "Only the environments the token's scope covers are listed.",
        params: FeatureParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: FeatureDetails },
      },
    },
    async (request) => getFeatureDetails(db, request.params.projectId, request.params.featureName, request.token)
  )
}
