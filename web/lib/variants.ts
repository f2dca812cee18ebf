// Variants as people edit them: weights are per mille in the API and percentages on screen, and
// the split is shown as the API will compute it (the shared rule in src/vocabulary/weights.ts),
// before anything is saved.
import { TOTAL_WEIGHT, variableShares, type WeightType } from '../../src/vocabulary/weights'
import type { Payload, Variant } from '../api/types'
import { commaList, lines } from './lists'

export interface VariantDraft {
  name: string
  weightType: WeightType
  /** Percentage text for fixed variants (e.g. "25" or "12.5"). */
  percent: string
  stickiness: string
  payloadType: '' | Payload['type']
  payloadValue: string
  /** "contextName: a, b" per line */
  overridesText: string
  /** The weight as stored, kept for a variable variant so an unchanged one patches to nothing. */
  storedWeight: number
}

export const variantToDraft = (v: Variant): VariantDraft => ({
  name: v.name,
  weightType: v.weightType,
  percent: String(v.weight / 10),
  stickiness: v.stickiness,
  payloadType: v.payload?.type ?? '',
  payloadValue: v.payload?.value ?? '',
  overridesText: (v.overrides ?? []).map((o) => `${o.contextName}: ${o.values.join(', ')}`).join('\n'),
  storedWeight: v.weight,
})

export const newVariantDraft = (): VariantDraft => ({
  name: '', weightType: 'variable', percent: '', stickiness: 'default', payloadType: '', payloadValue: '', overridesText: '', storedWeight: 0,
})

/** A fixed variant's weight in per mille, from the percentage typed (nothing typed: 0). */
const fixedWeight = (d: VariantDraft) => Math.round(Number(d.percent) * 10 || 0)

export function draftToVariant (d: VariantDraft): Variant {
  const v: Variant = {
    name: d.name.trim(),
    weight: d.weightType === 'fix' ? Math.round(Number(d.percent) * 10) : d.storedWeight,
    weightType: d.weightType,
    stickiness: d.stickiness.trim() || 'default',
  }
  if (d.payloadType) v.payload = { type: d.payloadType, value: d.payloadValue }
  const overrides = lines(d.overridesText).map((line) => {
    const at = line.indexOf(':')
    return { contextName: (at < 0 ? line : line.slice(0, at)).trim(), values: at < 0 ? [] : commaList(line.slice(at + 1)) }
  })
  if (overrides.length) v.overrides = overrides
  return v
}

const PAYLOAD_LABELS: Record<Payload['type'], string> = { string: 'String', json: 'JSON', csv: 'CSV', number: 'Number' }

export const PAYLOAD_OPTIONS = [{ value: '', label: 'No payload' }, ...Object.entries(PAYLOAD_LABELS).map(([value, label]) => ({ value, label }))]

/** What the payload field says about its value, before the API is asked. */
export function payloadProblem (type: VariantDraft['payloadType'], value: string): string | null {
  if (!type) return null
  if (value === '') return 'A payload needs a value.'
  if (type === 'json') {
    try {
      const parsed: unknown = JSON.parse(value)
      if (typeof parsed !== 'object' || parsed === null) return 'JSON payloads must be an object or an array.'
    } catch (error) {
      return `Not valid JSON: ${(error as Error).message}`
    }
  }
  if (type === 'number' && (value.trim() === '' || !Number.isFinite(Number(value)))) return 'Not a number.'
  return null
}

/** The weights the server will store, in per mille, by the rule the API applies; or why it will refuse them. */
export function distribute (drafts: VariantDraft[]): { weights: number[]; fixedPerMille: number; problem: string | null } {
  const fixedPerMille = drafts.filter((d) => d.weightType === 'fix').reduce((sum, d) => sum + fixedWeight(d), 0)
  const variable = drafts.filter((d) => d.weightType === 'variable').length
  let problem: string | null = null
  if (drafts.length > 0 && variable === 0) problem = 'At least one variant must be variable: variable variants share what the fixed ones leave.'
  else if (fixedPerMille > TOTAL_WEIGHT) problem = `Fixed weights add up to ${fixedPerMille / 10}%, more than 100%.`
  const shares = variableShares(fixedPerMille, variable)
  let next = 0
  const weights = drafts.map((d) => (d.weightType === 'fix' ? fixedWeight(d) : shares[next++]!))
  return { weights, fixedPerMille, problem }
}
