/** A flag's usage as its chart draws it: rows per hour, environment and application, summed per environment. */
import { describe, expect, it } from 'vitest'
import type { UsageRow } from '../../../web/api/types'
import { describeUsage, usageByEnvironment } from '../../../web/features/usage/series'

const row = (environment: string, appName: string, hour: number, yes: number, no: number): UsageRow => ({
  featureName: 'checkout',
  appName,
  environment,
  timestamp: new Date(Date.UTC(2026, 10, 28, hour)).toISOString(),
  yes,
  no,
})
const at = (hour: number) => Date.UTC(2026, 10, 28, hour) / 1000

describe('usage per environment', () => {
  it('sums the applications of each hour, hours oldest first, environments by name', () => {
    const rows = [
      row('production', 'web', 11, 5, 1), row('production', 'mobile', 11, 2, 0),
      row('production', 'web', 10, 0, 0), row('production', 'mobile', 10, 0, 3),
      row('development', 'web', 10, 0, 0), row('development', 'web', 11, 0, 0),
    ]
    const [development, production] = usageByEnvironment(rows)
    expect(production).toEqual({ environment: 'production', hours: [at(10), at(11)], yes: [0, 7], no: [3, 1], totalYes: 7, totalNo: 4, applications: ['mobile', 'web'] })
    // Only zero-filled rows: the hours are there, no application evaluated it.
    expect(development).toEqual({ environment: 'development', hours: [at(10), at(11)], yes: [0, 0], no: [0, 0], totalYes: 0, totalNo: 0, applications: [] })
    expect(usageByEnvironment([])).toEqual([])
  })

  it('says in words what a chart shows', () => {
    const [production] = usageByEnvironment([row('production', 'web', 1, 12_345, 6), row('production', 'api', 2, 0, 1)])
    expect(describeUsage(production!, 'Last 48 hours')).toBe('production: 12,345 yes and 7 no in the last 48 hours, by api, web')
    const [quiet] = usageByEnvironment([row('development', 'web', 1, 0, 0)])
    expect(describeUsage(quiet!, 'Last 7 days')).toBe('development: 0 yes and 0 no in the last 7 days')
  })
})
