// Variants, as environments and strategies both hold them, with the split shown as the API will
// compute it.
import type { WeightType } from '../../src/vocabulary/weights'
import { ApiProblem } from '../api/client'
import { percent } from '../lib/labels'
import { updateAt } from '../lib/lists'
import { distribute, newVariantDraft, PAYLOAD_OPTIONS, payloadProblem, type VariantDraft } from '../lib/variants'
import { Field, SelectField, TextField } from './form'

const WEIGHT_TYPE_OPTIONS: { value: WeightType; label: string }[] = [{ value: 'variable', label: 'Variable (shares what is left)' }, { value: 'fix', label: 'Fixed' }]

export function VariantsEditor ({ drafts, onChange, error, pathPrefix, stickinessOptions }: {
  drafts: VariantDraft[]
  onChange: (drafts: VariantDraft[]) => void
  error?: unknown
  /** Where these variants are in a request body: '' for the array itself, '/variants' in a strategy. */
  pathPrefix: string
  stickinessOptions: string[]
}) {
  const { weights, problem } = distribute(drafts)
  const update = updateAt(drafts, onChange)
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
                    onChange={(weightType) => update(i, { weightType: weightType as WeightType, percent: d.percent || String(weights[i]! / 10) })}
                    options={WEIGHT_TYPE_OPTIONS}
                  />
                  {d.weightType === 'fix'
                    ? <TextField label='Weight (%)' inputMode='decimal' value={d.percent} onChange={(percent) => update(i, { percent })} hint='0 to 100, in steps of 0.1' />
                    : <p className='computed'><span className='label'>Weight</span> {percent(weights[i]!)} <small>computed</small></p>}
                </div>
                <div className='grid-3'>
                  <StickinessField label='Stickiness' hint='Which context field keeps a user on the same variant' value={d.stickiness} options={stickinessOptions} onChange={(stickiness) => update(i, { stickiness })} />
                  <SelectField label='Payload type' value={d.payloadType} onChange={(payloadType) => update(i, { payloadType: payloadType as VariantDraft['payloadType'] })} options={PAYLOAD_OPTIONS} />
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
          {problem ?? `Split: ${drafts.map((d, i) => `${d.name || `variant ${i + 1}`} ${percent(weights[i]!)}`).join(', ')}.`}
        </p>
      )}
      <button type='button' className='secondary' onClick={() => onChange([...drafts, newVariantDraft()])}>Add variant</button>
    </div>
  )
}

/** A stickiness picker: the fields offered, and the current one even when it is not offered. */
export function StickinessField ({ label, hint, value, options, onChange, errors }: {
  label: string
  hint: string
  value: string
  options: string[]
  onChange: (value: string) => void
  errors?: string[]
}) {
  return (
    <Field label={label} hint={hint} errors={errors}>
      {(aria) => (
        <select {...aria} value={value} onChange={(e) => onChange(e.target.value)}>
          {[...new Set([...options, value])].map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
      )}
    </Field>
  )
}
