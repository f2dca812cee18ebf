/**
 * Stale flags and a project's health, as Unleash 8.2 computes them. A pure rule: no I/O.
 *
 * A flag is stale when a person marked it so; potentially stale when it is not stale and has
 * lived at least its type's expected lifetime (a type without one never makes flags potentially
 * stale). A project's health is the share of its flags that are neither.
 */
const DAY_MS = 24 * 3_600_000

export interface Aging {
  stale: boolean
  createdAt: Date
  /** Its type's expected lifetime in days; null: none. */
  lifetimeDays: number | null
}

export const isPotentiallyStale = (flag: Aging, now: Date) =>
  !flag.stale && flag.lifetimeDays !== null && now.getTime() - flag.createdAt.getTime() >= flag.lifetimeDays * DAY_MS

/** Unleash's counts: active is every flag not marked stale (potentially stale ones too). */
export function healthCounts (flags: readonly Aging[], now: Date) {
  return {
    potentiallyStaleCount: flags.filter((f) => isPotentiallyStale(f, now)).length,
    activeCount: flags.filter((f) => !f.stale).length,
    staleCount: flags.filter((f) => f.stale).length,
  }
}

/** 100 less the percentages of stale and of potentially stale flags, rounded; 100 without flags. */
export function healthRating (flags: readonly Aging[], now: Date): number {
  const { potentiallyStaleCount, activeCount, staleCount } = healthCounts(flags, now)
  const total = activeCount + staleCount
  if (total === 0) return 100
  return Math.round(100 - (staleCount / total) * 100 - (potentiallyStaleCount / total) * 100)
}

/** Whole days from creation to the first time it was switched on in production (Unleash's lead time). */
export const daysBetween = (from: Date, to: Date) => Math.floor((to.getTime() - from.getTime()) / DAY_MS)

/**
 * The average of whole days to production, with one decimal (0.1 when it rounds to 0 but there
 * are some; 0 when there are none), as Unleash averages them.
 */
export function averageDays (days: readonly number[]): number {
  if (days.length === 0) return 0
  const average = days.reduce((sum, d) => sum + d, 0) / days.length
  return Number(average.toFixed(1)) || 0.1
}
