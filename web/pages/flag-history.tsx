import { EventList } from '../components/events'
import type { FeatureDetails } from '../types'

export function FlagHistory ({ feature }: { feature: FeatureDetails }) {
  return (
    <section aria-labelledby='history-heading'>
      <h2 id='history-heading'>History</h2>
      <EventList filter={{ project: feature.project, feature: feature.name }} />
    </section>
  )
}
