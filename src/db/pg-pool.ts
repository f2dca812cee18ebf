import type { PostgresPool, PostgresPoolClient } from 'kysely'
import type pg from 'pg'

/**
 * pg.Pool as Kysely's PostgresDialect wants it, with two differences:
 * - a multi-statement script (sent without parameters) yields the result of its last
 *   statement, as PGlite's exec does; pg would return an array, which Kysely cannot read;
 * - a checked-out client whose server goes away between queries emits 'error'; without a
 *   listener that would kill the process. It is reported, and the broken client is
 *   discarded on release instead of going back to the pool.
 */
export class LastResultPool implements PostgresPool {
  constructor (
    readonly pool: pg.Pool,
    private readonly onError: (error: Error) => void
  ) {}

  async connect (): Promise<PostgresPoolClient> {
    const client = await this.pool.connect()
    let broken: Error | undefined
    const onError = (error: Error) => {
      broken = error
      this.onError(error)
    }
    client.on('error', onError)
    const wrapped = {
      query: async (sqlOrCursor: unknown, parameters?: readonly unknown[]) => {
        if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor as never)
        const result: unknown = await client.query(sqlOrCursor, parameters as unknown[])
        return Array.isArray(result) ? result.at(-1) : result
      },
      release: () => {
        client.off('error', onError)
        client.release(broken)
      },
    }
    return wrapped as unknown as PostgresPoolClient
  }

  end (): Promise<void> {
    return this.pool.end()
  }
}
