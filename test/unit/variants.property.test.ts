import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/errors.js'
import { applyPatches, type Variant, validateVariants } from '../../src/variants/variants.js'
import { TOTAL_WEIGHT } from '../../src/variants/weights.js'

const name = fc.stringMatching(/^[a-z0-9]{1,6}$/)
const weightType = fc.constantFrom('variable', 'fix')

const variantLike = fc.record(
  {
    name,
    weight: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.integer({ min: -5, max: 1200 }), fc.constant('10')),
    weightType,
    stickiness: fc.constantFrom('default', 'userId', ''),
    payload: fc.record({
      type: fc.constantFrom('json', 'csv', 'string', 'number', 'xml'),
      value: fc.constantFrom('{}', '[1]', '12', 'abc', '', '1e3'),
    }),
    overrides: fc.array(fc.record({ contextName: fc.constantFrom('userId', ''), values: fc.array(fc.string()) }), {
      maxLength: 2,
    }),
  },
  { requiredKeys: ['name', 'weight'] }
)

/** Stored variants: always valid, as the service only ever stores validated ones. */
const storedVariants = fc
  .uniqueArray(
    fc.record({ name, weight: fc.integer({ min: 0, max: 300 }), weightType }),
    { selector: (v) => v.name, maxLength: 6 }
  )
  .map((list) => {
    try {
      return validateVariants(list, 1000, '/variants')
    } catch {
      return [] as Variant[]
    }
  })

const pointer = fc.oneof(
  fc.constantFrom('', '/-', '/0', '/1', '/2', '/9', '/0/weight', '/1/name', '/0/payload', '/0/weightType', '/x'),
  fc.nat({ max: 8 }).map((i) => `/${i}`)
)

const operation = fc.oneof(
  fc.record({ op: fc.constant('add' as const), path: pointer, value: fc.oneof(variantLike, fc.anything()) }),
  fc.record({ op: fc.constant('replace' as const), path: pointer, value: fc.oneof(variantLike, fc.integer(), weightType) }),
  fc.record({ op: fc.constant('remove' as const), path: pointer }),
  fc.record({ op: fc.constant('move' as const), from: pointer, path: pointer }),
  fc.record({ op: fc.constant('copy' as const), from: pointer, path: pointer })
)

describe('any patch on any valid variants', () => {
  it('yields valid variants following the weight rule, or a 400, never another exception', () => {
    fc.assert(
      fc.property(storedVariants, fc.array(operation, { maxLength: 6 }), (stored, ops) => {
        let result: Variant[]
        try {
          result = validateVariants(applyPatches(stored, ops), 1000, '/variants')
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError)
          expect((error as ApiError).status).toBe(400)
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
      { numRuns: Number(process.env.FUZZ_RUNS ?? 1000) }
    )
  })
})
