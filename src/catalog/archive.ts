import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database, Queryable } from '../db/types.js'
import { insertEvent } from '../events/events.store.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, FeatureParams, ProjectParams, UrlFriendly } from '../http/schemas.js'
import { explainMissing } from './missing.js'

/** Locks the feature's row; a 404 naming what is missing when it is not in the project. */
async function lockArchivable (db: Queryable, project: string, feature: string) {
  const row = await db
    .selectFrom('features')
    .select('archived_at')
    .where('project_id', '=', project)
    .where('name', '=', feature)
    .forUpdate()
    .executeTakeFirst()
  if (!row) throw await explainMissing(db, { project, feature })
  return row
}

export const archiveRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.delete(
    '/api/admin/projects/:projectId/features/:featureName',
    {
      config: { access: 'token' },
      schema: {
        tags: ['Features'],
        operationId: 'archiveFeature',
        summary: 'Archive a feature',
        description:
          'As Unleash: the feature enters the lifecycle stage archived, SDKs no longer receive it, and its variants and state can no longer be changed (409) until it is revived. Records feature-archived; archiving an archived feature changes nothing.',
        params: FeatureParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 202: EmptyReply },
      },
    },
    async (request, reply) => {
      const { projectId: project, featureName: feature } = request.params
      await db.transaction().execute(async (trx) => {
        const row = await lockArchivable(trx, project, feature)
        if (row.archived_at !== null) return
        await trx.updateTable('features').set({ archived_at: new Date() }).where('name', '=', feature).execute()
        await trx
          .insertInto('feature_lifecycles')
          .values({ feature_name: feature, stage: 'archived', status: null, status_value: null })
          .onConflict((oc) => oc.columns(['feature_name', 'stage']).doNothing())
          .execute()
        await insertEvent(trx, { type: 'feature-archived', createdBy: request.token.name, project, featureName: feature })
      })
      return reply.code(202).send()
    }
  )

  app.post(
    '/api/admin/projects/:projectId/revive',
    {
      config: { access: 'token' },
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
      const { projectId: project } = request.params
      await db.transaction().execute(async (trx) => {
        // One statement locks them all, in name order, so concurrent revives cannot deadlock.
        const rows = await trx
          .selectFrom('features')
          .select(['name', 'archived_at'])
          .where('project_id', '=', project)
          .where('name', 'in', request.body.features)
          .orderBy('name')
          .forUpdate()
          .execute()
        const missing = request.body.features.find((f) => !rows.some((r) => r.name === f))
        if (missing !== undefined) throw await explainMissing(trx, { project, feature: missing })
        for (const { name: feature, archived_at: archivedAt } of rows) {
          if (archivedAt === null) continue
          await trx.updateTable('features').set({ archived_at: null }).where('name', '=', feature).execute()
          await trx.deleteFrom('feature_lifecycles').where('feature_name', '=', feature).where('stage', '=', 'archived').execute()
          await insertEvent(trx, { type: 'feature-revived', createdBy: request.token.name, project, featureName: feature })
        }
      })
      return reply.code(200).send()
    }
  )
}
