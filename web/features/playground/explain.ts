// The playground's answers in words: why a flag is on or off for the context, each strategy's
// verdict, and each constraint with what the context held ("country is one of NL, BE: no
// (country is US)").
import type { Constraint } from '../../api/types'
import { describeConstraint } from '../../lib/constraints'
import { strategyLabel } from '../../lib/labels'
import type { PlaygroundConstraint, PlaygroundFeature, PlaygroundStrategy } from './api'

/** The context as sent: top-level fields, and properties. */
export type SentContext = Record<string, unknown> & { properties?: Record<string, string> }

/** What a constraint read: the top-level field, else the property, as the SDK reads it; undefined when not set (or empty). */
export function contextValue (context: SentContext, field: string): string | undefined {
  const top = context[field]
  if (top !== undefined && top !== null && top !== '') return String(top)
  const property = context.properties?.[field]
  return property !== undefined && property !== '' ? property : undefined
}

const isDate = (operator: string) => operator.startsWith('DATE_')

/** "country is one of NL, BE: no (country is US)". */
export function explainConstraint (c: PlaygroundConstraint, context: SentContext): string {
  const { result, ...constraint } = c
  const value = contextValue(context, isDate(c.operator) ? 'currentTime' : c.contextName)
  const field = isDate(c.operator) ? 'currentTime' : c.contextName
  const held = value === undefined ? (isDate(c.operator) ? 'currentTime not given: now' : `${field} is not set`) : `${field} is ${value}`
  return `${describeConstraint(constraint as Constraint)}: ${result ? 'yes' : 'no'} (${held})`
}

/** A strategy's name as people know it, with its title and rollout. */
export function strategyName (s: PlaygroundStrategy): string {
  const rollout = s.name === 'flexibleRollout' && s.parameters.rollout !== undefined ? ` ${s.parameters.rollout}%` : ''
  return `${strategyLabel(s.name)}${rollout}${s.title ? ` “${s.title}”` : ''}`
}

/** What the strategy answered. */
export function strategyVerdict (s: PlaygroundStrategy): string {
  const r = s.result
  if (r.evaluationStatus === 'unevaluated') return 'disabled: not evaluated'
  if (r.evaluationStatus === 'incomplete') {
    return r.enabled === 'unknown'
      ? 'cannot be evaluated here (it depends on your application); its constraints and segments hold'
      : 'cannot be evaluated here, and a constraint or segment fails: no'
  }
  return r.enabled === true ? `matched${r.variant ? `, variant ${r.variant.name}` : ''}` : 'did not match'
}

/** The flag's answer in one sentence: on or off, and why. */
export function flagVerdict (f: PlaygroundFeature, environment: string): string {
  if (f.isEnabled) {
    const winner = f.strategies.data.find((s) => s.result.enabled === true)
    const why = winner ? `${strategyName(winner)} matched` : 'it has no strategy, so it is on for everyone'
    return `On: ${why}${f.variant.enabled ? `; variant ${f.variant.name}` : ''}`
  }
  if (!f.isEnabledInCurrentEnvironment) return `Off: switched off in ${environment}`
  if (f.hasUnsatisfiedDependency) return 'Off: a flag it depends on is not as it requires'
  if (f.strategies.result === 'unknown') return 'Off here: only a strategy the playground cannot evaluate could turn it on'
  return 'Off: no strategy matched'
}
