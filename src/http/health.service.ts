import type { Database } from '../db/types.js'
import { ApiError } from '../errors.js'
import { pingDatabase } from './health.store.js'

/**
 * Whether the database answers. Every connection in use and the queue full is load, not an
 * outage: the database was reached a moment ago by the requests holding them, and a load
 * balancer that took busy instances out would take them all out at once.
 */
export async function databaseReachable (db: Database): Promise<boolean> {
  try {
    await pingDatabase(db)
    return true
  } catch (error) {
    return error instanceof ApiError && error.errorName === 'TooManyRequestsError'
  }
}
