import { badData } from '../errors.js'

export const TOTAL_WEIGHT = 1000

interface Weighted {
  weight: number
  weightType: string
}

/**
 * Unleash's traffic rule: fixed variants keep their weight, variable variants share what is
 * left (1000 minus the fixed sum) equally, the first ones in array order taking the remainder.
 * Returns new objects in the same order.
 */
export function distributeWeights<T extends Weighted> (variants: T[]): T[] {
  if (variants.length === 0) return []
  const variableCount = variants.filter((v) => v.weightType === 'variable').length
  if (variableCount === 0) {
    throw badData('There must be at least one "variable" variant')
  }
  const fixedSum = variants.reduce((sum, v) => (v.weightType === 'fix' ? sum + v.weight : sum), 0)
  if (fixedSum > TOTAL_WEIGHT) {
    throw badData('The traffic distribution total must equal 100%', [
      { message: `The fixed weights add up to ${fixedSum}, more than ${TOTAL_WEIGHT}` },
    ])
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
