// Modal dialogs: the browser's <dialog> keeps focus inside and closes on Escape.
import type { UseMutationResult } from '@tanstack/react-query'
import { type ReactNode, useEffect, useId, useRef, useState } from 'react'
import { ErrorAlert } from './feedback'
import { FormButtons, submitting } from './form'

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

/**
 * A dialog holding one form: its fields, then what went wrong (the details no field shows:
 * `shownAt` lists the fields that show theirs), then Cancel and the submit button. `done`, once
 * given, takes the form's place (a secret shown once).
 */
export function FormDialog ({ title, open = true, onClose, wide, onSubmit, write, shownAt, submitLabel = 'Save', disabled, done, children }: {
  title: string
  open?: boolean
  onClose: () => void
  wide?: boolean
  onSubmit: () => void
  /** The write the form sends: its refusal and whether it is under way. */
  write: { error: unknown; isPending: boolean }
  shownAt: string[]
  submitLabel?: string
  disabled?: boolean
  done?: ReactNode
  children: ReactNode
}) {
  return (
    <Dialog title={title} open={open} onClose={onClose} wide={wide}>
      {done ?? (
        <form onSubmit={submitting(onSubmit)}>
          {children}
          <ErrorAlert error={write.error} shownAt={shownAt} />
          <FormButtons onCancel={onClose} label={submitLabel} busy={write.isPending} disabled={disabled} />
        </form>
      )}
    </Dialog>
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
 * Asks before removing something: `ask(item)` opens the confirmation, whose button runs the
 * removal (a write from a feature's api.ts); once it succeeded the dialog closes. Closing it
 * forgets a refusal, so the next item's confirmation starts clean. Spread `confirm` on <Confirm>.
 */
export function useConfirmedRemoval<T> (removal: UseMutationResult<unknown, Error, T>) {
  const [item, setItem] = useState<T | null>(null)
  const confirm = {
    open: item !== null,
    onClose: () => {
      setItem(null)
      removal.reset()
    },
    onConfirm: () => {
      if (item !== null) removal.mutate(item, { onSuccess: () => setItem(null) })
    },
    busy: removal.isPending,
    error: removal.error,
  }
  return { item, ask: setItem, confirm }
}
