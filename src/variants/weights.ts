import { problem, RuleError } from '../errors.js'
import type { WEIGHT_TYPES } from './variants.schemas.js'

export const TOTAL_WEIGHT = 1000

interface Weighted {
  weight: number
  weightType: (typeof WEIGHT_TYPES)[number]
}

/**
 * Unleash's traffic rule: fixed variants keep their weight, variable variants share what is
 * left (1000 minus the fixed sum) equally, the first ones in array order taking the remainder.
 * Returns new objects in the same order. Refusals carry exactly one detail, as Unleash's do:
 * Unleash's sentence (its clients read details[0].message), placed at the variants array.
 */
export function distributeWeights<T extends Weighted> (variants: T[]): T[] {
  if (variants.length === 0) return []
  let variableCount = 0
  let fixedSum = 0
  for (const v of variants) {
    if (v.weightType === 'variable') variableCount++
    else fixedSum += v.weight
  }
  if (variableCount === 0) {
    throw new RuleError('variants', [problem('There must be at least one "variable" variant', '')])
  }
  if (fixedSum > TOTAL_WEIGHT) {
    throw new RuleError('variants', [problem('The traffic distribution total must equal 100%', '')])
  }
  const left = TOTAL_WEIGHT - fixedSum
  const share = Math.floor(left / variableCount)
  let remainder = left % variableCount
  return variants.map((v) => {
    if (v.weightType !== 'variable') return { ...v }
    const extra = remainder > 0 ? 1 : 0
    remainder -= extra
    return { ...v, weight: share + extra }
  })
}
