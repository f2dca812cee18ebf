import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, ProjectParams, UrlFriendly } from '../http/schemas.js'
import { archiveFeatures, deleteArchivedFeature, deleteFeatures, reviveArchivedFeature, validateArchive } from './archive.service.js'
import { BulkFeatures } from './catalog.schemas.js'

const NameParams = Type.Object({ featureName: UrlFriendly('Feature name') })

const ALL_OR_NONE = 'All or none, in one transaction; 404 naming the first feature, in the order sent, that is not in the project (Unleash skips names it does not find). An empty list changes nothing.'

const OTHER_PROJECT = "A feature of a project outside the token's scope: 403."

/** The archive: archiving several features, what it would do, reviving one, deleting for good. */
export const archiveRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.post(
    '/api/admin/projects/:projectId/archive',
    {
      config: { access: 'token', role: 'editor' },
      schema: {
        tags: ['Features'],
        operationId: 'archiveFeatures',
        summary: 'Archive several features',
        description: `As Unleash: 202 with no body. Each as DELETE …/features/{featureName} archives one (feature-archived; one archived already is left alone; 409 when a feature that is not archived, and not in the list, depends on it). ${ALL_OR_NONE}`,
        params: ProjectParams,
        body: BulkFeatures,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 202: EmptyReply },
      },
    },
    async (request, reply) => {
      await archiveFeatures(db, request.params.projectId, request.body.features, request.author)
      return reply.code(202).send()
    }
  )

  app.post(
    '/api/admin/projects/:projectId/archive/validate',
    {
      config: { access: 'token', role: 'editor' },
      schema: {
        tags: ['Features'],
        operationId: 'validateArchiveFeatures',
        summary: 'What archiving these features would meet',
        description: 'As Unleash: parentsWithChildFeatures lists those of them that features not in the list depend on (archiving them is refused), hasDeletedDependencies whether any of them depends on another or has features depending on it. Reads only.',
        params: ProjectParams,
        body: BulkFeatures,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: {
          200: Type.Object({
            parentsWithChildFeatures: Type.Array(Type.String()),
            hasDeletedDependencies: Type.Boolean(),
          }),
        },
      },
    },
    async (request) => validateArchive(db, request.params.projectId, request.body.features)
  )

  app.post(
    '/api/admin/projects/:projectId/delete',
    {
      config: { access: 'token', role: 'editor' },
      schema: {
        tags: ['Features'],
        operationId: 'deleteFeatures',
        summary: 'Delete archived features for good',
        description: `As Unleash: 200 with no body; only archived features are deleted (the others are left alone), each recording feature-deleted with the feature and its tags as preData. Their strategies, variants, tags, links, lifecycle and favourites go with them; their events stay. 409 when a feature not deleted with them depends on one of them. ${ALL_OR_NONE}`,
        params: ProjectParams,
        body: BulkFeatures,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await deleteFeatures(db, request.params.projectId, request.body.features, request.author)
      return reply.code(200).send()
    }
  )

  app.delete(
    '/api/admin/archive/:featureName',
    {
      config: { access: 'token', role: 'editor', guard: 'feature' },
      schema: {
        tags: ['Archive'],
        operationId: 'deleteFeature',
        summary: 'Delete an archived feature for good (what Terraform calls after archiving)',
        description: `As Unleash: 200 with no body, also for a feature that does not exist or is not archived (then nothing changes). Deleted as POST /api/admin/projects/{projectId}/delete deletes (feature-deleted; 409 when a feature not deleted depends on it). ${OTHER_PROJECT}`,
        params: NameParams,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await deleteArchivedFeature(db, request.params.featureName, request.token, request.author)
      return reply.code(200).send()
    }
  )

  app.post(
    '/api/admin/archive/revive/:featureName',
    {
      config: { access: 'token', role: 'editor', guard: 'feature' },
      schema: {
        tags: ['Archive'],
        operationId: 'reviveFeature',
        summary: 'Revive an archived feature',
        description: `As POST /api/admin/projects/{projectId}/revive revives one: 200 with no body; feature-revived, and the feature is off in every environment (as Unleash). A feature that is not archived is left alone, with no event (Unleash records one). 404 for a feature that does not exist. ${OTHER_PROJECT}`,
        params: NameParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await reviveArchivedFeature(db, request.params.featureName, request.token, request.author)
      return reply.code(200).send()
    }
  )
}
