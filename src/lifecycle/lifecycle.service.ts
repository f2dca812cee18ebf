import { ALL, type TokenScope } from '../access/scope.js'
import { lockFeature, lockFeaturesByName, requirePresent } from '../features/features.store.js'
import type { FeatureRef } from '../features/missing.js'
import type { Database } from '../db/types.js'
import { type Change, withChange, type Writer, writeChange } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import type { LifecycleStage, StageName } from './lifecycle.schemas.js'
import { countCurrentStages, deleteStage, enabledIn, insertStage, lastEvaluated, listStages, readStages, readStagesOf, updateCompletion } from './lifecycle.store.js'
import { type Completion, type LifecycleTrigger, nextStep, type StageStep } from './stages.js'

const completionData = (c: Completion) =>
  toJsonText({ status: c.status, statusValue: c.statusValue, kept: c.status === 'kept' })

/**
 * The one place lifecycle stages are written: applies the rule (nextStep) to the stages the
 * feature has entered, writes the step and records its event. The caller holds the feature's
 * row lock (lockFeature), so that concurrent triggers apply one after the other and every
 * step is decided on what the previous one left. `environment` is where an evaluation happened.
 */
export async function transition (
  change: Change,
  ref: FeatureRef,
  trigger: LifecycleTrigger,
  createdBy: Author,
  environment?: string
): Promise<StageStep> {
  const { trx, record } = change
  const step = nextStep(await readStages(trx, ref.feature), trigger)
  const event = { createdBy, project: ref.project, featureName: ref.feature }
  switch (step.kind) {
    case 'none':
      break
    case 'enter':
      await insertStage(trx, ref.feature, step.stage, step.completion)
      if (step.completion) {
        record({ ...event, type: 'feature-completed', data: completionData(step.completion) })
      } else if (trigger.kind === 'evaluated') {
        record({ ...event, type: 'feature-lifecycle-stage-entered', environment, data: toJsonText({ stage: step.stage }) })
      }
      break
    case 'update-completion':
      await updateCompletion(trx, ref.feature, step.completion)
      record({ ...event, type: 'feature-completed', data: completionData(step.completion), preData: completionData(step.previous) })
      break
    case 'leave':
      await deleteStage(trx, ref.feature, step.stage)
      if (step.previous) record({ ...event, type: 'feature-uncompleted', preData: completionData(step.previous) })
      break
  }
  return step
}

/**
 * Marks the feature completed with these values (archived features too). Completing again
 * with the same values changes nothing and records nothing; other values replace them, with
 * the previous ones as the event's preData.
 */
export function completeFeature (writer: Writer, ref: FeatureRef, completion: Completion, createdBy: Author) {
  return withChange(writer, async (change) => {
    await lockFeature(change.trx, ref, true)
    await transition(change, ref, { kind: 'complete', completion }, createdBy)
  })
}

/** Leaves the completed stage; a feature that is not completed is left as it is, with no event. */
export function uncompleteFeature (writer: Writer, ref: FeatureRef, createdBy: Author) {
  return withChange(writer, async (change) => {
    await lockFeature(change.trx, ref, true)
    await transition(change, ref, { kind: 'uncomplete' }, createdBy)
  })
}

/**
 * Moves features along their lifecycle after an SDK evaluated them in an environment: to live
 * when the environment is of type production and the feature is on there (as Unleash), else to
 * pre-live. Only features whose stage may change are locked (in name order, so that concurrent
 * reports cannot deadlock), and the rule is applied again under the lock, with whether each is
 * on read there too. Returns the features that may still move on a later evaluation here
 * (evaluated in production while off there, and not live: a later evaluation may find them on).
 */
export async function moveOnEvaluation (
  db: Database,
  features: readonly string[],
  environment: { name: string; production: boolean },
  createdBy: Author
): Promise<Set<string>> {
  const stages = await readStagesOf(db, features)
  // Whether each is on where it was evaluated, read first without a lock: most are not to move.
  const on = environment.production ? await enabledIn(db, features, environment.name) : new Set<string>()
  const trigger = (feature: string) => ({ kind: 'evaluated', production: on.has(feature) }) as const
  const stays = (f: string) => nextStep(stages.get(f) ?? [], { kind: 'evaluated', production: true }).kind === 'none'
  const waiting = new Set(environment.production ? features.filter((f) => !on.has(f) && !stays(f)) : [])
  const candidates = features.filter((f) => nextStep(stages.get(f) ?? [], trigger(f)).kind !== 'none')
  if (candidates.length === 0) return waiting
  await writeChange(db, async (change) => {
    const locked = await lockFeaturesByName(change.trx, candidates)
    const onNow = environment.production ? await enabledIn(change.trx, locked.map((f) => f.feature), environment.name) : new Set<string>()
    for (const ref of locked) {
      await transition(change, ref, { kind: 'evaluated', production: onNow.has(ref.feature) }, createdBy, environment.name)
    }
  })
  return waiting
}

/**
 * The stages the feature entered, oldest first; the completed stage lists when each
 * environment the token covers last evaluated it.
 */
export async function featureLifecycle (db: Database, ref: FeatureRef, token: TokenScope): Promise<LifecycleStage[]> {
  await requirePresent(db, ref)
  const stages = await listStages(db, ref.project, ref.feature)
  const completed = stages.find((s) => s.stage === 'completed')
  if (completed) {
    const environments = token.environments.includes(ALL) ? undefined : token.environments
    completed.lastEvaluated = await lastEvaluated(db, ref.feature, environments)
  }
  return stages
}

/** How many features the token may see are in each stage now (Unleash's lifecycle count). */
export async function stageCounts (db: Database, token: TokenScope) {
  const counts = await countCurrentStages(db, token.projects.includes(ALL) ? undefined : token.projects)
  const of = (stage: StageName) => counts.get(stage) ?? 0
  return { initial: of('initial'), preLive: of('pre-live'), live: of('live'), completed: of('completed'), archived: of('archived') }
}
