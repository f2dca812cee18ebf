import { useInfiniteQuery } from '@tanstack/react-query'
import { Link } from 'wouter'
import { get, seg } from '../api'
import { JsonDiff } from '../components/diff'
import { ErrorAlert, Loading, Time } from '../components/ui'
import type { FeatureDetails, StoredEvent } from '../types'
import { describeEvent } from './events'

export function FlagHistory ({ feature }: { feature: FeatureDetails }) {
  return (
    <section aria-labelledby='history-heading'>
      <h2 id='history-heading'>History</h2>
      <EventList filter={{ project: feature.project, feature: feature.name }} />
    </section>
  )
}

/** Events newest first, a page at a time; each reads as a sentence, with its change on demand. */
export function EventList ({ filter }: { filter: Record<string, string> }) {
  const events = useInfiniteQuery({
    queryKey: ['events', filter],
    initialPageParam: '',
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ ...filter, limit: '50', ...(pageParam ? { cursor: pageParam } : {}) })
      return get<{ events: StoredEvent[]; nextCursor?: string }>(`/api/admin/events?${params}`)
    },
    getNextPageParam: (last) => last.nextCursor,
  })
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
