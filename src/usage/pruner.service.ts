import { every, type Worker } from '../background/worker.js'
import type { Database } from '../db/types.js'
import { deleteUsage } from './usage.store.js'

/** Instances not seen for this long are forgotten (as Unleash does after two days). */
export const INSTANCE_RETENTION_MS = 48 * 3_600_000
const DAY_MS = 24 * 3_600_000
/** Unknown flags not reported for a day are forgotten (as Unleash does). */
export const UNKNOWN_FLAG_RETENTION_MS = DAY_MS
const PRUNE_EVERY_MS = 3_600_000

/**
 * Deletes usage past its retention: hourly counts older than `retentionDays`, and with them
 * the applications not seen for as long; SDK instances not seen for 48 hours; unknown flags
 * not reported for a day.
 */
export function pruneUsage (db: Database, retentionDays: number, now = new Date()) {
  return deleteUsage(db, new Date(now.getTime() - retentionDays * DAY_MS), new Date(now.getTime() - INSTANCE_RETENTION_MS), new Date(now.getTime() - UNKNOWN_FLAG_RETENTION_MS))
}

/**
 * Prunes usage every hour, on every instance (deleting what another instance already deleted
 * costs nothing), the first time within a minute of start-up, not during it.
 */
export const usagePruner = (db: Database, retentionDays: number, log: { debug(obj: object, msg: string): void; warn(obj: object, msg: string): void }): Worker =>
  every(PRUNE_EVERY_MS, async () => log.debug({ deleted: await pruneUsage(db, retentionDays) }, 'usage pruned'), {
    firstAfterMs: Math.random() * 60_000,
    onError: (err) => log.warn({ err }, 'usage pruning failed; it is tried again in an hour'),
  })
