import { explainMissing } from '../catalog/missing.js'
import type { Queryable } from '../db/types.js'
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

/**
 * Reads the variants of a feature-environment whose feature is in the project and whose
 * environment is enabled there; with `lock`, takes the row lock that serialises writers
 * until the transaction ends. One round trip when the row exists; a 404 naming what is
 * missing otherwise.
 */
export async function readFeatureEnvironment (
  db: Queryable,
  ref: FeatureEnvironmentRef,
  lock: boolean
): Promise<StoredVariants> {
  let query = db
    .selectFrom('feature_environments as fe')
    .innerJoin('features as f', 'f.name', 'fe.feature_name')
    .innerJoin('project_environments as pe', (join) =>
      join
        .onRef('pe.project_id', '=', 'f.project_id')
        .onRef('pe.environment_name', '=', 'fe.environment_name')
    )
    .select(['fe.variants', 'fe.revision'])
    .where('f.project_id', '=', ref.project)
    .where('fe.feature_name', '=', ref.feature)
    .where('fe.environment_name', '=', ref.environment)
  if (lock) query = query.forUpdate('fe')
  const row = await query.executeTakeFirst()
  if (!row) throw await explainMissing(db, ref)
  return {
    variants: (row.variants as Variant[]).map(normalizeVariant),
    revision: row.revision,
  }
}

/** Stores the variants and bumps the revision; returns the new revision. */
export async function writeVariants (
  db: Queryable,
  ref: FeatureEnvironmentRef,
  variants: Variant[]
): Promise<number> {
  const row = await db
    .updateTable('feature_environments')
    .set((eb) => ({
      variants: JSON.stringify(variants),
      revision: eb('revision', '+', 1),
    }))
    .where('feature_name', '=', ref.feature)
    .where('environment_name', '=', ref.environment)
    .returning('revision')
    .executeTakeFirstOrThrow()
  return row.revision
}
