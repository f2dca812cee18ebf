import type { PGlite } from '@electric-sql/pglite'
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely'

/**
 * Presents one embedded PGlite database as the pool Kysely's PostgresDialect expects.
 * PGlite has a single session, so the pool hands out one client at a time: a transaction
 * holds it until release, and every other query waits its turn.
 */
export class PGlitePool implements PostgresPool {
  #queue: Promise<void> = Promise.resolve()

  constructor (private readonly pglite: PGlite) {}

  connect (): Promise<PostgresPoolClient> {
    let release!: () => void
    const turn = new Promise<void>((resolve) => {
      release = resolve
    })
    const ready = this.#queue.then(() => this.#client(release))
    this.#queue = this.#queue.then(() => turn)
    return ready
  }

  async end (): Promise<void> {
    await this.#queue
    await this.pglite.close()
  }

  #client (release: () => void): PostgresPoolClient {
    const pglite = this.pglite
    const client = {
      async query<R>(sql: string, parameters: readonly unknown[]) {
        // Parameterless statements go through the simple protocol, which allows the
        // multi-statement scripts that migrations are.
        if (parameters.length === 0) {
          const results = await pglite.exec(sql)
          const last = results.at(-1)
          return {
            command: lastCommand(sql),
            rowCount: last?.affectedRows ?? last?.rows.length ?? 0,
            rows: (last?.rows ?? []) as R[],
          } as PostgresQueryResult<R>
        }
        const result = await pglite.query<R>(sql, [...parameters])
        return {
          command: lastCommand(sql),
          rowCount: result.affectedRows ?? result.rows.length,
          rows: result.rows,
        } as PostgresQueryResult<R>
      },
      release,
    }
    return client as PostgresPoolClient
  }
}

function lastCommand (sql: string): PostgresQueryResult<unknown>['command'] {
  const word = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase()
  return (word ?? 'SELECT') as PostgresQueryResult<unknown>['command']
}
