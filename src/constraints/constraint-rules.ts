import { isIP } from 'node:net'
import { RE2JS } from 're2js'
import semver from 'semver'
import { problemAt, type RuleProblem } from '../errors.js'
import { isFiniteNumberText, strictAjv } from '../validation.js'
import { isListOperator, type Operator } from '../vocabulary/operators.js'
import type { Constraint, ConstraintLimits } from './constraints.schemas.js'

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

/**
 * A semver version in its canonical form, as Unleash 8.2 accepts it: strict semantic versioning,
 * build metadata included (`1.2.3+4000`, `1.2.3-beta.1+build.5`); no leading `v`, no spaces.
 * (`semver.valid` drops build metadata, so it cannot say whether the text was canonical.)
 */
export function isStrictSemver (value: string): boolean {
  const parsed = semver.parse(value, { loose: false })
  if (parsed === null) return false
  return (parsed.build.length > 0 ? `${parsed.version}+${parsed.build.join('.')}` : parsed.version) === value
}

/** Why a single value does not fit its operator, or undefined. */
function valueProblem (operator: Operator, value: string, limits: ConstraintLimits): string | undefined {
  if (operator === 'REGEX') {
    try {
      RE2JS.compile(value)
    } catch (error) {
      return `is not a valid RE2 regular expression: ${error instanceof Error ? error.message : String(error)}`
    }
    return undefined
  }
  if (value.length > limits.maxValueLength) return `must NOT have more than ${limits.maxValueLength} characters (only a REGEX pattern may be longer)`
  if (operator.startsWith('NUM_') && !isFiniteNumberText(value)) return 'must be a finite number'
  if (operator.startsWith('DATE_') && !isDateTime(value)) return 'must be an RFC 3339 date-time, such as 2025-01-31T12:00:00Z'
  if (operator.startsWith('SEMVER_') && !isStrictSemver(value)) return 'must be a valid semver version (strict semantic versioning, such as 1.2.3, 2.0.0-rc.1 or 1.2.3+build.5; no leading v)'
  return undefined
}

/**
 * The rules of constraints that the schema cannot say, as Unleash applies them (plus IN_CIDR):
 * list operators need values; single-value operators need a value that fits them; REGEX
 * compiles in RE2 syntax (a linear-time engine: the pattern is never run on input here) and
 * cannot be inverted. Problems are placed at `base/<index>/…`.
 */
export function constraintProblems (constraints: readonly Constraint[], limits: ConstraintLimits, base = '/constraints'): RuleProblem[] {
  const problems: RuleProblem[] = []
  constraints.forEach((c, i) => {
    const at = `${base}/${i}`
    if (isListOperator(c.operator)) {
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
