// Labelled form controls over native elements: the browser's own controls carry the keyboard
// and screen-reader behaviour, and a 400's details show at the field they name.
import type { FormEvent, InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react'
import { useId } from 'react'
import type { Option } from '../lib/labels'

interface FieldProps {
  label: string
  hint?: ReactNode
  /** Messages from the API for this field. */
  errors?: string[]
  children: (props: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: true }) => ReactNode
}

/** A label, a control and its hint and errors, tied together for assistive technology. */
export function Field ({ label, hint, errors = [], children }: FieldProps) {
  const id = useId()
  const hintId = `${id}-hint`
  const errorId = `${id}-error`
  const describedBy = [hint ? hintId : '', errors.length ? errorId : ''].filter(Boolean).join(' ')
  return (
    <div className='field'>
      <label htmlFor={id}>{label}</label>
      {children({ id, ...(describedBy ? { 'aria-describedby': describedBy } : {}), ...(errors.length ? { 'aria-invalid': true } : {}) })}
      {hint && <small id={hintId}>{hint}</small>}
      {errors.length > 0 && <small id={errorId} className='field-error'>{errors.join(' ')}</small>}
    </div>
  )
}

/** What every labelled control of a string takes, beside its element's own attributes. */
interface Labelled {
  label: string
  value: string
  onChange: (value: string) => void
  hint?: ReactNode
  errors?: string[]
}

type ControlAttributes<A> = Omit<A, 'onChange' | 'value'> & { value: string; onChange: (e: { target: { value: string } }) => void }

/** A labelled control of a string, drawn by `control` from its element's attributes. */
function labelled<A> (control: (attributes: ControlAttributes<A>) => ReactNode) {
  return function LabelledControl ({ label, value, onChange, hint, errors, ...rest }: Labelled & Omit<A, 'onChange' | 'value'>) {
    return (
      <Field label={label} hint={hint} errors={errors}>
        {(aria) => control({ ...(rest as Omit<A, 'onChange' | 'value'>), ...aria, value, onChange: (e) => onChange(e.target.value) })}
      </Field>
    )
  }
}

export const TextField = labelled<InputHTMLAttributes<HTMLInputElement>>((attributes) => <input {...attributes} />)

export const TextArea = labelled<TextareaHTMLAttributes<HTMLTextAreaElement>>((attributes) => <textarea {...attributes} />)

export const SelectField = labelled<SelectHTMLAttributes<HTMLSelectElement> & { options: Option[] }>(({ options, ...attributes }) => (
  <select {...attributes}>
    {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
  </select>
))

/** A checkbox with its label; `role="switch"` for on/off states that take effect at once. */
export function Check ({ label, checked, onChange, disabled, isSwitch = false, hint }: {
  label: string
  checked: boolean
  onChange: (checked: boolean) => void
  disabled?: boolean
  isSwitch?: boolean
  hint?: ReactNode
}) {
  const id = useId()
  return (
    <div className='check'>
      <label>
        <input
          type='checkbox'
          role={isSwitch ? 'switch' : undefined}
          checked={checked}
          disabled={disabled}
          aria-describedby={hint ? `${id}-hint` : undefined}
          onChange={(e) => onChange(e.target.checked)}
        />
        {label}
      </label>
      {hint && <small id={`${id}-hint`}>{hint}</small>}
    </div>
  )
}

/** One checkbox per choice, for a list of chosen values. */
export function Checks<T extends string | number> ({ choices, chosen, onChange }: {
  choices: { value: T; label: string; hint?: string }[]
  chosen: T[]
  onChange: (chosen: T[]) => void
}) {
  return (
    <>
      {choices.map((c) => (
        <Check key={c.value} label={c.label} hint={c.hint} checked={chosen.includes(c.value)} onChange={(on) => onChange(on ? [...chosen, c.value] : chosen.filter((x) => x !== c.value))} />
      ))}
    </>
  )
}

/** A form's submit handler: the page stays, the work runs. */
export const submitting = (work: () => void) => (e: FormEvent) => {
  e.preventDefault()
  work()
}

/** The end of a dialog's form: Cancel, and the button that submits it (busy while it runs). */
export function FormButtons ({ onCancel, label, busy, disabled = false }: { onCancel: () => void; label: string; busy: boolean; disabled?: boolean }) {
  return (
    <footer>
      <button type='button' className='secondary' onClick={onCancel}>Cancel</button>
      <button type='submit' disabled={disabled || undefined} aria-busy={busy || undefined}>{label}</button>
    </footer>
  )
}

/** The API's messages for a group of controls (a fieldset), under them. */
export function GroupErrors ({ errors }: { errors: string[] }) {
  return errors.length > 0 ? <p className='field-error'>{errors.join(' ')}</p> : null
}
