// Small accessible building blocks over native elements (labelled inputs, switches, dialogs,
// alerts): the browser's own controls carry the keyboard and screen-reader behaviour.
import { useMutation } from '@tanstack/react-query'
import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react'
import { ApiProblem, messageOf } from '../api'

/** Sets the page's title (every screen has its own). */
export function useTitle (title: string) {
  useEffect(() => {
    document.title = `${title} · Feature flags`
  }, [title])
}

/** The screen's heading; focused when the screen opens so a screen reader starts there. */
export function PageHeading ({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    ref.current?.focus({ preventScroll: true })
  }, [])
  return (
    <div className='page-heading'>
      <h1 ref={ref} tabIndex={-1}>{children}</h1>
      {actions && <div className='actions'>{actions}</div>}
    </div>
  )
}

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

type InputProps = Omit<React.InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> & {
  label: string
  value: string
  onChange: (value: string) => void
  hint?: ReactNode
  errors?: string[]
}

export function TextField ({ label, value, onChange, hint, errors, ...rest }: InputProps) {
  return (
    <Field label={label} hint={hint} errors={errors}>
      {(aria) => <input {...rest} {...aria} value={value} onChange={(e) => onChange(e.target.value)} />}
    </Field>
  )
}

type TextAreaProps = Omit<React.TextareaHTMLAttributes<HTMLTextAreaElement>, 'onChange' | 'value'> & {
  label: string
  value: string
  onChange: (value: string) => void
  hint?: ReactNode
  errors?: string[]
}

export function TextArea ({ label, value, onChange, hint, errors, ...rest }: TextAreaProps) {
  return (
    <Field label={label} hint={hint} errors={errors}>
      {(aria) => <textarea {...rest} {...aria} value={value} onChange={(e) => onChange(e.target.value)} />}
    </Field>
  )
}

export interface Option { value: string; label: string }

type SelectProps = Omit<React.SelectHTMLAttributes<HTMLSelectElement>, 'onChange' | 'value'> & {
  label: string
  value: string
  options: Option[]
  onChange: (value: string) => void
  hint?: ReactNode
  errors?: string[]
}

export function SelectField ({ label, value, options, onChange, hint, errors, ...rest }: SelectProps) {
  return (
    <Field label={label} hint={hint} errors={errors}>
      {(aria) => (
        <select {...rest} {...aria} value={value} onChange={(e) => onChange(e.target.value)}>
          {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
        </select>
      )}
    </Field>
  )
}

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

/** What went wrong, in an alert: the message, and the details not shown at a field. */
export function ErrorAlert ({ error, shownAt = [] }: { error: unknown; shownAt?: string[] }) {
  if (!error) return null
  const details = error instanceof ApiProblem ? error.elsewhere(shownAt) : []
  const atFields = error instanceof ApiProblem && details.length < error.details.length
  return (
    <div role='alert' className='alert error'>
      <p><strong>{atFields ? 'Please correct the marked fields.' : messageOf(error)}</strong></p>
      {details.length > 0 && !(details.length === 1 && details[0]!.message === messageOf(error)) && (
        <ul>{details.map((d, i) => <li key={i}>{d.path ? <code>{d.path.replace(/^\/body/, '') || '/'}</code> : null} {d.message}</li>)}</ul>
      )}
    </div>
  )
}

/** The messages of an ApiProblem for one field of the request body. */
export const errorsAt = (error: unknown, field: string) => (error instanceof ApiProblem ? error.at(field) : [])

export function Loading ({ what = 'Loading' }: { what?: string }) {
  return <p aria-busy='true'>{what}…</p>
}

/** While a read is under way, says so; when it failed, says why. Nothing once it has answered. */
export function QueryStatus ({ query, what }: { query: { isPending: boolean; error: unknown }; what: string }) {
  if (query.error) return <ErrorAlert error={query.error} />
  return query.isPending ? <Loading what={what} /> : null
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

/** The header cell of a table row: what the row is, and under it a detail in small print. */
export function RowHeader ({ children, detail }: { children: ReactNode; detail?: ReactNode }) {
  return <th scope='row'>{children}{detail ? <><br /><small className='muted'>{detail}</small></> : null}</th>
}

/** A small button in a row of a list or table; `what` completes its name for a screen reader ("Edit beta-testers"). */
export function RowButton ({ children, what, onClick, disabled }: { children: ReactNode; what: string; onClick: () => void; disabled?: boolean }) {
  return (
    <button type='button' className='secondary outline small' onClick={onClick} disabled={disabled}>
      {children}<span className='visually-hidden'> {what}</span>
    </button>
  )
}

/** A modal dialog: the browser's <dialog> keeps focus inside it and closes on Escape. */
export function Dialog ({ title, open, onClose, children, wide = false }: {
  title: string
  open: boolean
  onClose: () => void
  children: ReactNode
  wide?: boolean
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) {
      dialog.showModal()
      // Start at the first field rather than at the close button.
      dialog.querySelector<HTMLElement>('form input:not([type=hidden]):not([disabled]), form select, form textarea')?.focus()
    }
    if (!open && dialog.open) dialog.close()
  }, [open])
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={onClose} onCancel={onClose}>
      {open && (
        <article className={wide ? 'wide' : undefined}>
          <header>
            <button type='button' className='close' aria-label='Close' onClick={onClose}>×</button>
            <h2 id={titleId}>{title}</h2>
          </header>
          {children}
        </article>
      )}
    </dialog>
  )
}

/** Asks before something that cannot simply be undone. */
export function Confirm ({ title, open, onClose, onConfirm, confirmLabel, children, busy, error }: {
  title: string
  open: boolean
  onClose: () => void
  onConfirm: () => void
  confirmLabel: string
  children: ReactNode
  busy?: boolean
  error?: unknown
}) {
  return (
    <Dialog title={title} open={open} onClose={onClose}>
      {children}
      <ErrorAlert error={error} />
      <footer>
        <button type='button' className='secondary' onClick={onClose}>Cancel</button>
        <button type='button' onClick={onConfirm} aria-busy={busy || undefined} disabled={busy}>{confirmLabel}</button>
      </footer>
    </Dialog>
  )
}

/**
 * Asks before removing something: `ask(item)` opens the confirmation, whose button runs
 * `remove(item)`; after it succeeded `removed(item)` runs and the dialog closes. Closing it
 * forgets a refusal, so the next item's confirmation starts clean. Spread `confirm` on <Confirm>.
 */
export function useConfirmedRemoval<T> (remove: (item: T) => Promise<unknown>, removed: (item: T) => Promise<unknown> | void) {
  const [item, setItem] = useState<T | null>(null)
  const mutation = useMutation({
    mutationFn: remove,
    onSuccess: async (_data, done: T) => {
      await removed(done)
      setItem(null)
    },
  })
  const confirm = {
    open: item !== null,
    onClose: () => {
      setItem(null)
      mutation.reset()
    },
    onConfirm: () => {
      if (item !== null) mutation.mutate(item)
    },
    busy: mutation.isPending,
    error: mutation.error,
  }
  return { item, ask: setItem, confirm }
}

/** A secret shown once, with a button that copies it. */
export function SecretOnce ({ label, secret }: { label: string; secret: string }) {
  const [copied, setCopied] = useState(false)
  const id = useId()
  return (
    <div className='secret'>
      <p id={id}><strong>{label}</strong> It is shown only now: copy it somewhere safe.</p>
      <div className='copy-row'>
        <input readOnly value={secret} aria-labelledby={id} onFocus={(e) => e.target.select()} />
        <button
          type='button'
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(secret)
              setCopied(true)
            } catch {
              setCopied(false)
            }
          }}
        >
          Copy
        </button>
      </div>
      <p role='status' className='muted'>{copied ? 'Copied to the clipboard.' : ''}</p>
    </div>
  )
}

/** Relative-free, unambiguous time: people in different time zones read the same words. */
export function Time ({ value }: { value: string | null | undefined }) {
  if (!value) return <span>never</span>
  const date = new Date(value)
  return <time dateTime={value} title={date.toISOString()}>{date.toLocaleString()}</time>
}
