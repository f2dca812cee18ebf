// What a screen says about a read or a write: still loading, or what went wrong; and times.
import { ApiProblem, messageOf } from '../api/client'

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

/** Relative-free, unambiguous time: people in different time zones read the same words. */
export function Time ({ value }: { value: string | null | undefined }) {
  if (!value) return <span>never</span>
  const date = new Date(value)
  return <time dateTime={value} title={date.toISOString()}>{date.toLocaleString()}</time>
}
