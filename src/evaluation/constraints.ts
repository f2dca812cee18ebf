import { Address4, Address6 } from 'ip-address'
import { RE2JS } from 're2js'
import semver from 'semver'
import { always, never, resolveContextValue, type Test } from './context.js'

/** A constraint as the client API serves it (a strategy's, or a segment's). */
export interface Constraint {
  contextName: string
  operator: string
  values?: string[]
  value?: string
  inverted?: boolean
  caseInsensitive?: boolean
}

/** List values as the SDK cleans them: empty ones dropped, the rest trimmed. */
const cleanValues = (values: readonly string[] | undefined) => (values ?? []).filter((v) => !!v).map((v) => v.trim())

const SEMVER: Record<string, (c: number) => boolean> = {
  SEMVER_EQ: (c) => c === 0,
  SEMVER_GT: (c) => c > 0,
  SEMVER_LT: (c) => c < 0,
  SEMVER_GTE: (c) => c >= 0,
  SEMVER_LTE: (c) => c <= 0,
}

const NUMBER: Record<string, (a: number, b: number) => boolean> = {
  NUM_EQ: (a, b) => a === b,
  NUM_GT: (a, b) => a > b,
  NUM_GTE: (a, b) => a >= b,
  NUM_LT: (a, b) => a < b,
  NUM_LTE: (a, b) => a <= b,
}

const isValidSemver = (version: string) => Boolean(semver.valid(version)) && !version.startsWith('v')

/** One constraint as a test; its values parsed, cleaned and compiled once. */
export function compileConstraint (c: Constraint): Test {
  const field = c.contextName
  const { operator } = c
  let test: Test
  if (operator === 'IN' || operator === 'NOT_IN') {
    const values = new Set(cleanValues(c.values))
    const wanted = operator === 'IN'
    test = (e) => {
      const v = resolveContextValue(e.context, field)
      return (v !== undefined && values.has(v)) === wanted
    }
  } else if (operator === 'STR_STARTS_WITH' || operator === 'STR_ENDS_WITH' || operator === 'STR_CONTAINS') {
    const insensitive = Boolean(c.caseInsensitive)
    const values = cleanValues(c.values).map((v) => (insensitive ? v.toLocaleLowerCase() : v))
    const matches =
      operator === 'STR_STARTS_WITH' ? (s: string, v: string) => s.startsWith(v) : operator === 'STR_ENDS_WITH' ? (s: string, v: string) => s.endsWith(v) : (s: string, v: string) => s.includes(v)
    test = (e) => {
      let v = resolveContextValue(e.context, field)
      if (v === undefined) return false
      if (insensitive) v = v.toLocaleLowerCase()
      for (const value of values) if (matches(v, value)) return true
      return false
    }
  } else if (operator in NUMBER) {
    const compare = NUMBER[operator]!
    const value = Number(c.value)
    test = Number.isNaN(value)
      ? never
      : (e) => {
          const v = Number(resolveContextValue(e.context, field))
          return !Number.isNaN(v) && compare(v, value)
        }
  } else if (operator === 'DATE_AFTER' || operator === 'DATE_BEFORE') {
    const value = new Date(c.value as string).getTime()
    test = operator === 'DATE_AFTER' ? (e) => e.time() > value : (e) => e.time() < value
  } else if (operator in SEMVER) {
    const holds = SEMVER[operator]!
    const value = semver.valid(c.value ?? '') === null ? undefined : new semver.SemVer(c.value as string)
    test = value === undefined
      ? never
      : (e) => {
          const v = resolveContextValue(e.context, field)
          if (!v || !isValidSemver(v)) return false
          return holds(semver.compare(v, value))
        }
  } else if (operator === 'REGEX') {
    let regex: RE2JS | undefined
    try {
      regex = RE2JS.compile(c.value as string, c.caseInsensitive ? RE2JS.CASE_INSENSITIVE : undefined)
    } catch {
      regex = undefined
    }
    const compiled = regex
    test = compiled === undefined
      ? never
      : (e) => {
          const v = resolveContextValue(e.context, field)
          if (v === undefined) return false
          try {
            return compiled.matcher(v).find()
          } catch {
            return false
          }
        }
  } else if (operator === 'IN_CIDR') {
    const ranges = cleanValues(c.values).map((range) => {
      const v4 = Address4.isValid(range) ? new Address4(range) : undefined
      const v6 = Address6.isValid(range) ? new Address6(range) : undefined
      return { v4, v6, v4Form: v4?.correctForm(), v6Form: v6?.correctForm() }
    })
    test = (e) => {
      const v = resolveContextValue(e.context, field)
      if (v === undefined) return false
      const address = e.address(v)
      if (address === null) return false
      const form = address.correctForm()
      if (address instanceof Address4) return ranges.some((r) => r.v4 !== undefined && (form === r.v4Form || address.isInSubnet(r.v4)))
      return ranges.some((r) => r.v6 !== undefined && (form === r.v6Form || address.isInSubnet(r.v6)))
    }
  } else {
    // An operator the SDK does not know is false, inverted or not.
    return never
  }
  if (c.inverted) {
    const inner = test
    return (e) => !inner(e)
  }
  return test
}

/** What makes two constraints the same test. */
const constraintKey = (c: Constraint) => JSON.stringify([c.contextName, c.operator, c.values ?? null, c.value ?? null, Boolean(c.inverted), Boolean(c.caseInsensitive)])

/**
 * Constraints compiled once per state: a constraint that several strategies have (the same
 * segment, the same rule on several flags) is one test, and its result is kept for the rest of
 * the request in the evaluation's memo (a constraint reads only the context, and the clock read
 * once per request). One that appears once is not memoised (nothing to gain).
 */
export class ConstraintTests {
  readonly #uses = new Map<string, number>()
  readonly #tests = new Map<string, Test>()
  /** Slots of the per-request memo. */
  slots = 0

  count (c: Constraint) {
    const key = constraintKey(c)
    this.#uses.set(key, (this.#uses.get(key) ?? 0) + 1)
  }

  test (c: Constraint): Test {
    const key = constraintKey(c)
    let test = this.#tests.get(key)
    if (test === undefined) {
      const inner = compileConstraint(c)
      if ((this.#uses.get(key) ?? 0) < 2 || inner === never || inner === always) {
        test = inner
      } else {
        const slot = this.slots++
        test = (e) => {
          const memo = e.memo
          if (memo === undefined) return inner(e)
          const kept = memo[slot]
          if (kept !== 0) return kept === 1
          const holds = inner(e)
          memo[slot] = holds ? 1 : 2
          return holds
        }
      }
      this.#tests.set(key, test)
    }
    return test
  }
}

/** All of a strategy's constraints, then those of its segments, in order; a missing segment fails. */
export function compileConstraints (shared: ConstraintTests, constraints: readonly Constraint[], segments: readonly (readonly Constraint[] | undefined)[]): Test {
  const tests: Test[] = []
  for (const c of constraints) tests.push(shared.test(c))
  for (const segment of segments) {
    if (segment === undefined) {
      tests.push(never)
      break
    }
    for (const c of segment) tests.push(shared.test(c))
  }
  if (tests.length === 0) return always
  if (tests.length === 1) return tests[0]!
  return (e) => {
    for (const t of tests) if (!t(e)) return false
    return true
  }
}
