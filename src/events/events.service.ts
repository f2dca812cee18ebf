import type { Transaction } from 'kysely'
import type { Database, DB } from '../db/types.js'
import { insertEvents, type NewEvent } from './events.store.js'

/** What the work of a change gets: its transaction, and where to announce its events. */
export interface Change {
  trx: Transaction<DB>
  /** Announces an event of this change; it is written in the change's transaction, before the commit. */
  record(event: NewEvent): void
}

/**
 * The one way a change is written: `work` runs in a transaction, announces the events of what
 * it changed, and they are inserted in the same transaction just before it commits. So every
 * change a reader can see (admin reads, SDKs, webhooks) has its events exactly when it is
 * committed, and a refusal (anything thrown) writes neither. A change that announces nothing
 * changed nothing readers can see.
 */
export function writeChange<T> (db: Database, work: (change: Change) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const events: NewEvent[] = []
    const result = await work({ trx, record: (event) => { events.push(event) } })
    if (events.length > 0) await insertEvents(trx, events)
    return result
  })
}
