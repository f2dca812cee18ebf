import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, FeatureEnvironmentParams, FeatureParams, ProjectParams, UrlFriendly } from '../http/schemas.js'
import {
  EnableEnvironment,
  Environment,
  Feature,
  FeatureDetails,
  FeatureListItem,
  FeatureUpdate,
  NewEnvironment,
  NewFeature,
  NewProject,
  Project,
} from './catalog.schemas.js'
import * as catalog from './catalog.service.js'

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
    async (request) => ({ projects: await catalog.projects(db, request.token) })
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
    async (request, reply) => reply.code(201).send(await catalog.createProject(db, request.body, request.author))
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
    async (request) => catalog.project(db, request.params.projectId)
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
      await catalog.enableEnvironment(db, request.params.projectId, request.body.environment, request.author)
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
    async () => ({ environments: await catalog.environments(db) })
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
    async (request, reply) => reply.code(201).send(await catalog.createEnvironment(db, request.body, request.author))
  )
}

export const featureRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.post(
    '/api/admin/projects/:projectId/features',
    {
      config: { access: 'token', role: 'editor', guard: 'none' },
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
    async (request, reply) =>
      reply.code(201).send(await catalog.createFeature(db, request.params.projectId, request.body, request.author))
  )

  app.get(
    '/api/admin/projects/:projectId/features',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Features'],
        operationId: 'getFeatures',
        summary: 'List the features of a project (archived ones are left out)',
        description: 'Each feature comes with whether it is on in each environment the token may see, and its current lifecycle stage, so that a client can filter a long list without reading every feature.',
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: {
          200: Type.Object({ features: Type.Array(FeatureListItem) }),
        },
      },
    },
    async (request) => ({ features: await catalog.features(db, request.params.projectId, request.token) })
  )

  app.get(
    '/api/admin/projects/:projectId/features/:featureName',
    {
      config: { access: 'token', role: 'viewer' },
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
    async (request) =>
      catalog.featureDetails(db, { project: request.params.projectId, feature: request.params.featureName }, request.token)
  )

  app.put(
    '/api/admin/projects/:projectId/features/:featureName',
    {
      config: { access: 'token', role: 'editor', guard: 'none' },
      schema: {
        tags: ['Features'],
        operationId: 'updateFeature',
        summary: "Change a feature's description, type or impressionData",
        description:
          'As Unleash: 200 with the feature; members left out keep their value; a name other than the one in the path is a 400 (a feature cannot be renamed). Records feature-metadata-updated with data and preData; the same values again change nothing.',
        params: FeatureParams,
        body: FeatureUpdate,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: Feature },
      },
    },
    async (request) =>
      catalog.updateFeatureMetadata(db, { project: request.params.projectId, feature: request.params.featureName }, request.body, request.author)
  )

  for (const [state, enabled] of [['on', true], ['off', false]] as const) {
    app.post(
      `/api/admin/projects/:projectId/features/:featureName/environments/:environment/${state}`,
      {
        config: { access: 'token', role: 'editor', guard: 'environment' },
        schema: {
          tags: ['Features'],
          operationId: enabled ? 'toggleFeatureEnvironmentOn' : 'toggleFeatureEnvironmentOff',
          summary: `Switch a feature ${state} in an environment`,
          description: `Records feature-environment-${enabled ? 'enabled' : 'disabled'}; a feature already ${state} is left alone (200, no event). ${enabled ? 'A feature switched on with no active strategy first gets a flexibleRollout at 100 % (feature-strategy-add), as in Unleash: then it is on for everyone.' : ''}`,
          params: FeatureEnvironmentParams,
          errors: errorStatuses(400, 403, 404, 409, 413, 415),
          response: { 200: EmptyReply },
        },
      },
      async (request, reply) => {
        const { projectId: project, featureName: feature, environment } = request.params
        await catalog.setFeatureEnabled(db, { project, feature, environment }, enabled, request.author)
        return reply.code(200).send()
      }
    )
  }

  app.delete(
    '/api/admin/projects/:projectId/features/:featureName',
    {
      config: { access: 'token', role: 'editor', guard: 'project' },
      schema: {
        tags: ['Features'],
        operationId: 'archiveFeature',
        summary: 'Archive a feature',
        description:
          'As Unleash: the feature enters the lifecycle stage archived, SDKs no longer receive it, and its variants and state can no longer be changed (409) until it is revived. Records feature-archived; archiving an archived feature changes nothing. A feature that features not archived depend on cannot be archived: 409 naming them.',
        params: FeatureParams,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 202: EmptyReply },
      },
    },
    async (request, reply) => {
      const { projectId: project, featureName: feature } = request.params
      await catalog.archiveFeature(db, { project, feature }, request.author)
      return reply.code(202).send()
    }
  )

  app.post(
    '/api/admin/projects/:projectId/revive',
    {
      config: { access: 'token', role: 'editor', guard: 'project' },
      schema: {
        tags: ['Features'],
        operationId: 'reviveFeatures',
        summary: 'Revive archived features',
        description:
          'All listed features in one transaction: each archived one leaves the archived stage and records feature-revived; one that is not archived is left alone. 404 names the first feature, in the order sent, that does not exist in the project; then nothing changes.',
        params: ProjectParams,
        body: Type.Object(
          { features: Type.Array(UrlFriendly('Feature name'), { minItems: 1, maxItems: 100, uniqueItems: true }) },
          { additionalProperties: false }
        ),
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await catalog.reviveFeatures(db, request.params.projectId, request.body.features, request.author)
      return reply.code(200).send()
    }
  )
}
