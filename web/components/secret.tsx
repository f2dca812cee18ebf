import { useId, useState } from 'react'

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

/** What a dialog shows instead of its form once the thing is made: the secret, then Done. */
export function SecretThenDone ({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  return (
    <>
      <SecretOnce label={label} secret={secret} />
      <footer><button type='button' onClick={onDone}>Done</button></footer>
    </>
  )
}
