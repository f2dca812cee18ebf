import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { StageName } from '../../src/lifecycle/lifecycle.schemas.js'
import { type Completion, type EnteredStage, type LifecycleTrigger, nextStep, type StageStep } from '../../src/lifecycle/stages.js'

const kept: Completion = { status: 'kept', statusValue: 'v2' }
const discarded: Completion = { status: 'discarded', statusValue: null }
const s = (stage: StageName, completion?: Completion): EnteredStage => ({ stage, ...(completion && { completion }) })
const none: StageStep = { kind: 'none' }

describe('nextStep', () => {
  it.each<{ name: string, entered: EnteredStage[], trigger: LifecycleTrigger, step: StageStep }>([
    { name: 'a new feature enters initial', entered: [], trigger: { kind: 'created' }, step: { kind: 'enter', stage: 'initial' } },
    { name: 'created twice: nothing', entered: [s('initial')], trigger: { kind: 'created' }, step: none },
    { name: 'first evaluation outside production: pre-live', entered: [s('initial')], trigger: { kind: 'evaluated', production: false }, step: { kind: 'enter', stage: 'pre-live' } },
    { name: 'pre-live again outside production: nothing', entered: [s('initial'), s('pre-live')], trigger: { kind: 'evaluated', production: false }, step: none },
    { name: 'first evaluation in production: live, from initial directly', entered: [s('initial')], trigger: { kind: 'evaluated', production: true }, step: { kind: 'enter', stage: 'live' } },
    { name: 'production after pre-live: live', entered: [s('initial'), s('pre-live')], trigger: { kind: 'evaluated', production: true }, step: { kind: 'enter', stage: 'live' } },
    { name: 'usage never moves a live feature', entered: [s('initial'), s('live')], trigger: { kind: 'evaluated', production: false }, step: none },
    { name: 'usage never moves a completed feature', entered: [s('initial'), s('completed', kept)], trigger: { kind: 'evaluated', production: true }, step: none },
    { name: 'usage never moves an archived feature', entered: [s('initial'), s('archived')], trigger: { kind: 'evaluated', production: true }, step: none },
    { name: 'complete enters completed with its values', entered: [s('initial')], trigger: { kind: 'complete', completion: kept }, step: { kind: 'enter', stage: 'completed', completion: kept } },
    { name: 'complete again with the same values: nothing', entered: [s('initial'), s('completed', kept)], trigger: { kind: 'complete', completion: { ...kept } }, step: none },
    {
      name: 'complete again with other values updates them, keeping the previous',
      entered: [s('initial'), s('completed', kept)],
      trigger: { kind: 'complete', completion: discarded },
      step: { kind: 'update-completion', completion: discarded, previous: kept },
    },
    {
      name: 'only the status value differs: an update',
      entered: [s('completed', kept)],
      trigger: { kind: 'complete', completion: { status: 'kept', statusValue: 'v3' } },
      step: { kind: 'update-completion', completion: { status: 'kept', statusValue: 'v3' }, previous: kept },
    },
    { name: 'uncomplete leaves completed with its values', entered: [s('initial'), s('completed', kept)], trigger: { kind: 'uncomplete' }, step: { kind: 'leave', stage: 'completed', previous: kept } },
    { name: 'uncomplete a feature that is not completed: nothing', entered: [s('initial'), s('live')], trigger: { kind: 'uncomplete' }, step: none },
    { name: 'archive enters archived', entered: [s('initial'), s('live')], trigger: { kind: 'archive' }, step: { kind: 'enter', stage: 'archived' } },
    { name: 'archive an archived feature: nothing', entered: [s('initial'), s('archived')], trigger: { kind: 'archive' }, step: none },
    { name: 'revive leaves archived', entered: [s('initial'), s('archived')], trigger: { kind: 'revive' }, step: { kind: 'leave', stage: 'archived' } },
    { name: 'revive a live feature: nothing', entered: [s('initial'), s('live')], trigger: { kind: 'revive' }, step: none },
    { name: 'a completed feature can be archived and keeps its completion', entered: [s('completed', kept)], trigger: { kind: 'archive' }, step: { kind: 'enter', stage: 'archived' } },
  ])('$name', ({ entered, trigger, step }) => {
    expect(nextStep(entered, trigger)).toEqual(step)
  })

  // Stages only move forward: from any stored history, applying any sequence of triggers (each
  // step stored as the service stores it) never enters a stage twice, never leaves a stage
  // other than completed (by uncomplete) or archived (by revive), and usage never moves a
  // feature that is live, completed or archived.
  const completion = fc.record({ status: fc.constantFrom('kept' as const, 'discarded' as const), statusValue: fc.option(fc.constantFrom('a', 'b'), { nil: null }) })
  const trigger: fc.Arbitrary<LifecycleTrigger> = fc.oneof(
    fc.constant({ kind: 'created' as const }),
    fc.boolean().map((production) => ({ kind: 'evaluated' as const, production })),
    completion.map((c) => ({ kind: 'complete' as const, completion: c })),
    fc.constant({ kind: 'uncomplete' as const }),
    fc.constant({ kind: 'archive' as const }),
    fc.constant({ kind: 'revive' as const })
  )

  it('only moves forward, whatever the triggers (property)', () => {
    fc.assert(
      fc.property(fc.array(trigger, { maxLength: 40 }), (triggers) => {
        let stages: EnteredStage[] = []
        for (const t of triggers) {
          const step = nextStep(stages, t)
          const had = (stage: StageName) => stages.some((x) => x.stage === stage)
          if (t.kind === 'evaluated' && (had('live') || had('completed') || had('archived'))) expect(step).toEqual(none)
          switch (step.kind) {
            case 'enter':
              expect(had(step.stage)).toBe(false)
              stages = [...stages, s(step.stage, step.completion)]
              break
            case 'leave':
              expect([['completed', 'uncomplete'], ['archived', 'revive']]).toContainEqual([step.stage, t.kind])
              stages = stages.filter((x) => x.stage !== step.stage)
              break
            case 'update-completion':
              expect(t.kind).toBe('complete')
              stages = stages.map((x) => (x.stage === 'completed' ? s('completed', step.completion) : x))
              break
            case 'none':
              break
          }
          // pre-live and live, once entered, are never left.
          for (const kept of ['initial', 'pre-live', 'live'] as const) if (had(kept)) expect(stages.some((x) => x.stage === kept)).toBe(true)
        }
      }),
      { seed: 25, numRuns: 2000 }
    )
  })
})
