import { describe, expect, it } from 'vitest'
import { RuleError } from '../../src/errors.js'
import { distributeWeights } from '../../src/variants/weights.js'

const v = (weightType: 'variable' | 'fix', weight = 0) => ({ weightType, weight })
const weights = (list: { weight: number }[]) => list.map((x) => x.weight)

describe('distributeWeights', () => {
  it.each([
    { name: 'one variable takes everything', input: [v('variable')], out: [1000] },
    {
      name: 'three variable: 334/333/333',
      input: [v('variable'), v('variable'), v('variable')],
      out: [334, 333, 333],
    },
    {
      name: 'fixed 900 + six variable: remainder to the first ones',
      input: [v('fix', 900), ...Array.from({ length: 6 }, () => v('variable'))],
      out: [900, 17, 17, 17, 17, 16, 16],
    },
    {
      name: 'fixed 600 + 350 + one variable → 50',
      input: [v('fix', 600), v('fix', 350), v('variable', 999)],
      out: [600, 350, 50],
    },
    {
      name: 'fixed sum 1000 leaves 0 to the variable ones',
      input: [v('variable', 5), v('fix', 1000), v('variable', 7)],
      out: [0, 1000, 0],
    },
    {
      name: 'the remainder follows array order, not names',
      input: [v('fix', 1), v('variable'), v('fix', 2), v('variable')],
      out: [1, 499, 2, 498],
    },
    { name: 'empty stays empty', input: [], out: [] },
  ])('$name', ({ input, out }) => {
    expect(weights(distributeWeights(input))).toEqual(out)
  })

  it('refuses a non-empty list with no variable variant with one detail, as Unleash', () => {
    expect(() => distributeWeights([v('fix', 1000)])).toThrowError('There must be at least one "variable" variant')
    try {
      distributeWeights([v('fix', 1000)])
    } catch (error) {
      expect((error as RuleError).toApiError('/body').details).toEqual([{ path: '/body', message: 'There must be at least one "variable" variant' }])
    }
  })

  it('refuses fixed weights over 1000 with one detail, as Unleash: its sentence, at the variants', () => {
    try {
      distributeWeights([v('fix', 600), v('fix', 401), v('variable')])
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(RuleError)
      const apiError = (error as RuleError).toApiError('/variants')
      expect(apiError.status).toBe(400)
      expect(apiError.details).toEqual([{ path: '/variants', message: 'The traffic distribution total must equal 100%' }])
    }
  })

  it('does not mutate its input', () => {
    const input = [v('variable', 3)]
    distributeWeights(input)
    expect(input).toEqual([v('variable', 3)])
  })
})
