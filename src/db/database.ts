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
  /**
   * LISTENs on `channel` on a connection of its own (PostgreSQL: one dedicated client, outside
   * the pool; embedded: the one session), calling `onNotify` for each notification delivered
   * (at the commit of the transaction that sent it). `onLost` is called once if the connection
   * goes away; the caller listens again.
   */
  listen(channel: string, handlers: ListenHandlers): Promise<Listening>
}

export interface ListenHandlers {
  onNotify(): void
  onLost(error: Error): void
}

export interface Listening {
  close(): Promise<void>
}

/** How the dedicated LISTEN connection names itself in pg_stat_activity. */
export const LISTEN_APPLICATION_NAME = 'ffapi-change-feed'

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
      listen: (channel, handlers) => listenOnPostgres(config, channel, handlers),
    }
  }
  const { PGlite } = await import('@electric-sql/pglite')
  mkdirSync(config.dataDir, { recursive: true })
  const pglite = await PGlite.create(config.dataDir, { parsers: { [JSON_TYPE]: asText } })
  const pool = new PGlitePool(pglite)
  return {
    db: new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }),
    mode: 'embedded',
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    listen: async (channel, { onNotify }) => {
      // The one session: LISTEN through the pool (so it never lands inside another's
      // transaction); PGlite reports every notification its session receives, at commit.
      const off = pglite.onNotification((name) => {
        if (name === channel) onNotify()
      })
      const client = await pool.connect()
      try {
        await client.query(`LISTEN ${quoteIdentifier(channel)}`, [])
      } finally {
        client.release()
      }
      return { close: async () => off() }
    },
  }
}

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`

async function listenOnPostgres (config: DatabaseConfig, channel: string, { onNotify, onLost }: ListenHandlers): Promise<Listening> {
  const client = new pg.Client({
    connectionString: config.databaseUrl,
    connectionTimeoutMillis: config.databaseConnectTimeoutMs,
    application_name: LISTEN_APPLICATION_NAME,
    // A server that vanishes without closing the connection is noticed by TCP keep-alive.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  })
  let lost = false
  let closing = false
  const lose = (error: Error) => {
    if (lost || closing) return
    lost = true
    onLost(error)
  }
  client.on('error', lose)
  client.on('end', () => lose(new Error('the LISTEN connection ended')))
  client.on('notification', (message) => {
    if (message.channel === channel) onNotify()
  })
  try {
    await client.connect()
    await client.query(`LISTEN ${quoteIdentifier(channel)}`)
  } catch (error) {
    closing = true
    await client.end().catch(() => {})
    throw error
  }
  return {
    close: async () => {
      closing = true
      await client.end().catch(() => {})
    },
  }
}
