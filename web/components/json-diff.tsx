// Before and after, line by line: removed lines in <del>, added ones in <ins>, so the change
// is there for screen readers as well as in colour.
import { diffLines } from 'diff'

const pretty = (value: unknown) => (value === undefined ? '' : `${JSON.stringify(value, null, 2)}\n`)

export function JsonDiff ({ before, after }: { before: unknown; after: unknown }) {
  const parts = diffLines(pretty(before), pretty(after))
  if (parts.every((p) => !p.added && !p.removed)) return <p className='muted'>No difference.</p>
  return (
    <pre className='diff' aria-label='Changes, removed lines then added lines'>
      {parts.map((part, i) => {
        if (part.added) return <ins key={i}>{prefix(part.value, '+ ')}</ins>
        if (part.removed) return <del key={i}>{prefix(part.value, '- ')}</del>
        return <span key={i}>{prefix(part.value, '  ')}</span>
      })}
    </pre>
  )
}

const prefix = (text: string, mark: string) => text.replace(/\n$/, '').split('\n').map((line) => `${mark}${line}\n`).join('')
