import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, FeatureParams, ProjectParams, UrlFriendly } from '../http/schemas.js'
import { NewDependency } from './dependencies.schemas.js'
import { addDependency, dependenciesExist, parentOptions, parentVariantOptions, removeDependencies, removeDependency } from './dependencies.service.js'

const BASE = '/api/admin/projects/:projectId/features/:featureName/dependencies'

const ref = (params: { projectId: string; featureName: string }) => ({ project: params.projectId, feature: params.featureName })

export const dependencyRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.post(
    BASE,
    {
      config: { access: 'token', role: 'editor', guard: 'project' },
      schema: {
        tags: ['Dependencies'],
        operationId: 'addFeatureDependency',
        summary: 'Make a feature depend on a parent feature',
        description:
          'As Unleash: 200 with no body; records feature-dependency-added. The parent must exist in the same project and not be archived. No cycles and no chains: a parent cannot have parents, and a feature others depend on cannot depend on another (400 naming the rule; Unleash answers 403). Unlike Unleash 8.2, which silently replaces the first, several parents are allowed: SDKs evaluate all of them. Posting a dependency on the same parent again updates it.',
        params: FeatureParams,
        body: NewDependency,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await addDependency(db, ref(request.params), request.body, request.author)
      return reply.code(200).send()
    }
  )

  app.delete(
    `${BASE}/:parent`,
    {
      config: { access: 'token', role: 'editor', guard: 'project' },
      schema: {
        tags: ['Dependencies'],
        operationId: 'deleteFeatureDependency',
        summary: 'Remove the dependency on one parent',
        description: 'As Unleash: 200 with no body; records feature-dependency-removed (none there: nothing changes).',
        params: Type.Composite([FeatureParams, Type.Object({ parent: UrlFriendly('The parent feature') })]),
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeDependency(db, ref(request.params), request.params.parent, request.author)
      return reply.code(200).send()
    }
  )

  app.delete(
    BASE,
    {
      config: { access: 'token', role: 'editor', guard: 'project' },
      schema: {
        tags: ['Dependencies'],
        operationId: 'deleteFeatureDependencies',
        summary: 'Remove every dependency of a feature',
        description: 'As Unleash: 200 with no body; records feature-dependencies-removed (none there: nothing changes).',
        params: FeatureParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeDependencies(db, ref(request.params), request.author)
      return reply.code(200).send()
    }
  )

  app.get(
    '/api/admin/projects/:projectId/features/:featureName/parents',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Dependencies'],
        operationId: 'listParentOptions',
        summary: 'The features this one may depend on',
        description: 'As Unleash: a JSON array of names, sorted: the features of its project, not itself, not archived, that depend on no other feature. [] for a feature that does not exist; 404 for a project that does not exist.',
        params: FeatureParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Type.Array(Type.String()) },
      },
    },
    async (request) => parentOptions(db, ref(request.params))
  )

  app.get(
    '/api/admin/projects/:projectId/features/:featureName/parent-variants',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Dependencies'],
        operationId: 'listParentVariantOptions',
        summary: 'The variants a dependency on this feature may ask for',
        description: "As Unleash: a JSON array of the distinct variant names of the feature's strategies and environments, sorted. [] for a feature that does not exist; 404 for a project that does not exist.",
        params: FeatureParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Type.Array(Type.String()) },
      },
    },
    async (request) => parentVariantOptions(db, ref(request.params))
  )

  app.get(
    '/api/admin/projects/:projectId/dependencies',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Dependencies'],
        operationId: 'checkDependenciesExist',
        summary: 'Whether any flag of the project depends on another',
        description: "A bare JSON boolean, as Unleash answers. Unleash 8.2 answers for the whole instance; here for the project's flags (archived ones too), so that a token of one project learns nothing of the others.",
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Type.Boolean() },
      },
    },
    async (request) => dependenciesExist(db, request.params.projectId)
  )
}
