import { explainMissing } from '../catalog/missing.js'
import { literal, type ScriptedTransaction } from '../db/scripted-transaction.js'
import type { Queryable } from '../db/types.js'
import { insertEventStatement, type NewEvent } from '../events/events.store.js'

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
 * Opens the transaction, locks the feature row until it ends, and reads the completion, if
 * any: one round trip. The read is a statement of its own after the locking one, so it sees
 * what the previous lock holder committed (a join in the locking statement would not).
 */
export async function lockFeature (
  tx: ScriptedTransaction,
  ref: FeatureRef
): Promise<Completion | undefined> {
  const project = literal(ref.project)
  const feature = literal(ref.feature)
  const [row] = await tx.begin<{ found: boolean; status: string | null; status_value: string | null }>(
    `SELECT name FROM features WHERE project_id = ${project} AND name = ${feature} FOR UPDATE;
    SELECT EXISTS (SELECT 1 FROM features WHERE project_id = ${project} AND name = ${feature}) AS found,
      l.status, l.status_value
    FROM (SELECT 1) AS one
    LEFT JOIN feature_lifecycles l ON l.feature_name = ${feature} AND l.stage = 'completed'`
  )
  if (!row?.found) throw await explainMissing(tx.db, ref)
  return row.status === null
    ? undefined
    : { status: row.status as CompletionStatus, statusValue: row.status_value }
}

/**
 * Enters `completed`, or updates its values when already there (keeping when it was entered),
 * records the event and commits: one round trip.
 */
export async function writeCompletion (
  tx: ScriptedTransaction,
  feature: string,
  completion: Completion,
  event: NewEvent
): Promise<void> {
  const values = [feature, 'completed', completion.status, completion.statusValue].map(literal)
  await tx.commit(`INSERT INTO feature_lifecycles (feature_name, stage, status, status_value)
      VALUES (${values.join(', ')})
      ON CONFLICT (feature_name, stage)
      DO UPDATE SET status = EXCLUDED.status, status_value = EXCLUDED.status_value;
    ${insertEventStatement(event)}`)
}

/** Leaves `completed`, records the event and commits: one round trip. */
export async function deleteCompletion (
  tx: ScriptedTransaction,
  feature: string,
  event: NewEvent
): Promise<void> {
  await tx.commit(`DELETE FROM feature_lifecycles
      WHERE feature_name = ${literal(feature)} AND stage = 'completed';
    ${insertEventStatement(event)}`)
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
