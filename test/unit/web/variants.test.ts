/** The variants editor's arithmetic: the split it shows is the one the API stores. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TOTAL_WEIGHT, variableShares } from '../../../src/vocabulary/weights'
import type { Variant } from '../../../web/api/types'
import { distribute, draftToVariant, newVariantDraft, payloadProblem, type VariantDraft, variantToDraft } from '../../../web/lib/variants'

const fixed = (percent: string): VariantDraft => ({ ...newVariantDraft(), name: `fixed-${percent}`, weightType: 'fix', percent })
const variable = (name: string): VariantDraft => ({ ...newVariantDraft(), name })

describe('variant weights in the UI', () => {
  it('shares what the fixed variants leave among the variable ones, the first taking the remainder', () => {
    expect(distribute([variable('a'), variable('b'), variable('c')])).toEqual({ weights: [334, 333, 333], fixedPerMille: 0, problem: null })
    expect(distribute([fixed('25'), variable('a'), fixed('12.5'), variable('b')]).weights).toEqual([250, 313, 125, 312])
  })

  it('says why the API would refuse the weights', () => {
    expect(distribute([fixed('50')]).problem).toMatch(/at least one variant must be variable/i)
    expect(distribute([fixed('60'), fixed('50'), variable('a')]).problem).toBe('Fixed weights add up to 110%, more than 100%.')
    expect(distribute([]).problem).toBeNull()
  })

  it('adds up to the total whenever the API would accept the weights (property)', () => {
    const draft = fc.oneof(
      fc.integer({ min: 0, max: 1000 }).map((perMille) => fixed(String(perMille / 10))),
      fc.string().map(variable)
    )
    fc.assert(fc.property(fc.array(draft, { maxLength: 30 }), (drafts) => {
      const { weights, problem } = distribute(drafts)
      expect(weights).toHaveLength(drafts.length)
      if (problem !== null || drafts.length === 0) return
      expect(weights.reduce((sum, w) => sum + w, 0)).toBe(TOTAL_WEIGHT)
      const shares = weights.filter((_, i) => drafts[i]!.weightType === 'variable')
      const fixedSum = weights.filter((_, i) => drafts[i]!.weightType === 'fix').reduce((s, w) => s + w, 0)
      expect(shares).toEqual(variableShares(fixedSum, shares.length))
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1)
    }))
  })

  it('edits a variant as text and gives it back unchanged', () => {
    const stored: Variant = {
      name: 'blue',
      weight: 333,
      weightType: 'variable',
      stickiness: 'userId',
      payload: { type: 'json', value: '{"a":1}' },
      overrides: [{ contextName: 'userId', values: ['alice', 'bob'] }],
    }
    expect(variantToDraft(stored).overridesText).toBe('userId: alice, bob')
    expect(draftToVariant(variantToDraft(stored))).toEqual(stored)
    expect(draftToVariant({ ...variantToDraft(stored), weightType: 'fix', percent: '12.5' }).weight).toBe(125)
    expect(draftToVariant({ ...newVariantDraft(), name: ' x ', stickiness: ' ', overridesText: 'appName\n\n email : a@b.c ,, d ' }))
      .toEqual({ name: 'x', weight: 0, weightType: 'variable', stickiness: 'default', overrides: [{ contextName: 'appName', values: [] }, { contextName: 'email', values: ['a@b.c', 'd'] }] })
  })

  it('checks a payload before the API is asked', () => {
    expect(payloadProblem('', '')).toBeNull()
    expect(payloadProblem('string', '')).toBe('A payload needs a value.')
    expect(payloadProblem('json', '[1]')).toBeNull()
    expect(payloadProblem('json', '1')).toBe('JSON payloads must be an object or an array.')
    expect(payloadProblem('json', '{')).toMatch(/^Not valid JSON: /)
    expect(payloadProblem('number', '4.5')).toBeNull()
    expect(payloadProblem('number', 'four')).toBe('Not a number.')
    expect(payloadProblem('csv', 'a,b')).toBeNull()
  })
})
