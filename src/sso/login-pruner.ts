import { every, type Worker } from '../background/worker.js'
import type { Database } from '../db/types.js'
import { deleteExpiredLogins } from './sso.store.js'

/** Removes the logins whose browser never came back; returns how many. */
export const pruneLogins = (db: Database): Promise<number> => deleteExpiredLogins(db)

/**
 * Removes the expired logins every `everyMs` (one per instance). Expiry never waits for it (a
 * callback checks the login's expiry itself); it only keeps the table small. The deletes are
 * idempotent, so instances may run it at once.
 */
export const loginPruner = (db: Database, onError: (error: unknown) => void, everyMs = 300_000): Worker =>
  every(everyMs, () => pruneLogins(db), { onError })
