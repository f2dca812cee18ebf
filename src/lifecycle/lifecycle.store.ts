import type { Transaction } from 'kysely'
import { explainMissing } from '../catalog/missing.js'
import type { DB, Queryable } from '../db/types.js'
import { EVENT_COLUMNS, eventSelection, type NewEvent } from '../events/events.store.js'
import type { CompletionStatus, LifecycleStage } from './lifecycle.schemas.js'

export interface Completion {
  status: CompletionStatus
  statusValue: string | null
}

export interface FeatureRef {
  project: string
  feature: string
}

/** Locks the feature's row until the transaction ends; a 404 naming what is missing otherwise. */
export async function lockFeature (trx: Transaction<DB>, ref: FeatureRef): Promise<void> {
  const row = await trx
    .selectFrom('features')
    .select('name')
    .where('project_id', '=', ref.project)
    .where('name', '=', ref.feature)
    .forUpdate()
    .executeTakeFirst()
  if (!row) throw await explainMissing(trx, ref)
}

/**
 * The feature's completion, if it is completed. A statement of its own after lockFeature, so
 * that it sees what the previous holder of the lock committed (a statement that waited for
 * the lock still reads its other rows as they were before the wait).
 */
export async function readCompletion (db: Queryable, feature: string): Promise<Completion | undefined> {
  const row = await db
    .selectFrom('feature_lifecycles')
    .select(['status', 'status_value'])
    .where('feature_name', '=', feature)
    .where('stage', '=', 'completed')
    .executeTakeFirst()
  return row?.status ? { status: row.status, statusValue: row.status_value } : undefined
}

/** Enters `completed`, or updates its values (keeping when it was entered), with its event: one statement. */
export async function writeCompletion (db: Queryable, feature: string, completion: Completion, event: NewEvent) {
  await db
    .with('entered', (q) =>
      q
        .insertInto('feature_lifecycles')
        .values({ feature_name: feature, stage: 'completed', status: completion.status, status_value: completion.statusValue })
        .onConflict((oc) =>
          oc.columns(['feature_name', 'stage']).doUpdateSet((eb) => ({
            status: eb.ref('excluded.status'),
            status_value: eb.ref('excluded.status_value'),
          }))
        )
        .returning('feature_name')
    )
    .insertInto('events')
    .columns(EVENT_COLUMNS)
    .expression((eb) => eb.selectFrom('entered').select(eventSelection(event)))
    .execute()
}

/** Leaves `completed`, with its event: one statement. */
export async function deleteCompletion (db: Queryable, feature: string, event: NewEvent) {
  await db
    .with('left', (q) =>
      q
        .deleteFrom('feature_lifecycles')
        .where('feature_name', '=', feature)
        .where('stage', '=', 'completed')
        .returning('feature_name')
    )
    .insertInto('events')
    .columns(EVENT_COLUMNS)
    .expression((eb) => eb.selectFrom('left').select(eventSelection(event)))
    .execute()
}

export async function listStages (db: Queryable, ref: FeatureRef): Promise<LifecycleStage[]> {
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
    stage: r.stage,
    enteredStageAt: r.entered_stage_at,
    ...(r.status !== null && { status: r.status }),
    ...(r.status_value !== null && { statusValue: r.status_value }),
  }))
}
