import type { Transaction } from 'kysely'
import type { Database, DB } from './types.js'

/**
 * Runs `work`'s reads in one snapshot: a REPEATABLE READ, READ ONLY transaction, so that every
 * statement sees the database as it was at the first one, whatever commits meanwhile; a read
 * of several statements (an export, the client state) cannot be torn by a write between them.
 * Nothing can be written through `trx`. PGlite (one session) runs it as PostgreSQL does.
 */
export function readSnapshot<T> (db: Database, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(work)
}
