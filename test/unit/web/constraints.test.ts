/** How the UI reads and writes constraints: sentences, drafts and back, the hints. */
import { describe, expect, it } from 'vitest'
import { isListOperator, OPERATORS } from '../../../src/vocabulary/operators'
import type { Constraint } from '../../../web/api/types'
import { describeConstraint, fromDraft, newDraft, OPERATOR_OPTIONS, takesCase, toDraft, valueHint } from '../../../web/lib/constraints'

describe('constraints in the UI', () => {
  it('offers every operator the server accepts, once, each with words', () => {
    expect(OPERATOR_OPTIONS.map((o) => o.value).sort()).toEqual([...OPERATORS].sort())
    expect(OPERATOR_OPTIONS.every((o) => o.label.length > 0 && o.label !== o.value)).toBe(true)
    expect(new Set(OPERATOR_OPTIONS.map((o) => o.label)).size).toBe(OPERATORS.length)
  })

  it('reads a constraint as a sentence', () => {
    expect(describeConstraint({ contextName: 'userId', operator: 'IN', values: ['alice', 'bob'] })).toBe('userId is one of alice, bob')
    expect(describeConstraint({ contextName: 'appVersion', operator: 'SEMVER_GTE', value: '1.2.3' })).toBe('appVersion version at least 1.2.3')
    expect(describeConstraint({ contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@example.com'], inverted: true, caseInsensitive: true }))
      .toBe('email NOT ends with @example.com (ignoring case)')
    expect(describeConstraint({ contextName: 'x', operator: 'NUM_GT' })).toBe('x number greater than ')
  })

  it('sends what the operator reads: values one per line for a list, one trimmed value otherwise', () => {
    const list = { ...newDraft(), contextName: ' userId ', valuesText: ' alice \n\n bob\n', value: 'ignored' }
    expect(fromDraft(list)).toEqual({ contextName: 'userId', operator: 'IN', values: ['alice', 'bob'] })
    const single = { ...newDraft(), operator: 'NUM_GT' as const, valuesText: 'ignored', value: ' 42 ' }
    expect(fromDraft(single)).toEqual({ contextName: 'userId', operator: 'NUM_GT', value: '42' })
  })

  it('sends the switches only when they are on, and case only where it means something', () => {
    expect(fromDraft({ ...newDraft(), inverted: true, caseInsensitive: true })).toEqual({ contextName: 'userId', operator: 'IN', values: [], inverted: true })
    expect(fromDraft({ ...newDraft(), operator: 'STR_CONTAINS', valuesText: 'a', caseInsensitive: true }))
      .toEqual({ contextName: 'userId', operator: 'STR_CONTAINS', values: ['a'], caseInsensitive: true })
  })

  it('gives back what it was given, for every operator', () => {
    for (const operator of OPERATORS) {
      const constraint: Constraint = isListOperator(operator)
        ? { contextName: 'c', operator, values: ['a', 'b'], inverted: true, ...(takesCase(operator) ? { caseInsensitive: true } : {}) }
        : { contextName: 'c', operator, value: 'v', ...(takesCase(operator) ? { caseInsensitive: true } : {}) }
      expect(fromDraft(toDraft(constraint))).toEqual(constraint)
    }
  })

  it('says what a single value looks like', () => {
    expect(valueHint('NUM_EQ')).toMatch(/number/)
    expect(valueHint('DATE_AFTER')).toMatch(/date/)
    expect(valueHint('SEMVER_LT')).toMatch(/version/)
    expect(valueHint('REGEX')).toMatch(/regular expression/)
    expect(valueHint('IN')).toBe('')
  })
})
