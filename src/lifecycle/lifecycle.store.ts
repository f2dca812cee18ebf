import { explainMissing } from '../catalog/missing.js'
import type { Queryable } from '../db/types.js'

export type CompletionStatus = 'kept' | 'discarded'

export interface Completion {
  status: CompletionStatus
  statusValue: string | null
}

export interface FeatureRef {
  project: string
  feature: string
}

/**
 * Locks the feature row until the transaction ends; 404 naming what is missing. Read the
 * completion in a later statement: one that waited for this lock would see a stale join.
 */
export async function lockFeature (db: Queryable, ref: FeatureRef): Promise<void> {
  const row = await db
    .selectFrom('features')
    .select('name')
    .where('project_id', '=', ref.project)
    .where('name', '=', ref.feature)
    .forUpdate()
    .executeTakeFirst()
  if (!row) throw await explainMissing(db, ref)
}

export async function readCompletion (
  db: Queryable,
  feature: string
): Promise<Completion | undefined> {
  const row = await db
    .selectFrom('feature_lifecycles')
    .select(['status', 'status_value'])
    .where('feature_name', '=', feature)
    .where('stage', '=', 'completed')
    .executeTakeFirst()
  return row && { status: row.status as CompletionStatus, statusValue: row.status_value }
}

/** Enters `completed`, or updates its values when already there (keeping when it was entered). */
export async function writeCompletion (db: Queryable, feature: string, completion: Completion) {
  await db
    .insertInto('feature_lifecycles')
    .values({
      feature_name: feature,
      stage: 'completed',
      status: completion.status,
      status_value: completion.statusValue,
    })
    .onConflict((oc) =>
      oc.columns(['feature_name', 'stage']).doUpdateSet({
        status: completion.status,
        status_value: completion.statusValue,
      })
    )
    .execute()
}

export async function deleteCompletion (db: Queryable, feature: string): Promise<boolean> {
  const result = await db
    .deleteFrom('feature_lifecycles')
    .where('feature_name', '=', feature)
    .where('stage', '=', 'completed')
    .executeTakeFirst()
  return result.numDeletedRows > 0n
}

export async function listStages (db: Queryable, ref: FeatureRef) {
  const rows = await db
    .selectFrom('feature_lifecycles as l')
    .innerJoin('features as f', 'f.name', 'l.feature_name')
    .select(['l.stage', 'l.entered_stage_at', 'l.status', 'l.status_value'])
    .where('f.project_id', '=', ref.project)
    .where('f.name', '=', ref.feature)
    .orderBy('l.entered_stage_at')
    .execute()
  // Every feature has its `initial` stage, so no rows means no such feature in the project.
  if (rows.length === 0) throw await explainMissing(db, ref)
  return rows.map((r) => ({
    stage: r.stage as 'initial' | 'completed',
    enteredStageAt: r.entered_stage_at,
    ...(r.status !== null && { status: r.status as CompletionStatus }),
    ...(r.status_value !== null && { statusValue: r.status_value }),
  }))
}
