import { describe, expect, it } from 'vitest'
import type { RuleError } from '../../src/errors.js'
import { canonicalConstraint, constraintProblems } from '../../src/constraints/constraint-rules.js'
import type { Constraint } from '../../src/constraints/constraints.schemas.js'
import { parameterProblems, resolveStrategy, withDefaults } from '../../src/strategies/strategy-rules.js'

const limits = { maxStrategies: 30, maxConstraints: 30, maxConstraintValues: 250, maxValueLength: 100, maxRegexLength: 1000, maxSegments: 5, maxVariants: 1000 }
const problems = (constraints: Constraint[]) => constraintProblems(constraints, limits, '/c').map((p) => p.describe(p.at ?? ''))
const c = (operator: Constraint['operator'], more: Partial<Constraint>): Constraint => ({ contextName: 'x', operator, ...more })

describe('constraintProblems', () => {
  it('accepts what the SDKs evaluate', () => {
    expect(problems([
      c('IN', { values: ['a', 'b'] }),
      c('STR_CONTAINS', { values: ['a'], caseInsensitive: true, inverted: true }),
      c('NUM_GTE', { value: '12.5' }),
      c('NUM_EQ', { value: '-3e2' }),
      c('DATE_AFTER', { value: '2024-02-29T13:00:00.000+02:00' }),
      c('SEMVER_LT', { value: '2.0.0-rc.1' }),
      c('SEMVER_GTE', { value: '1.2.3' }),
      // Build metadata, as Unleash 8.2 accepts it.
      c('SEMVER_EQ', { value: '1.2.3+4000' }),
      c('SEMVER_GT', { value: '1.2.3-beta.1+build.5' }),
      c('REGEX', { value: '^[[:alpha:]]+\\d{2}(?i)x$', caseInsensitive: true }),
      c('IN_CIDR', { values: ['10.0.0.0/8', '192.168.1.42', '2001:db8::/32', '::1'] }),
    ])).toEqual([])
  })

  it('refuses what Unleash refuses, and invalid IN_CIDR values, naming the member', () => {
    expect(problems([c('IN', { values: [] })])).toEqual(['/c/0/values must list at least one value for the operator IN'])
    expect(problems([c('NOT_IN', {})])).toEqual(['/c/0/values must list at least one value for the operator NOT_IN'])
    expect(problems([c('NUM_LT', {})])).toEqual(['/c/0/value is required for the operator NUM_LT'])
    for (const value of ['abc', '0x10', ' 1', '1e999', '']) expect(problems([c('NUM_EQ', { value })]), value).toHaveLength(1)
    for (const value of ['2024-13-45T25:61:61Z', '2024-02-30T10:00:00Z', 'yesterday', '2024-01-01']) expect(problems([c('DATE_BEFORE', { value })]), value).toHaveLength(1)
    for (const value of ['v2.0.0', '2.0', '01.2.3', '1.2.3 ', ' 1.2.3', 'v1.2.3+4000', '1.2.3+', '1.2.3+a..b']) expect(problems([c('SEMVER_EQ', { value })]), value).toHaveLength(1)
    expect(problems([c('REGEX', { value: '(open' })])[0]).toMatch(/^\/c\/0\/value is not a valid RE2 regular expression/)
    expect(problems([c('REGEX', { value: '^(?=a)b$' })])).toHaveLength(1)
    expect(problems([c('REGEX', { value: 'a', inverted: true })])).toEqual(['/c/0/inverted must not be true: a REGEX constraint cannot be inverted (as in Unleash)'])
    expect(problems([c('IN_CIDR', { values: ['10.0.0.0/8', '127.invalid', '10.0.0.0/33', '::1/129'] })])).toEqual([
      '/c/0/values/1 must be an IP address or a CIDR range, such as 10.0.0.0/8 or 2001:db8::/32',
      '/c/0/values/2 must be an IP address or a CIDR range, such as 10.0.0.0/8 or 2001:db8::/32',
      '/c/0/values/3 must be an IP address or a CIDR range, such as 10.0.0.0/8 or 2001:db8::/32',
    ])
  })

  it('allows long patterns for REGEX only', () => {
    expect(problems([c('REGEX', { value: 'a'.repeat(500) })])).toEqual([])
    expect(problems([c('STR_CONTAINS', { values: ['a'] }), c('NUM_EQ', { value: '1'.repeat(101) })])[0]).toMatch(/must NOT have more than 100 characters/)
  })

  it('keeps a constraint as sent: value or values, their order, the flags given', () => {
    expect(canonicalConstraint({ inverted: false, values: ['b', 'a'], operator: 'IN', contextName: 'x' } as Constraint)).toEqual({ contextName: 'x', operator: 'IN', values: ['b', 'a'], inverted: false })
    expect(Object.keys(canonicalConstraint(c('NUM_EQ', { value: '1' })))).toEqual(['contextName', 'operator', 'value'])
  })
})

describe('parameters', () => {
  const declared = [
    { name: 'rollout', type: 'percentage' as const, required: false },
    { name: 'n', type: 'number' as const },
    { name: 'b', type: 'boolean' as const },
    { name: 'ids', type: 'list' as const, required: true },
  ]
  const describe_ = (params: Record<string, string>) => parameterProblems(params, declared).map((p) => p.describe(p.at ?? ''))

  it('checks the declared ones by type and keeps others as sent', () => {
    expect(describe_({ rollout: '0', n: '1.5', b: 'true', ids: 'a,b', other: 'anything' })).toEqual([])
    expect(describe_({ rollout: '150', n: 'x', b: 'yes', ids: '' })).toEqual([
      '/parameters/rollout must be a percentage: an integer from 0 to 100',
      '/parameters/n must be a finite number',
      '/parameters/b must be true or false',
      '/parameters/ids is required by the strategy (a list)',
    ])
    for (const rollout of ['100', '55', '7']) expect(describe_({ rollout, ids: 'a' }), rollout).toEqual([])
    for (const rollout of ['-1', '07', '50.5', '101']) expect(describe_({ rollout, ids: 'a' }), rollout).toHaveLength(1)
  })

  it('gives flexibleRollout its defaults where they are missing or empty, and keeps values as strings', () => {
    expect(withDefaults('flexibleRollout', {}, 'f')).toEqual({ rollout: '100', stickiness: 'default', groupId: 'f' })
    expect(withDefaults('flexibleRollout', { rollout: 20, stickiness: '', groupId: 'g' }, 'f')).toEqual({ rollout: '20', stickiness: 'default', groupId: 'g' })
    expect(withDefaults('default', { flag: true }, 'f')).toEqual({ flag: 'true' })
  })
})

describe('resolveStrategy', () => {
  it('lists every problem of the parameters and constraints in one RuleError', () => {
    try {
      resolveStrategy(
        { name: 'flexibleRollout', title: null, disabled: false, sortOrder: 0, parameters: { rollout: '150' }, constraints: [c('IN', { values: [] })], variants: [], segments: [] },
        { parameters: [{ name: 'rollout', type: 'percentage' }] },
        'f',
        limits
      )
      expect.unreachable()
    } catch (error) {
      expect((error as RuleError).toApiError('/body').details.map((d) => d.path)).toEqual(['/body/parameters/rollout', '/body/constraints/0/values'])
    }
  })
})
