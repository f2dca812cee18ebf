import { type Kysely, sql } from 'kysely'
import pg from 'pg'
import type { DB } from './types.js'

/** A SQL literal; values go into scripts only through this (pg's own escaping). */
export const literal = (value: string | number | null): string =>
  value === null ? 'NULL' : typeof value === 'number' ? String(value) : pg.escapeLiteral(value)

export interface ScriptedTransaction {
  /** The connection, for ordinary Kysely queries inside the transaction. */
  readonly db: Kysely<DB>
  /** Sends `BEGIN` and the script in one round trip; returns the rows of its last statement. */
  begin<R>(script: string): Promise<R[]>
  /** Sends the script and `COMMIT` in one round trip. */
  commit(script: string): Promise<void>
}

/**
 * A transaction on one connection in which the first statements travel with BEGIN and the
 * last ones with COMMIT, as multi-statement scripts (PostgreSQL's simple protocol). The write
 * paths need a lock from the read to the commit; this holds it with two round trips where
 * Kysely's transaction() needs five, which the benchmark shows as the largest cost of a
 * request. A transaction left open (error, or no commit) is rolled back.
 */
export async function scriptedTransaction<T> (
  db: Kysely<DB>,
  work: (tx: ScriptedTransaction) => Promise<T>
): Promise<T> {
  return db.connection().execute(async (conn) => {
    let open = false
    const tx: ScriptedTransaction = {
      db: conn,
      async begin<R>(script: string) {
        open = true
        const result = await sql.raw<R>(`BEGIN; ${script}`).execute(conn)
        return result.rows
      },
      async commit (script: string) {
        await sql.raw(`${script}; COMMIT`).execute(conn)
        open = false
      },
    }
    try {
      return await work(tx)
    } finally {
      if (open) await sql.raw('ROLLBACK').execute(conn).catch(() => {})
    }
  })
}
