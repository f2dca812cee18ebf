import { mkdirSync } from 'node:fs'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { Config } from '../config.js'
import { LastResultPool } from './pg-pool.js'
import { PGlitePool } from './pglite-pool.js'
import type { DB } from './types.js'

export interface DatabaseHandle {
  db: Kysely<DB>
  /** `postgres` with DATABASE_URL, `embedded` (PGlite, one process only) without. */
  mode: 'postgres' | 'embedded'
  /** Connections in use and idle, for the metrics endpoint. */
  poolStats(): { total: number; idle: number; waiting: number }
}

type DatabaseConfig = Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'dataDir'>

export async function createDatabase (
  config: DatabaseConfig,
  onPoolError: (error: Error) => void = () => {}
): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: config.databaseUrl,
      max: config.databasePoolSize,
      // A request waits at most this long for a connection, then gets 503 instead of hanging.
      connectionTimeoutMillis: 3000,
      idleTimeoutMillis: 30_000,
    })
    // An idle client whose server went away emits 'error'; without a listener it kills the process.
    pool.on('error', onPoolError)
    return {
      db: new Kysely<DB>({
        dialect: new PostgresDialect({ pool: new LastResultPool(pool, onPoolError) }),
      }),
      mode: 'postgres',
      poolStats: () => ({
        total: pool.totalCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
      }),
    }
  }
  const { PGlite } = await import('@electric-sql/pglite')
  mkdirSync(config.dataDir, { recursive: true })
  const pglite = await PGlite.create(config.dataDir)
  return {
    db: new Kysely<DB>({ dialect: new PostgresDialect({ pool: new PGlitePool(pglite) }) }),
    mode: 'embedded',
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
  }
}
