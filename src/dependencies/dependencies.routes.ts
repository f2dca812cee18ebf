import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, FeatureParams, UrlFriendly } from '../http/schemas.js'
import { NewDependency } from './dependencies.schemas.js'
import { addDependency, removeDependencies, removeDependency } from './dependencies.service.js'

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
}
