import { problemAt, type RuleProblem } from '../errors.js'
import type { Constraint } from '../constraints/constraints.schemas.js'
import { isListOperator } from '../vocabulary/operators.js'
import type { LegalValue } from './context.schemas.js'

/**
 * The values of a constraint that its context field does not allow, as Unleash checks them: a
 * field with legal values allows only those (a list operator's values, or a single operator's
 * value); a field without any, or no field of that name, allows any. Placed at `base/values/<i>`
 * or `base/value`.
 */
export function legalValueProblems (constraint: Constraint, legalValues: readonly LegalValue[] | undefined, base: string): RuleProblem[] {
  if (!legalValues || legalValues.length === 0) return []
  const legal = new Set(legalValues.map((v) => v.value))
  const refuse = (value: string) => `is ${value}, which is not a legal value of the context field ${constraint.contextName}`
  if (isListOperator(constraint.operator)) {
    return (constraint.values ?? []).flatMap((v, i) => (legal.has(v) ? [] : [problemAt(`${base}/values/${i}`, refuse(v))]))
  }
  return constraint.value === undefined || legal.has(constraint.value) ? [] : [problemAt(`${base}/value`, refuse(constraint.value))]
}
