import { mkdirSync } from 'node:fs'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { Config } from '../config.js'
import { AdmittingPool } from './pg-pool.js'
import { PGlitePool } from './pglite-pool.js'
import type { DB } from './types.js'

export interface DatabaseHandle {
  db: Kysely<DB>
  /** `postgres` with DATABASE_URL, `embedded` (PGlite, one process only) without. */
  mode: 'postgres' | 'embedded'
  /** Connections in use and idle, and requests waiting for one, for the metrics endpoint. */
  poolStats(): { total: number; idle: number; waiting: number }
}

type DatabaseConfig = Pick<
  Config,
  | 'databaseUrl'
  | 'databasePoolSize'
  | 'databaseConnectTimeoutMs'
  | 'databaseQueueLimit'
  | 'databaseQueueTimeoutMs'
  | 'dataDir'
>

/** PostgreSQL's type id of `json`. Its values stay text: the service stores and serves the text it wrote. */
const JSON_TYPE = 114
const asText = (value: string) => value

export async function createDatabase (
  config: DatabaseConfig,
  onPoolError: (error: Error) => void = () => {}
): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: config.databaseUrl,
      max: config.databasePoolSize,
      // Bounds opening a connection (an unreachable server answers 503 within it); waiting for
      // a free one is bounded by the admission queue instead (see AdmittingPool).
      connectionTimeoutMillis: config.databaseConnectTimeoutMs,
      idleTimeoutMillis: 30_000,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === JSON_TYPE ? asText : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    })
    // An idle client whose server went away emits 'error'; without a listener it kills the process.
    pool.on('error', onPoolError)
    const admitting = new AdmittingPool(
      pool,
      {
        size: config.databasePoolSize,
        queueLimit: config.databaseQueueLimit,
        queueTimeoutMs: config.databaseQueueTimeoutMs,
      },
      onPoolError
    )
    return {
      db: new Kysely<DB>({ dialect: new PostgresDialect({ pool: admitting }) }),
      mode: 'postgres',
      poolStats: () => ({
        total: pool.totalCount,
        idle: pool.idleCount,
        waiting: admitting.stats.waiting,
      }),
    }
  }
  const { PGlite } = await import('@electric-sql/pglite')
  mkdirSync(config.dataDir, { recursive: true })
  const pglite = await PGlite.create(config.dataDir, { parsers: { [JSON_TYPE]: asText } })
  return {
    db: new Kysely<DB>({ dialect: new PostgresDialect({ pool: new PGlitePool(pglite) }) }),
    mode: 'embedded',
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
  }
}
