import type { Transaction } from 'kysely'
import type { FeatureEnvironmentRef } from '../catalog/missing.js'
import type { DB } from '../db/types.js'

/**
 * Stores the variants and bumps their revision. Call inside the transaction that locked the
 * feature-environment (lockFeatureEnvironment), so that nobody wrote in between.
 */
export async function updateVariants (trx: Transaction<DB>, ref: FeatureEnvironmentRef, json: string) {
  await trx
    .updateTable('feature_environments')
    .set((eb) => ({ variants: json, revision: eb('revision', '+', 1) }))
    .where('feature_name', '=', ref.feature)
    .where('environment_name', '=', ref.environment)
    .execute()
}
