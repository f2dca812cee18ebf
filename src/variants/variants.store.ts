import type { Transaction } from 'kysely'
import { featureEnvironment, type FeatureEnvironmentRef } from '../catalog/feature-environment.js'
import { explainMissing } from '../catalog/missing.js'
import type { DB, Queryable } from '../db/types.js'
import { EVENT_COLUMNS, eventSelection, type NewEvent } from '../events/events.store.js'

export type { FeatureEnvironmentRef }

export interface StoredVariants {
  /** The variants as stored: JSON text in the form serializeVariants makes. */
  json: string
  revision: number
}

/** The variants and revision of the feature-environment. */
const selectFeatureEnvironment = (db: Queryable, ref: FeatureEnvironmentRef) =>
  featureEnvironment(db, ref).select(['fe.variants', 'fe.revision'])

async function found (db: Queryable, ref: FeatureEnvironmentRef, row: { variants: string; revision: number } | undefined) {
  if (!row) throw await explainMissing(db, ref)
  return { json: row.variants, revision: row.revision }
}

/** Reads the variants without locking; a 404 naming what is missing when there are none. */
export async function readVariants (db: Queryable, ref: FeatureEnvironmentRef): Promise<StoredVariants> {
  return found(db, ref, await selectFeatureEnvironment(db, ref).executeTakeFirst())
}

/** Reads the variants and locks their row until the transaction ends, so writers serialise. */
export async function lockVariants (trx: Transaction<DB>, ref: FeatureEnvironmentRef): Promise<StoredVariants> {
  return found(trx, ref, await selectFeatureEnvironment(trx, ref).forUpdate('fe').executeTakeFirst())
}

/**
 * Stores the variants, bumps the revision and records their event, in one statement. Call it
 * inside the transaction that locked the row (lockVariants), so that nobody wrote in between.
 */
export async function writeVariants (trx: Transaction<DB>, ref: FeatureEnvironmentRef, json: string, event: NewEvent) {
  await trx
    .with('updated', (q) =>
      q
        .updateTable('feature_environments')
        .set((eb) => ({ variants: json, revision: eb('revision', '+', 1) }))
        .where('feature_name', '=', ref.feature)
        .where('environment_name', '=', ref.environment)
        .returning('revision')
    )
    .insertInto('events')
    .columns(EVENT_COLUMNS)
    .expression((eb) => eb.selectFrom('updated').select(eventSelection(event)))
    .execute()
}
