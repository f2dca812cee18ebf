import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, FeatureParams } from '../http/schemas.js'
import { FeatureLifecycleCompleted, LifecycleStage } from './lifecycle.schemas.js'
import { completeFeature, featureLifecycle, stageCounts, uncompleteFeature } from './lifecycle.service.js'

export const lifecycleRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.post(
    '/api/admin/projects/:projectId/features/:featureName/lifecycle/complete',
    {
      config: { access: 'token', role: 'editor', guard: 'none' },
      schema: {
        tags: ['Lifecycle'],
        operationId: 'complete',
        summary: 'Mark a feature completed, as kept or discarded',
        description:
          'Completing with the values already stored changes nothing and records no event; other values replace them (event feature-completed with preData).',
        params: FeatureParams,
        body: FeatureLifecycleCompleted,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      const { projectId: project, featureName: feature } = request.params
      const { status, statusValue = null } = request.body
      await completeFeature(db, { project, feature }, { status, statusValue }, request.author)
      return reply.code(200).send()
    }
  )

  app.post(
    '/api/admin/projects/:projectId/features/:featureName/lifecycle/uncomplete',
    {
      config: { access: 'token', role: 'editor', guard: 'none' },
      schema: {
        tags: ['Lifecycle'],
        operationId: 'uncomplete',
        summary: 'Take a feature out of the completed stage',
        description:
          'Records feature-uncompleted with the previous values as preData. A feature that is not completed is left alone (200, no event).',
        params: FeatureParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      const { projectId: project, featureName: feature } = request.params
      await uncompleteFeature(db, { project, feature }, request.author)
      return reply.code(200).send()
    }
  )

  app.get(
    '/api/admin/projects/:projectId/features/:featureName/lifecycle',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Lifecycle'],
        operationId: 'getFeatureLifecycle',
        summary: 'The lifecycle stages a feature is in, oldest first',
        description: 'Stages: initial (created), pre-live (first evaluated by an SDK outside production), live (first evaluated in a production-type environment), completed, archived. A completed stage also lists when each environment the token covers last evaluated the feature. Stages only move forward: usage never moves a feature that is live, completed or archived; completed is left only by uncomplete, archived only by revive.',
        params: FeatureParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Type.Array(LifecycleStage) },
      },
    },
    async (request) =>
      featureLifecycle(db, { project: request.params.projectId, feature: request.params.featureName }, request.token)
  )

  app.get(
    '/api/admin/lifecycle/count',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Lifecycle'],
        operationId: 'getFeatureLifecycleStageCount',
        summary: 'How many features are in each lifecycle stage now',
        description: 'As Unleash: every feature of the projects the token covers (archived ones count as archived), by the stage it entered last.',
        errors: errorStatuses(403),
        response: {
          200: Type.Object({ initial: Type.Integer(), preLive: Type.Integer(), live: Type.Integer(), completed: Type.Integer(), archived: Type.Integer() }),
        },
      },
    },
    async (request) => stageCounts(db, request.token)
  )
}
