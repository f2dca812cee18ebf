/**
 * The constraint rules (src/evaluation/constraints.ts): each operator, compiled alone, holds
 * exactly when the official Node SDK (unleash-client) enables a feature whose one strategy has
 * that one constraint; shared constraints are tested once per request; a strategy's
 * constraints compose with its segments'.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { always, Evaluation, never, type Test } from '../../../src/evaluation/context.js'
import { compileConstraint, compileConstraints, type Constraint, ConstraintTests } from '../../../src/evaluation/constraints.js'
import { clientFeature, constraint, requestContexts } from '../../helpers/frontend-arbitraries.js'
import { agreesWithSdk } from '../../helpers/sdk-oracle.js'

const guarded = (name: string, constraints: Constraint[]) => clientFeature({ name, strategies: [{ name: 'default', parameters: {}, constraints, variants: [], segments: [] }] })

describe('compileConstraint answers what unleash-client answers', () => {
  it('for any constraint (every operator, inverted, caseInsensitive, edge values) and any context', async () => {
    let compared = 0
    await fc.assert(
      fc.asyncProperty(fc.array(constraint, { minLength: 1, maxLength: 20 }), requestContexts(10), async (list, requests) => {
        const constraints = list as Constraint[]
        const tests = constraints.map((c) => compileConstraint(c))
        const features = constraints.map((c, i) => guarded(`c${i}`, [c]))
        compared += await agreesWithSdk(features, requests, (i, e) => tests[i]!(e), (answer) => answer.feature_enabled, (i) => constraints[i])
      }),
      { numRuns: 150 }
    )
    expect(compared).toBeGreaterThan(1000)
  }, 60_000)

  it('compares versions with build metadata as the SDK does (precedence ignores the build: 1.2.3+1 equals 1.2.3+4000)', async () => {
    const values = ['1.2.3+4000', '1.2.3-beta.1+build.5', '1.2.3', '1.2.3-beta.1']
    const versions = ['1.2.3', '1.2.3+1', '1.2.3+4000', '1.2.3-beta.1', '1.2.3-beta.1+other', '1.2.3-beta.2', '1.2.4+9', '1.2.2', 'v1.2.3+1']
    const constraints = values.flatMap((value) => ['SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'SEMVER_GTE', 'SEMVER_LTE'].map((operator) => ({ contextName: 'version', operator, value })))
    const tests = constraints.map((c) => compileConstraint(c))
    const features = constraints.map((c, i) => guarded(`build${i}`, [c]))
    const requests = versions.map((version) => ({ fields: { version }, caller: '127.0.0.1', draw: 0.5 }))
    const compared = await agreesWithSdk(features, requests, (i, e) => tests[i]!(e), (answer) => answer.feature_enabled, (i) => constraints[i])
    expect(compared).toBe(constraints.length * versions.length)
    // And what they answer: the build is not compared.
    expect(compileConstraint({ contextName: 'version', operator: 'SEMVER_EQ', value: '1.2.3+4000' })(new Evaluation({ version: '1.2.3+1' }))).toBe(true)
    expect(compileConstraint({ contextName: 'version', operator: 'SEMVER_GT', value: '1.2.3-beta.1+build.5' })(new Evaluation({ version: '1.2.3' }))).toBe(true)
  })

  it.each([
    ['IN trims the listed values and drops empty ones', { contextName: 'userId', operator: 'IN', values: [' a ', ''] }, { userId: 'a' }, true],
    ['NOT_IN holds for a missing field', { contextName: 'userId', operator: 'NOT_IN', values: ['a'] }, {}, true],
    ['STR_CONTAINS compares case-insensitively when asked', { contextName: 'email', operator: 'STR_CONTAINS', values: ['EXAMPLE'], caseInsensitive: true }, { properties: { email: 'a@example.com' } }, true],
    ['NUM_GT reads the empty string as 0', { contextName: 'age', operator: 'NUM_GT', value: '-1' }, { age: '' }, true],
    ['NUM_EQ with a value that is not a number never holds', { contextName: 'age', operator: 'NUM_EQ', value: 'abc' }, { age: 'abc' }, false],
    ['SEMVER_GT refuses a leading v in the context', { contextName: 'version', operator: 'SEMVER_GT', value: '1.0.0' }, { version: 'v2.0.0' }, false],
    ['REGEX that does not compile never holds', { contextName: 'userId', operator: 'REGEX', value: '[' }, { userId: '[' }, false],
    ['IN_CIDR matches an address in the range', { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['10.0.0.0/8'] }, { remoteAddress: '10.1.2.3' }, true],
    ['an unknown operator is false, inverted or not', { contextName: 'userId', operator: 'NOT_AN_OPERATOR', values: ['a'], inverted: true }, { userId: 'b' }, false],
    ['inverted turns the answer', { contextName: 'userId', operator: 'IN', values: ['a'], inverted: true }, { userId: 'a' }, false],
  ])('%s', (_name, c, context, expected) => {
    expect(compileConstraint(c as Constraint)(new Evaluation(context))).toBe(expected)
  })
})

describe('ConstraintTests: a constraint several strategies have is one test, run once per request', () => {
  it('the second use in one evaluation reads the memo, not the context', () => {
    const c = { contextName: 'userId', operator: 'IN', values: ['a'] }
    const shared = new ConstraintTests()
    shared.count(c)
    shared.count({ ...c })
    const test = shared.test(c)
    expect(shared.test({ ...c })).toBe(test)
    expect(shared.slots).toBe(1)
    let reads = 0
    const context = new Proxy({ userId: 'a' } as Record<string, unknown>, {
      get: (target, key) => {
        if (key === 'userId') reads++
        return target[key as string]
      },
    })
    const e = new Evaluation(context, shared.slots)
    expect(test(e)).toBe(true)
    expect(test(e)).toBe(true)
    expect(reads).toBe(1)
    // A new request reads again.
    expect(test(new Evaluation(context, shared.slots))).toBe(true)
    expect(reads).toBe(2)
  })

  it('a constraint used once, and one that reads nothing, take no slot', () => {
    const shared = new ConstraintTests()
    const once = { contextName: 'userId', operator: 'IN', values: ['a'] }
    const unknown = { contextName: 'userId', operator: 'NOT_AN_OPERATOR' }
    shared.count(once)
    shared.count(unknown)
    shared.count(unknown)
    shared.test(once)
    expect(shared.test(unknown)).toBe(never)
    expect(shared.slots).toBe(0)
  })
})

describe('compileConstraints: a strategy\'s constraints, then its segments\'', () => {
  const shared = new ConstraintTests()
  const userIn = (...values: string[]) => ({ contextName: 'userId', operator: 'IN', values })
  const holds = (test: Test, userId: string) => test(new Evaluation({ userId }))

  it('none is always true', () => {
    expect(compileConstraints(shared, [], [])).toBe(always)
  })

  it('every one must hold, the segments\' too', () => {
    const test = compileConstraints(shared, [userIn('a', 'b')], [[userIn('b', 'c')]])
    expect(holds(test, 'a')).toBe(false)
    expect(holds(test, 'b')).toBe(true)
    expect(holds(test, 'c')).toBe(false)
  })

  it('a segment that does not exist fails the strategy', () => {
    expect(holds(compileConstraints(shared, [userIn('a')], [undefined]), 'a')).toBe(false)
    expect(holds(compileConstraints(shared, [], [[], undefined]), 'a')).toBe(false)
  })
})
