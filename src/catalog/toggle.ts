import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/types.js'
import { insertEvent } from '../events/events.store.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, FeatureEnvironmentParams } from '../http/schemas.js'
import { featureEnvironment, type FeatureEnvironmentRef } from './feature-environment.js'
import { explainMissing } from './missing.js'

/**
 * Switches a feature on or off in one environment, in one transaction: lock the row, write
 * the new state and its event. Switching to the state it is in changes nothing and records
 * no event. Returns whether anything changed.
 */
export async function setEnabled (db: Database, ref: FeatureEnvironmentRef, enabled: boolean, createdBy: string) {
  return db.transaction().execute(async (trx) => {
    const row = await featureEnvironment(trx, ref).select('fe.enabled').forUpdate('fe').executeTakeFirst()
    if (!row) throw await explainMissing(trx, ref)
    if (row.enabled === enabled) return false
    await trx
      .updateTable('feature_environments')
      .set({ enabled })
      .where('feature_name', '=', ref.feature)
      .where('environment_name', '=', ref.environment)
      .execute()
    await insertEvent(trx, {
      type: enabled ? 'feature-environment-enabled' : 'feature-environment-disabled',
      createdBy,
      project: ref.project,
      featureName: ref.feature,
      environment: ref.environment,
    })
    return true
  })
}

export const toggleRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  for (const [state, enabled] of [['on', true], ['off', false]] as const) {
    app.post(
      `/api/admin/projects/:projectId/features/:featureName/environments/:environment/${state}`,
      {
        config: { access: 'token' },
        schema: {
          tags: ['Features'],
          operationId: enabled ? 'toggleFeatureEnvironmentOn' : 'toggleFeatureEnvironmentOff',
          summary: `Switch a feature ${state} in an environment`,
          description: `Records feature-environment-${enabled ? 'enabled' : 'disabled'}; a feature already ${state} is left alone (200, no event). ${enabled ? 'SDKs then see it on for everyone: the client API serves it with a flexibleRollout strategy at 100 %, as Unleash does when a feature without strategies is switched on.' : ''}`,
          params: FeatureEnvironmentParams,
          errors: errorStatuses(400, 403, 404, 409, 413, 415),
          response: { 200: EmptyReply },
        },
      },
      async (request, reply) => {
        const { projectId: project, featureName: feature, environment } = request.params
        await setEnabled(db, { project, feature, environment }, enabled, request.token.name)
        return reply.code(200).send()
      }
    )
  }
}
