import type { VariantAnswer } from '../evaluation/variants.js'

export type OfrepValue = boolean | string | number | Record<string, unknown> | unknown[]

export interface OfrepSuccess {
  key: string
  reason: 'TARGETING_MATCH' | 'SPLIT' | 'DISABLED'
  variant: string
  value: OfrepValue
  metadata: Record<string, string | number | boolean>
}

/** A variant payload as an OFREP value: json parsed, number a number, string and csv as they are. */
function payloadValue (payload: { type: string; value: string }): OfrepValue {
  if (payload.type === 'json') {
    try {
      return JSON.parse(payload.value) as Record<string, unknown> | unknown[]
    } catch {
      // Stored json payloads parse (they are validated); a value that did not would be served as it is.
      return payload.value
    }
  }
  if (payload.type === 'number') return Number(payload.value)
  return payload.value
}

/**
 * An evaluation as OFREP answers it. A feature that is off: `false`, reason DISABLED. On, with
 * a variant: the variant's payload converted by its type (json → object or array, number →
 * number, string and csv → string), or the variant's name when it has no payload; reason SPLIT.
 * On, without variants: `true`, reason TARGETING_MATCH.
 */
export function ofrepResult (key: string, evaluation: VariantAnswer, project: string | undefined): OfrepSuccess {
  const metadata: OfrepSuccess['metadata'] = project === undefined ? {} : { project }
  if (!evaluation.feature_enabled) return { key, reason: 'DISABLED', variant: 'disabled', value: false, metadata }
  if (!evaluation.enabled) return { key, reason: 'TARGETING_MATCH', variant: 'enabled', value: true, metadata }
  const value = evaluation.payload === undefined ? evaluation.name : payloadValue(evaluation.payload)
  return { key, reason: 'SPLIT', variant: evaluation.name, value, metadata }
}
