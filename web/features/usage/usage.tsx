import { useState } from 'react'
import type { FeatureDetails } from '../../api/types'
import { QueryStatus } from '../../components/feedback'
import { SelectField } from '../../components/form'
import { useFlagUsage } from './api'
import { describeUsage, PERIODS, usageByEnvironment } from './series'
import { UsagePlot } from './usage-plot'

/** How often SDKs evaluated the flag, per environment: yes and no per hour over a period, and who evaluated it. */
export function FlagUsage ({ feature }: { feature: FeatureDetails }) {
  const [hours, setHours] = useState<number>(48)
  const usage = useFlagUsage(feature.name, hours)
  const period = PERIODS.find((p) => p.hours === hours)!.label
  const environments = usageByEnvironment(usage.data?.data ?? [])
  return (
    <section aria-labelledby='usage-heading' className='usage'>
      <h2 id='usage-heading'>Usage</h2>
      <SelectField
        label='Period'
        value={String(hours)}
        onChange={(value) => setHours(Number(value))}
        options={PERIODS.map((p) => ({ value: String(p.hours), label: p.label }))}
      />
      <QueryStatus query={usage} what='Loading the usage' />
      {usage.data && environments.length === 0 && <p>No SDK reported evaluating this flag in the {period.toLowerCase()}.</p>}
      <div className='usage-environments'>
        {environments.map((u) => {
          const words = describeUsage(u, period)
          return (
            <figure key={u.environment}>
              <figcaption>{words}</figcaption>
              <UsagePlot usage={u} label={`Evaluations per hour in ${u.environment}, ${period.toLowerCase()}: yes and no`} />
              <p className='usage-key'><span className='yes'>Yes</span><span className='no'>No</span></p>
            </figure>
          )
        })}
      </div>
    </section>
  )
}
