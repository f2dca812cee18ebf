import { CompiledQuery } from 'kysely'
import { explainMissing } from '../catalog/missing.js'
import { literal, type ScriptedTransaction } from '../db/scripted-transaction.js'
import type { Queryable } from '../db/types.js'
import { insertEventStatement, type NewEvent } from '../events/events.store.js'
import { normalizeVariant, type Variant } from './variants.js'

export interface FeatureEnvironmentRef {
  project: string
  feature: string
  environment: string
}

export interface StoredVariants {
  variants: Variant[]
  revision: number
}

type Row = { variants: Variant[]; revision: number }

/** The feature-environment of a feature in the project, in an environment enabled there. */
const selectStatement = (ref: FeatureEnvironmentRef) => `SELECT fe.variants, fe.revision
  FROM feature_environments fe
  JOIN features f ON f.name = fe.feature_name
  JOIN project_environments pe
    ON pe.project_id = f.project_id AND pe.environment_name = fe.environment_name
  WHERE f.project_id = ${literal(ref.project)}
    AND fe.feature_name = ${literal(ref.feature)}
    AND fe.environment_name = ${literal(ref.environment)}`

async function toStored (db: Queryable, ref: FeatureEnvironmentRef, row: Row | undefined) {
  if (!row) throw await explainMissing(db, ref)
  return { variants: row.variants.map(normalizeVariant), revision: row.revision }
}

/** Reads the variants without locking; a 404 naming what is missing when there are none. */
export async function readFeatureEnvironment (
  db: Queryable,
  ref: FeatureEnvironmentRef
): Promise<StoredVariants> {
  const { rows } = await db.executeQuery<Row>(CompiledQuery.raw(selectStatement(ref)))
  return toStored(db, ref, rows[0])
}

/**
 * Opens the transaction and reads the variants under a row lock that serialises writers
 * until the transaction ends: one round trip. A 404 naming what is missing otherwise.
 */
export async function lockFeatureEnvironment (
  tx: ScriptedTransaction,
  ref: FeatureEnvironmentRef
): Promise<StoredVariants> {
  const rows = await tx.begin<Row>(`${selectStatement(ref)} FOR UPDATE OF fe`)
  return toStored(tx.db, ref, rows[0])
}

/**
 * Stores the variants, bumps the revision, records the event and commits: one round trip.
 * The lock taken by lockFeatureEnvironment makes the new revision the locked one plus one.
 */
export async function writeVariants (
  tx: ScriptedTransaction,
  ref: FeatureEnvironmentRef,
  variants: Variant[],
  event: NewEvent
): Promise<void> {
  await tx.commit(`UPDATE feature_environments
      SET variants = ${literal(JSON.stringify(variants))}::jsonb, revision = revision + 1
      WHERE feature_name = ${literal(ref.feature)} AND environment_name = ${literal(ref.environment)};
    ${insertEventStatement(event)}`)
}
