import { problem, RuleError } from '../errors.js'
import { TOTAL_WEIGHT, variableShares, type WeightType } from '../vocabulary/weights.js'

interface Weighted {
  weight: number
  weightType: WeightType
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
  const shares = variableShares(fixedSum, variableCount)
  let next = 0
  return variants.map((v) => (v.weightType === 'variable' ? { ...v, weight: shares[next++]! } : { ...v }))
}
