/** Variant weights are per mille: all the variants of a feature environment or a strategy add up to this. */
export const TOTAL_WEIGHT = 1000

/** A fixed variant keeps the weight it is given; variable variants share what the fixed ones leave. */
export const WEIGHT_TYPES = ['variable', 'fix'] as const
export type WeightType = (typeof WEIGHT_TYPES)[number]

/**
 * Unleash's traffic rule for the variable variants: they share what is left (the total minus
 * the fixed weights, at least 0) equally, the first ones in order taking the remainder. Returns
 * the weight of each of the `count` variable variants, in order.
 */
export function variableShares (fixedSum: number, count: number): number[] {
  if (count <= 0) return []
  const left = Math.max(0, TOTAL_WEIGHT - fixedSum)
  const share = Math.floor(left / count)
  const remainder = left % count
  return Array.from({ length: count }, (_, i) => share + (i < remainder ? 1 : 0))
}
