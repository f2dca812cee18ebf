import { canonicalConstraint, constraintProblems } from '../constraints/constraint-rules.js'
import type { Constraint } from '../constraints/constraints.schemas.js'
import { problemAt, type RuleProblem, RuleError } from '../errors.js'
import { isFiniteNumberText } from '../validation.js'
import { validateVariants } from '../variants/variants.js'
import type { Variant } from '../variants/variants.schemas.js'
import type { NewStrategy, ParameterDefinition, StrategyLimits } from './strategies.schemas.js'

const PERCENTAGE = /^(100|[1-9]?\d)$/

/** A strategy as stored and served (without its id). */
export interface StrategyDocument {
  name: string
  title: string | null
  disabled: boolean
  sortOrder: number
  parameters: Record<string, string>
  constraints: Constraint[]
  variants: Variant[]
  segments: number[]
}

/** What a request asks a strategy to be, before defaults and checks. */
export interface StrategyInput {
  name: string
  title: string | null
  disabled: boolean
  sortOrder: number
  parameters: Record<string, string | number | boolean>
  constraints: Constraint[]
  variants: unknown[]
  segments: number[]
}

/** What a new strategy's body asks it to be; `sortOrder` when the body names none. */
export const strategyInput = (body: NewStrategy, sortOrder: number): StrategyInput => ({
  name: body.name,
  title: body.title ?? null,
  disabled: body.disabled ?? false,
  sortOrder: body.sortOrder ?? sortOrder,
  parameters: body.parameters ?? {},
  constraints: body.constraints ?? [],
  variants: body.variants ?? [],
  segments: body.segments ?? [],
})

/**
 * The parameters as stored: strings (numbers and booleans converted, as Unleash does), with
 * flexibleRollout's defaults (rollout 100, stickiness default, groupId the feature name) where
 * they are missing or empty.
 */
export function withDefaults (strategy: string, parameters: Record<string, string | number | boolean>, feature: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(parameters)) out[name] = String(value)
  if (strategy === 'flexibleRollout') {
    if (out.rollout === undefined) out.rollout = '100'
    if (!out.stickiness) out.stickiness = 'default'
    if (!out.groupId) out.groupId = feature
  }
  return out
}

/** The parameters the definition declares, checked against it; others are kept as sent. */
export function parameterProblems (parameters: Record<string, string>, declared: readonly ParameterDefinition[], base = '/parameters'): RuleProblem[] {
  const problems: RuleProblem[] = []
  for (const definition of declared) {
    const at = `${base}/${definition.name.replaceAll('~', '~0').replaceAll('/', '~1')}`
    const value = parameters[definition.name]
    if (value === undefined || value === '') {
      if (definition.required) problems.push(problemAt(at, `is required by the strategy (a ${definition.type})`))
      continue
    }
    if (definition.type === 'percentage' && !PERCENTAGE.test(value)) problems.push(problemAt(at, 'must be a percentage: an integer from 0 to 100'))
    if (definition.type === 'number' && !isFiniteNumberText(value)) problems.push(problemAt(at, 'must be a finite number'))
    if (definition.type === 'boolean' && value !== 'true' && value !== 'false') problems.push(problemAt(at, 'must be true or false'))
  }
  return problems
}

/**
 * A strategy's variants as stored: the rules of environment variants (validateVariants), each
 * variant's stickiness defaulting to the strategy's own (its stickiness parameter, else
 * default). Refusals are RuleErrors of the `variants` document.
 */
export function strategyVariants (variants: readonly unknown[], parameters: Record<string, string>, limits: StrategyLimits): Variant[] {
  const stickiness = parameters.stickiness || 'default'
  const withStickiness = variants.map((v) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) && !('stickiness' in v) ? { ...v, stickiness } : v
  )
  return validateVariants(withStickiness, { maxVariants: limits.maxVariants, maxBytes: Infinity }).variants
}

/**
 * A strategy as it will be stored: defaults filled in, constraints in their stored form, every
 * rule checked. Throws a RuleError (document `strategy`, or `variants` for its variants)
 * listing what is wrong.
 */
export function resolveStrategy (
  input: StrategyInput,
  definition: { parameters: readonly ParameterDefinition[] },
  feature: string,
  limits: StrategyLimits
): StrategyDocument {
  const parameters = withDefaults(input.name, input.parameters, feature)
  const problems = [...parameterProblems(parameters, definition.parameters), ...constraintProblems(input.constraints, limits)]
  const [first, ...rest] = problems
  if (first) throw new RuleError('strategy', [first, ...rest])
  return {
    name: input.name,
    title: input.title,
    disabled: input.disabled,
    sortOrder: input.sortOrder,
    parameters,
    constraints: input.constraints.map(canonicalConstraint),
    variants: strategyVariants(input.variants, parameters, limits),
    segments: [...input.segments].sort((a, b) => a - b),
  }
}
