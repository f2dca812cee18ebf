import { Link } from 'wouter'
import { seg } from '../../api/client'
import type { FeatureDetails } from '../../api/types'
import { ErrorAlert, Loading, Time } from '../../components/feedback'
import { JsonDiff } from '../../components/json-diff'
import { useEvents } from './api'
import { describeEvent } from './sentences'

/** Events newest first, a page at a time; each reads as a sentence, with its change on demand. */
export function EventList ({ filter }: { filter: Record<string, string> }) {
  const events = useEvents(filter)
  if (events.isPending) return <Loading what='Loading the history' />
  if (events.isError) return <ErrorAlert error={events.error} />
  const all = events.data.pages.flatMap((p) => p.events)
  if (all.length === 0) return <p className='muted'>Nothing has happened yet.</p>
  return (
    <>
      <ol className='events'>
        {all.map((event) => (
          <li key={event.id}>
            <p>
              {describeEvent(event, !filter.feature)}
              {!filter.feature && event.project && event.featureName && (
                <> <Link href={`/projects/${seg(event.project)}/features/${seg(event.featureName)}`}>Open {event.featureName}</Link></>
              )}
            </p>
            <small className='muted'><Time value={event.createdAt} /> · {event.type}</small>
            {(event.data !== undefined || event.preData !== undefined) && (
              <details>
                <summary>Show the change<span className='visually-hidden'> of event {event.id}</span></summary>
                <JsonDiff before={event.preData} after={event.data} />
              </details>
            )}
          </li>
        ))}
      </ol>
      {events.hasNextPage && (
        <button type='button' className='secondary' onClick={() => events.fetchNextPage()} aria-busy={events.isFetchingNextPage || undefined}>
          Show older events
        </button>
      )}
    </>
  )
}

/** A flag's own history. */
export function FlagHistory ({ feature }: { feature: FeatureDetails }) {
  return (
    <section aria-labelledby='history-heading'>
      <h2 id='history-heading'>History</h2>
      <EventList filter={{ project: feature.project, feature: feature.name }} />
    </section>
  )
}
