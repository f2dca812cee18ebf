import type { PostgresPool, PostgresPoolClient } from 'kysely'
import type pg from 'pg'

/**
 * pg.Pool as Kysely's PostgresDialect wants it, except that a multi-statement script (sent
 * without parameters) yields the result of its last statement, as PGlite's exec does. pg
 * would return an array there, which Kysely cannot read.
 */
export class LastResultPool implements PostgresPool {
  constructor (readonly pool: pg.Pool) {}

  async connect (): Promise<PostgresPoolClient> {
    const client = await this.pool.connect()
    const wrapped = {
      query: async (sqlOrCursor: unknown, parameters?: readonly unknown[]) => {
        if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor as never)
        const result: unknown = await client.query(sqlOrCursor, parameters as unknown[])
        return Array.isArray(result) ? result.at(-1) : result
      },
      release: () => client.release(),
    }
    return wrapped as unknown as PostgresPoolClient
  }

  end (): Promise<void> {
    return this.pool.end()
  }
}
