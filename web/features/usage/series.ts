// A flag's usage as the chart draws it: per environment, yes and no per hour summed over the
// applications that reported it (the API answers a row per hour, environment and application).
import type { UsageRow } from '../../api/types'

export interface EnvironmentUsage {
  environment: string
  /** Each hour's start, in seconds since 1970 (what uPlot plots), oldest first. */
  hours: number[]
  yes: number[]
  no: number[]
  totalYes: number
  totalNo: number
  /** The applications that evaluated it here, by name. */
  applications: string[]
}

/** The rows of a flag's usage, per environment (by name), hours oldest first. */
export function usageByEnvironment (rows: readonly UsageRow[]): EnvironmentUsage[] {
  const byEnvironment = new Map<string, Map<number, { yes: number; no: number }>>()
  const apps = new Map<string, Set<string>>()
  for (const row of rows) {
    const hours = byEnvironment.get(row.environment) ?? new Map<number, { yes: number; no: number }>()
    byEnvironment.set(row.environment, hours)
    const at = Date.parse(row.timestamp) / 1000
    const sum = hours.get(at) ?? { yes: 0, no: 0 }
    sum.yes += row.yes
    sum.no += row.no
    hours.set(at, sum)
    if (row.yes + row.no > 0 && row.appName) {
      const seen = apps.get(row.environment) ?? new Set<string>()
      seen.add(row.appName)
      apps.set(row.environment, seen)
    }
  }
  return [...byEnvironment.keys()].sort().map((environment) => {
    const hours = [...byEnvironment.get(environment)!].sort(([a], [b]) => a - b)
    const yes = hours.map(([, s]) => s.yes)
    const no = hours.map(([, s]) => s.no)
    return {
      environment,
      hours: hours.map(([at]) => at),
      yes,
      no,
      totalYes: yes.reduce((a, b) => a + b, 0),
      totalNo: no.reduce((a, b) => a + b, 0),
      applications: [...(apps.get(environment) ?? [])].sort(),
    }
  })
}

export const PERIODS = [
  { hours: 48, label: 'Last 48 hours' },
  { hours: 168, label: 'Last 7 days' },
  { hours: 720, label: 'Last 30 days' },
] as const

/** A count as a person reads it: 12,345. */
export const count = (n: number) => n.toLocaleString('en')

/** What a chart shows, in words: for its caption and for those who cannot see it. */
export function describeUsage (u: EnvironmentUsage, period: string) {
  const by = u.applications.length === 0 ? '' : `, by ${u.applications.join(', ')}`
  return `${u.environment}: ${count(u.totalYes)} yes and ${count(u.totalNo)} no in the ${period.toLowerCase()}${by}`
}
