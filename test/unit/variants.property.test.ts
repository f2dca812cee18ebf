import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RuleError } from '../../src/errors.js'
import { applyPatches } from '../../src/variants/json-patch.js'
import type { Variant } from '../../src/variants/variants.schemas.js'
import { validateVariants } from '../../src/variants/variants.js'
import { TOTAL_WEIGHT } from '../../src/vocabulary/weights.js'
import { fuzzRuns, fuzzTimeout, patchOperation as operation, storedVariants } from '../helpers/arbitraries.js'

const limits = { maxVariants: 1000, maxBytes: 1024 * 1024 }

describe('any patch on any valid variants', () => {
  it('yields valid variants following the weight rule, or a rule refusal, never another exception', () => {
    fc.assert(
      fc.property(storedVariants, fc.array(operation, { maxLength: 6 }), (stored, ops) => {
        let result: Variant[]
        try {
          const doc = applyPatches(structuredClone(stored), JSON.stringify(stored).length, ops, { maxItems: 1000, maxBytes: limits.maxBytes })
          result = validateVariants(doc, limits).variants
        } catch (error) {
          expect(error).toBeInstanceOf(RuleError)
          return
        }
        const names = result.map((v) => v.name)
        expect(new Set(names).size).toBe(names.length)
        for (const v of result) {
          expect(Number.isInteger(v.weight)).toBe(true)
          expect(v.weight).toBeGreaterThanOrEqual(0)
          expect(v.weight).toBeLessThanOrEqual(TOTAL_WEIGHT)
          expect(['variable', 'fix']).toContain(v.weightType)
          expect(v.stickiness.length).toBeGreaterThan(0)
        }
        if (result.length > 0) {
          expect(result.some((v) => v.weightType === 'variable')).toBe(true)
          expect(result.reduce((s, v) => s + v.weight, 0)).toBe(TOTAL_WEIGHT)
        }
        // variable weights differ by at most one, larger ones first
        const variable = result.filter((v) => v.weightType === 'variable').map((v) => v.weight)
        for (let i = 1; i < variable.length; i++) {
          const d = (variable[i - 1] ?? 0) - (variable[i] ?? 0)
          expect(d === 0 || d === 1).toBe(true)
        }
      }),
      { numRuns: fuzzRuns(1000) }
    )
  }, fuzzTimeout)
})
