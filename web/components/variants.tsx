// Variants, as environments and strategies both hold them. Weights are per mille in the API
// and percentages on screen; the rule that variable variants share what the fixed ones leave
// is shown as it applies, before anything is saved.
import { ApiProblem } from '../api'
import type { Payload, Variant } from '../types'
import { Field, SelectField, TextField } from './ui'

export interface VariantDraft {
  name: string
  weightType: 'variable' | 'fix'
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

export function draftToVariant (d: VariantDraft): Variant {
  const v: Variant = {
    name: d.name.trim(),
    weight: d.weightType === 'fix' ? Math.round(Number(d.percent) * 10) : d.storedWeight,
    weightType: d.weightType,
    stickiness: d.stickiness.trim() || 'default',
  }
  if (d.payloadType) v.payload = { type: d.payloadType, value: d.payloadValue }
  const overrides = d.overridesText.split('\n').map((line) => line.trim()).filter(Boolean).map((line) => {
    const at = line.indexOf(':')
    return { contextName: (at < 0 ? line : line.slice(0, at)).trim(), values: at < 0 ? [] : line.slice(at + 1).split(',').map((s) => s.trim()).filter(Boolean) }
  })
  if (overrides.length) v.overrides = overrides
  return v
}

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

/** The weights the server will store, in per mille, by the rule the API applies. */
export function distribute (drafts: VariantDraft[]): { weights: number[]; fixedPerMille: number; problem: string | null } {
  const fixedPerMille = drafts.filter((d) => d.weightType === 'fix').reduce((sum, d) => sum + Math.round(Number(d.percent) * 10 || 0), 0)
  const variable = drafts.filter((d) => d.weightType === 'variable').length
  let problem: string | null = null
  if (drafts.length > 0 && variable === 0) problem = 'At least one variant must be variable: variable variants share what the fixed ones leave.'
  else if (fixedPerMille > 1000) problem = `Fixed weights add up to ${fixedPerMille / 10}%, more than 100%.`
  const left = Math.max(0, 1000 - fixedPerMille)
  let seen = 0
  const weights = drafts.map((d) => {
    if (d.weightType === 'fix') return Math.round(Number(d.percent) * 10 || 0)
    const share = Math.floor(left / Math.max(variable, 1)) + (seen < left % Math.max(variable, 1) ? 1 : 0)
    seen++
    return share
  })
  return { weights, fixedPerMille, problem }
}

const PAYLOAD_TYPES = [
  { value: '', label: 'No payload' },
  { value: 'string', label: 'String' },
  { value: 'json', label: 'JSON' },
  { value: 'csv', label: 'CSV' },
  { value: 'number', label: 'Number' },
]

export function VariantsEditor ({ drafts, onChange, error, pathPrefix, stickinessOptions }: {
  drafts: VariantDraft[]
  onChange: (drafts: VariantDraft[]) => void
  error?: unknown
  /** Where these variants are in a request body: '' for the array itself, '/variants' in a strategy. */
  pathPrefix: string
  stickinessOptions: string[]
}) {
  const { weights, problem } = distribute(drafts)
  const update = (i: number, patch: Partial<VariantDraft>) => onChange(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d)))
  return (
    <div className='variants-editor'>
      {drafts.length === 0 && <p className='muted'>No variants.</p>}
      <ol>
        {drafts.map((d, i) => {
          const problems = error instanceof ApiProblem ? error.under(`${pathPrefix}/${i}`) : []
          const payloadIssue = payloadProblem(d.payloadType, d.payloadValue)
          return (
            <li key={i} className='variant'>
              <fieldset>
                <legend>Variant {i + 1}{d.name ? `: ${d.name}` : ''}</legend>
                <div className='grid-3'>
                  <TextField label='Variant name' value={d.name} onChange={(name) => update(i, { name })} required />
                  <SelectField
                    label='Weight type'
                    value={d.weightType}
                    onChange={(weightType) => update(i, { weightType: weightType as VariantDraft['weightType'], percent: d.percent || String(weights[i]! / 10) })}
                    options={[{ value: 'variable', label: 'Variable (shares what is left)' }, { value: 'fix', label: 'Fixed' }]}
                  />
                  {d.weightType === 'fix'
                    ? <TextField label='Weight (%)' inputMode='decimal' value={d.percent} onChange={(percent) => update(i, { percent })} hint='0 to 100, in steps of 0.1' />
                    : <p className='computed'><span className='label'>Weight</span> {(weights[i]! / 10).toFixed(1)}% <small>computed</small></p>}
                </div>
                <div className='grid-3'>
                  <Field label='Stickiness' hint='Which context field keeps a user on the same variant'>
                    {(aria) => (
                      <select {...aria} value={d.stickiness} onChange={(e) => update(i, { stickiness: e.target.value })}>
                        {[...new Set([...stickinessOptions, d.stickiness])].map((s) => <option key={s} value={s}>{s}</option>)}
                      </select>
                    )}
                  </Field>
                  <SelectField label='Payload type' value={d.payloadType} onChange={(payloadType) => update(i, { payloadType: payloadType as VariantDraft['payloadType'] })} options={PAYLOAD_TYPES} />
                  {d.payloadType && (
                    <Field label='Payload' errors={payloadIssue ? [payloadIssue] : []}>
                      {(aria) => <textarea {...aria} rows={2} value={d.payloadValue} onChange={(e) => update(i, { payloadValue: e.target.value })} />}
                    </Field>
                  )}
                </div>
                <Field label='Overrides' hint='One per line: a context field, a colon, values separated by commas (userId: alice, bob). Those users always get this variant.'>
                  {(aria) => <textarea {...aria} rows={2} value={d.overridesText} onChange={(e) => update(i, { overridesText: e.target.value })} />}
                </Field>
                <button type='button' className='secondary outline small' onClick={() => onChange(drafts.filter((_, j) => j !== i))}>Remove variant {d.name || i + 1}</button>
                {problems.length > 0 && <p className='field-error' role='alert'>{problems.join(' ')}</p>}
              </fieldset>
            </li>
          )
        })}
      </ol>
      {drafts.length > 0 && (
        <p className={problem ? 'field-error' : 'muted'} role={problem ? 'alert' : undefined}>
          {problem ?? `Split: ${drafts.map((d, i) => `${d.name || `variant ${i + 1}`} ${(weights[i]! / 10).toFixed(1)}%`).join(', ')}.`}
        </p>
      )}
      <button type='button' className='secondary' onClick={() => onChange([...drafts, newVariantDraft()])}>Add variant</button>
    </div>
  )
}
