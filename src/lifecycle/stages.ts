import type { CompletionStatus, StageName } from './lifecycle.schemas.js'

export interface Completion {
  status: CompletionStatus
  statusValue: string | null
}

/** A stage the feature has entered, as stored. */
export interface EnteredStage {
  stage: StageName
  completion?: Completion
}

/** What can move a feature along its lifecycle. */
export type LifecycleTrigger =
  | { kind: 'created' }
  /** An SDK evaluated it in an environment: of type production where it is on, or elsewhere. */
  | { kind: 'evaluated'; production: boolean }
  | { kind: 'complete'; completion: Completion }
  | { kind: 'uncomplete' }
  | { kind: 'archive' }
  | { kind: 'revive' }

/** What a trigger does to the stored stages: nothing, enter a stage, change a completion, leave a stage. */
export type StageStep =
  | { kind: 'none' }
  | { kind: 'enter'; stage: StageName; completion?: Completion }
  | { kind: 'update-completion'; completion: Completion; previous: Completion }
  | { kind: 'leave'; stage: StageName; previous?: Completion }

const sameCompletion = (a: Completion, b: Completion) => a.status === b.status && a.statusValue === b.statusValue

/**
 * The lifecycle's one rule. Stages only move forward: initial → pre-live (first evaluation
 * outside production, or in production while off there) → live (first evaluation in
 * production while on there; from initial directly). Usage
 * never moves a feature that is live, completed or archived. Completed is left only by
 * uncomplete, archived only by revive; completing again with other values updates them, with
 * the same values does nothing.
 */
export function nextStep (entered: readonly EnteredStage[], trigger: LifecycleTrigger): StageStep {
  const has = (stage: StageName) => entered.some((s) => s.stage === stage)
  const completed = entered.find((s) => s.stage === 'completed')?.completion
  switch (trigger.kind) {
    case 'created':
      return entered.length === 0 ? { kind: 'enter', stage: 'initial' } : { kind: 'none' }
    case 'evaluated':
      if (has('live') || has('completed') || has('archived')) return { kind: 'none' }
      if (trigger.production) return { kind: 'enter', stage: 'live' }
      return has('pre-live') ? { kind: 'none' } : { kind: 'enter', stage: 'pre-live' }
    case 'complete':
      if (!completed) return { kind: 'enter', stage: 'completed', completion: trigger.completion }
      return sameCompletion(completed, trigger.completion)
        ? { kind: 'none' }
        : { kind: 'update-completion', completion: trigger.completion, previous: completed }
    case 'uncomplete':
      return completed ? { kind: 'leave', stage: 'completed', previous: completed } : { kind: 'none' }
    case 'archive':
      return has('archived') ? { kind: 'none' } : { kind: 'enter', stage: 'archived' }
    case 'revive':
      return has('archived') ? { kind: 'leave', stage: 'archived' } : { kind: 'none' }
  }
}
