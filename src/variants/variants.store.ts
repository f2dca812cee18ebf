import type { Transaction } from 'kysely'
import type { FeatureEnvironmentRef } from '../features/missing.js'
import { type Param, prepare, queryBuilder } from '../db/prepared.js'
import type { DB } from '../db/types.js'

const update = prepare((param: Param<FeatureEnvironmentRef & { json: string }>) =>
  queryBuilder
    .updateTable('feature_environments')
    .set((eb) => ({ variants: param('json'), revision: eb('revision', '+', 1) }))
    .where('feature_name', '=', param('feature'))
    .where('environment_name', '=', param('environment'))
)

/**
 * Stores the variants and bumps their revision. Call inside the transaction that locked the
 * feature-environment (lockFeatureEnvironment), so that nobody wrote in between. Prepared: it
 * is the hot path's write.
 */
export async function updateVariants (trx: Transaction<DB>, ref: FeatureEnvironmentRef, json: string) {
  await update(trx, { ...ref, json })
}
