import { type ExpressionBuilder, sql, type Transaction } from 'kysely'
import type { DB, Queryable } from '../db/types.js'
import type { CompletionStatus, LifecycleStage, StageName } from './lifecycle.schemas.js'
import type { Completion, EnteredStage } from './stages.js'

/**
 * The stages the feature has entered. Call after locking the feature (a statement of its own,
 * so that it sees what the previous holder of the lock committed).
 */
export async function readStages (trx: Transaction<DB>, feature: string): Promise<EnteredStage[]> {
  const rows = await trx
    .selectFrom('feature_lifecycles')
    .select(['stage', 'status', 'status_value'])
    .where('feature_name', '=', feature)
    .orderBy('entered_stage_at')
    .execute()
  return rows.map((r) => ({
    stage: r.stage,
    ...(r.status !== null && { completion: { status: r.status, statusValue: r.status_value } }),
  }))
}

/** The stages of several features at once, without a lock: to find which ones usage may move. */
export async function readStagesOf (db: Queryable, features: readonly string[]): Promise<Map<string, EnteredStage[]>> {
  const out = new Map<string, EnteredStage[]>(features.map((f) => [f, []]))
  if (features.length === 0) return out
  const rows = await db
    .selectFrom('feature_lifecycles')
    .select(['feature_name', 'stage'])
    .where('feature_name', 'in', features)
    .execute()
  for (const r of rows) out.get(r.feature_name)?.push({ stage: r.stage })
  return out
}

/** Which of these features are on in the environment (what makes usage there live). */
export async function enabledIn (db: Queryable, features: readonly string[], environment: string): Promise<Set<string>> {
  if (features.length === 0) return new Set()
  const rows = await db
    .selectFrom('feature_environments')
    .select('feature_name')
    .where('environment_name', '=', environment)
    .where('enabled', '=', true)
    .where('feature_name', 'in', features)
    .execute()
  return new Set(rows.map((r) => r.feature_name))
}

export async function insertStage (trx: Transaction<DB>, feature: string, stage: StageName, completion?: Completion) {
  await trx
    .insertInto('feature_lifecycles')
    .values({ feature_name: feature, stage, status: completion?.status ?? null, status_value: completion?.statusValue ?? null })
    .execute()
}

export async function updateCompletion (trx: Transaction<DB>, feature: string, completion: Completion) {
  await trx
    .updateTable('feature_lifecycles')
    .set({ status: completion.status, status_value: completion.statusValue })
    .where('feature_name', '=', feature)
    .where('stage', '=', 'completed')
    .execute()
}

export async function deleteStage (trx: Transaction<DB>, feature: string, stage: StageName) {
  await trx.deleteFrom('feature_lifecycles').where('feature_name', '=', feature).where('stage', '=', stage).execute()
}

/** The stages of a feature of the project, oldest first; empty when there is no such feature. */
export async function listStages (db: Queryable, project: string, feature: string): Promise<LifecycleStage[]> {
  const rows = await db
    .selectFrom('feature_lifecycles as l')
    .innerJoin('features as f', 'f.name', 'l.feature_name')
    .select(['l.stage', 'l.entered_stage_at', 'l.status', 'l.status_value'])
    .where('f.project_id', '=', project)
    .where('f.name', '=', feature)
    .orderBy('l.entered_stage_at')
    .execute()
  return rows.map((r) => ({
    stage: r.stage,
    enteredStageAt: r.entered_stage_at,
    ...(r.status !== null && { status: r.status }),
    ...(r.status_value !== null && { statusValue: r.status_value }),
  }))
}

/** The stage a feature entered last (its current stage), with its completion. */
export async function currentStage (db: Queryable, feature: string) {
  const row = await db
    .selectFrom('feature_lifecycles')
    .select(['stage', 'entered_stage_at', 'status', 'status_value'])
    .where('feature_name', '=', feature)
    .orderBy('entered_stage_at', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow()
  return {
    stage: row.stage,
    enteredStageAt: row.entered_stage_at,
    ...(row.status !== null && { status: row.status }),
    ...(row.status_value !== null && { statusValue: row.status_value }),
  }
}

/**
 * When each environment (of `environments`, all when undefined) last evaluated the feature,
 * newest first, from the SDKs' usage counts: what warns that a completed feature is still in use.
 */
export async function lastEvaluated (db: Queryable, feature: string, environments: readonly string[] | undefined) {
  let query = db
    .selectFrom('usage_evaluations')
    .select(['environment', 'last_seen_at'])
    .where('feature_name', '=', feature)
    .orderBy('last_seen_at', 'desc')
  if (environments !== undefined) query = query.where('environment', 'in', environments)
  const rows = await query.execute()
  return rows.map((r) => ({ environment: r.environment, lastEvaluatedAt: new Date(r.last_seen_at) }))
}

/** The current stage of every feature of a project that is not archived, by feature name. */
export async function currentStagesOfProject (db: Queryable, project: string) {
  const rows = await db
    .selectFrom('feature_lifecycles')
    .innerJoin('features', 'features.name', 'feature_lifecycles.feature_name')
    .distinctOn('feature_lifecycles.feature_name')
    .select(['feature_lifecycles.feature_name', 'feature_lifecycles.stage', 'feature_lifecycles.entered_stage_at'])
    .where('features.project_id', '=', project)
    .where('features.archived_at', 'is', null)
    .orderBy('feature_lifecycles.feature_name')
    .orderBy('feature_lifecycles.entered_stage_at', 'desc')
    .execute()
  return new Map(rows.map((r) => [r.feature_name, { stage: r.stage, enteredStageAt: r.entered_stage_at }]))
}

/**
 * The current stage of the feature a caller's query names `f` (the stage entered last), as a
 * scalar subquery: what feature search filters on.
 */
export const currentStageOf = <T extends ExpressionBuilder<DB & { f: DB['features'] }, 'f'>>(eb: T) =>
  (eb as ExpressionBuilder<DB & { f: DB['features'] }, 'f'>)
    .selectFrom('feature_lifecycles as l')
    .select('l.stage')
    .whereRef('l.feature_name', '=', 'f.name')
    .orderBy('l.entered_stage_at', 'desc')
    .limit(1)
    .$asScalar()

/** The current stage of each of these features, with its status: what a search shows of each. */
export async function currentStagesOf (db: Queryable, features: readonly string[]) {
  if (features.length === 0) return new Map<string, { stage: StageName; status: CompletionStatus | null; enteredStageAt: Date }>()
  const rows = await db
    .selectFrom('feature_lifecycles')
    .distinctOn('feature_name')
    .select(['feature_name', 'stage', 'status', 'entered_stage_at'])
    .where('feature_name', 'in', features)
    .orderBy('feature_name')
    .orderBy('entered_stage_at', 'desc')
    .execute()
  return new Map(rows.map((r) => [r.feature_name, { stage: r.stage, status: r.status, enteredStageAt: r.entered_stage_at }]))
}

/** How many features (of `projects`, all when undefined; archived ones too) are in each stage now, by stage. */
export async function countCurrentStages (db: Queryable, projects: readonly string[] | undefined): Promise<Map<StageName, number>> {
  let current = db
    .selectFrom('feature_lifecycles as l')
    .innerJoin('features as f', 'f.name', 'l.feature_name')
    .distinctOn('l.feature_name')
    .select(['l.feature_name', 'l.stage'])
    .orderBy('l.feature_name')
    .orderBy('l.entered_stage_at', 'desc')
  if (projects?.length === 0) return new Map()
  if (projects !== undefined) current = current.where('f.project_id', 'in', projects)
  const rows = await db
    .selectFrom(current.as('c'))
    .select(['c.stage', (eb) => eb.fn.countAll<string>().as('count')])
    .groupBy('c.stage')
    .execute()
  return new Map(rows.map((r) => [r.stage, Number(r.count)]))
}

/**
 * How many features (not archived) are in each stage now, by project (of `projects`, all when
 * undefined). A feature revived a moment ago whose last stage is still archived counts as
 * initial, as Unleash counts it.
 */
export async function currentStageCounts (db: Queryable, projects?: readonly string[]) {
  if (projects?.length === 0) return new Map<string, Partial<Record<StageName, number>>>()
  let query = db
    .selectFrom('features as f')
    .innerJoinLateral(
      (eb) => eb.selectFrom('feature_lifecycles as l').select('l.stage').whereRef('l.feature_name', '=', 'f.name').orderBy('l.entered_stage_at', 'desc').limit(1).as('current'),
      (join) => join.onTrue()
    )
    .select(['f.project_id', 'current.stage', (eb) => eb.fn.countAll<string>().as('n')])
    .where('f.archived_at', 'is', null)
    .groupBy(['f.project_id', 'current.stage'])
  if (projects !== undefined) query = query.where('f.project_id', 'in', projects)
  const counts = new Map<string, Partial<Record<StageName, number>>>()
  for (const row of await query.execute()) {
    const stage = row.stage === 'archived' ? 'initial' : row.stage
    const ofProject = counts.get(row.project_id) ?? {}
    ofProject[stage] = (ofProject[stage] ?? 0) + Number(row.n)
    counts.set(row.project_id, ofProject)
  }
  return counts
}

/**
 * The average whole days the project's features (archived too) spent in each stage they have
 * left (archived is never left), as Unleash rounds it; a stage no feature has left is missing.
 */
export async function averageDaysInStages (db: Queryable, project: string) {
  const rows = await db
    .selectFrom('feature_lifecycles as l')
    .innerJoin('features as f', 'f.name', 'l.feature_name')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('feature_lifecycles as n')
          .select((s) => s.fn.min('n.entered_stage_at').as('left_at'))
          .whereRef('n.feature_name', '=', 'l.feature_name')
          .whereRef('n.entered_stage_at', '>', 'l.entered_stage_at')
          .as('next'),
      (join) => join.onTrue()
    )
    .select(['l.stage', sql<string>`round(avg(extract(epoch FROM next.left_at - l.entered_stage_at) / 86400))`.as('days')])
    .where('f.project_id', '=', project)
    .where('l.stage', '!=', 'archived')
    .where('next.left_at', 'is not', null)
    .groupBy('l.stage')
    .execute()
  return new Map(rows.map((r) => [r.stage, Number(r.days)]))
}
