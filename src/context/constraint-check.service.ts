import { findContextField } from './context.store.js'
import { legalValueProblems } from './legal-values.js'
import type { Database } from '../db/types.js'
import { RuleError } from '../errors.js'
import type { Constraint, ConstraintLimits } from '../constraints/constraints.schemas.js'
import { constraintProblems } from '../constraints/constraint-rules.js'

/** Every rule a strategy's constraint must meet, and the legal values of its context field: 400 naming the first broken. */
export async function validateConstraint (db: Database, constraint: Constraint, limits: ConstraintLimits) {
  const field = await findContextField(db, constraint.contextName)
  const problems = [
    ...constraintProblems([constraint], limits, '').map((p) => ({ ...p, at: p.at?.replace(/^\/0/, '') })),
    ...legalValueProblems(constraint, field?.legalValues, ''),
  ]
  const [first, ...rest] = problems
  if (first) throw new RuleError('constraint', [first, ...rest])
}
