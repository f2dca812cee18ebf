import { PageHeading, useTitle } from '../../components/page'
import { EventHistory } from '../../features/history/history'

export function HistoryScreen () {
  useTitle('History')
  return (
    <>
      <PageHeading>History</PageHeading>
      <EventHistory />
    </>
  )
}
