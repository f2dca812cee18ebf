import { isIP } from 'node:net'
import { RE2JS } from 're2js'
import semver from 'semver'
import { problemAt, type RuleProblem, RuleError } from '../errors.js'
import { strictAjv } from '../validation.js'
import { validateVariants } from '../variants/variants.js'
import type { Variant } from '../variants/variants.schemas.js'
import type { Constraint, Operator, ParameterDefinition, StrategyLimits } from './strategies.schemas.js'

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

const LIST_OPERATORS = new Set<Operator>(['IN', 'NOT_IN', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS', 'IN_CIDR'])

/** RFC 8259 number grammar: "12", "-0.5", "1e3"; not "abc", "0x10", " 1". */
const NUMBER_LITERAL = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/
const PERCENTAGE = /^(100|[1-9]?\d)$/
const isDateTime = strictAjv.compile({ type: 'string', format: 'date-time' })

/** An IP address, or a CIDR range (an address and a prefix length that fits it). */
function isCidr (value: string): boolean {
  const slash = value.indexOf('/')
  const address = slash === -1 ? value : value.slice(0, slash)
  const family = isIP(address)
  if (family === 0) return false
  if (slash === -1) return true
  const prefix = value.slice(slash + 1)
  return /^(0|[1-9]\d{0,2})$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)
}

/** Why a single value does not fit its operator, or undefined. */
function valueProblem (operator: Operator, value: string, limits: StrategyLimits): string | undefined {
  if (operator === 'REGEX') {
    try {
      RE2JS.compile(value)
    } catch (error) {
      return `is not a valid RE2 regular expression: ${error instanceof Error ? error.message : String(error)}`
    }
    return undefined
  }
  if (value.length > limits.maxValueLength) return `must NOT have more than ${limits.maxValueLength} characters (only a REGEX pattern may be longer)`
  if (operator.startsWith('NUM_') && !NUMBER_LITERAL.test(value)) return 'must be a finite number'
  if (operator.startsWith('NUM_') && !Number.isFinite(Number(value))) return 'must be a finite number'
  if (operator.startsWith('DATE_') && !isDateTime(value)) return 'must be an RFC 3339 date-time, such as 2025-01-31T12:00:00Z'
  if (operator.startsWith('SEMVER_') && semver.valid(value) !== value) return 'must be a strict semantic version, such as 1.2.3 or 2.0.0-rc.1 (no leading v)'
  return undefined
}

/**
 * The rules of constraints that the schema cannot say, as Unleash applies them (plus IN_CIDR):
 * list operators need values; single-value operators need a value that fits them; REGEX
 * compiles in RE2 syntax (a linear-time engine: the pattern is never run on input here) and
 * cannot be inverted. Problems are placed at `base/<index>/…`.
 */
export function constraintProblems (constraints: readonly Constraint[], limits: StrategyLimits, base = '/constraints'): RuleProblem[] {
  const problems: RuleProblem[] = []
  constraints.forEach((c, i) => {
    const at = `${base}/${i}`
    if (LIST_OPERATORS.has(c.operator)) {
      if (c.values === undefined || c.values.length === 0) {
        problems.push(problemAt(`${at}/values`, `must list at least one value for the operator ${c.operator}`))
        return
      }
      if (c.operator === 'IN_CIDR') {
        c.values.forEach((v, j) => {
          if (!isCidr(v)) problems.push(problemAt(`${at}/values/${j}`, 'must be an IP address or a CIDR range, such as 10.0.0.0/8 or 2001:db8::/32'))
        })
      }
      return
    }
    if (c.value === undefined) {
      problems.push(problemAt(`${at}/value`, `is required for the operator ${c.operator}`))
      return
    }
    if (c.operator === 'REGEX' && c.inverted === true) {
      problems.push(problemAt(`${at}/inverted`, 'must not be true: a REGEX constraint cannot be inverted (as in Unleash)'))
    }
    const why = valueProblem(c.operator, c.value, limits)
    if (why) problems.push(problemAt(`${at}/value`, why))
  })
  return problems
}

/** A constraint in its stored form: the members sent, in one order. */
export const canonicalConstraint = (c: Constraint): Constraint => ({
  contextName: c.contextName,
  operator: c.operator,
  ...(c.values !== undefined && { values: [...c.values] }),
  ...(c.value !== undefined && { value: c.value }),
  ...(c.inverted !== undefined && { inverted: c.inverted }),
  ...(c.caseInsensitive !== undefined && { caseInsensitive: c.caseInsensitive }),
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
    if (definition.type === 'number' && !(NUMBER_LITERAL.test(value) && Number.isFinite(Number(value)))) problems.push(problemAt(at, 'must be a finite number'))
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
