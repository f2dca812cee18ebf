import type { Delivery } from '../../api/types'
import { ErrorAlert, QueryStatus, Time } from '../../components/feedback'
import { RowButton, Table } from '../../components/table'
import { useAnnounce } from '../../lib/announce'
import { useDeliveries, useRedeliver } from './api'

/** A webhook's deliveries with their attempts; one that ended may be sent again. */
export function Deliveries ({ id }: { id: string }) {
  const announce = useAnnounce()
  const deliveries = useDeliveries(id)
  const redeliver = useRedeliver(id, { onSuccess: (_r, d) => announce(`Delivery ${d.id} will be sent again`) })
  const all = deliveries.data?.pages.flatMap((p) => p.deliveries) ?? []
  return (
    <section aria-labelledby='deliveries-heading'>
      <h2 id='deliveries-heading'>Deliveries</h2>
      <QueryStatus query={deliveries} what='Loading deliveries' />
      <ErrorAlert error={redeliver.error} />
      {deliveries.data && all.length === 0 && <p className='muted'>Nothing sent yet.</p>}
      {all.length > 0 && (
        <Table
          items={all}
          rowKey={(d) => d.id}
          rowHeader={{ label: 'Event', cell: (d) => d.eventType, detail: (d) => <>event {d.eventId}, <Time value={d.createdAt} /></> }}
          columns={[
            { label: 'State', cell: (d) => <DeliveryState delivery={d} /> },
            { label: 'Attempts', cell: (d) => <Attempts delivery={d} /> },
          ]}
          actions={(d) => d.state !== 'pending' && <RowButton onClick={() => redeliver.mutate(d)} what={`delivery ${d.id}`}>Redeliver</RowButton>}
        />
      )}
      {deliveries.hasNextPage && <button type='button' className='secondary' onClick={() => deliveries.fetchNextPage()}>Show older deliveries</button>}
    </section>
  )
}

function DeliveryState ({ delivery: d }: { delivery: Delivery }) {
  if (d.state === 'pending') return <>Pending{d.nextAttemptAt && <>, next try <Time value={d.nextAttemptAt} /></>}</>
  return <>{d.state === 'delivered' ? 'Delivered' : 'Gave up'}</>
}

function Attempts ({ delivery: d }: { delivery: Delivery }) {
  if (d.attempts.length === 0) return <>None yet</>
  return (
    <details>
      <summary>{d.attempts.length} {d.attempts.length === 1 ? 'attempt' : 'attempts'}<span className='visually-hidden'> for delivery {d.id}</span></summary>
      <ol>
        {d.attempts.map((a) => (
          <li key={a.attempt}>
            <Time value={a.startedAt} />: {a.status === null ? 'no answer' : `HTTP ${a.status}`}
            {a.durationMs !== null && ` in ${a.durationMs} ms`}{a.error && ` (${a.error})`}
          </li>
        ))}
      </ol>
    </details>
  )
}
