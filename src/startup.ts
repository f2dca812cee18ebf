import { ensureInitTokens } from './auth/tokens.store.js'
import type { Config } from './config.js'
import { createDatabase, type DatabaseHandle } from './db/database.js'
import { migrate } from './db/migrator.js'

interface Log {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

/**
 * Opens the database (PostgreSQL or embedded), applies pending migrations and init tokens.
 * Refuses to go on when no token exists at all: such a service could not be used.
 */
export async function openDatabase (config: Config, log: Log): Promise<DatabaseHandle> {
  const database = await createDatabase(config, (err) =>
    log.warn({ err }, 'database connection lost; it will be reopened on the next request')
  )
  if (database.mode === 'embedded') {
    log.info(
      { dataDir: config.dataDir },
      'no DATABASE_URL: embedded PGlite database, single process only'
    )
  }
  try {
    const applied = await migrate(database.db)
    if (applied.length > 0) log.info({ applied }, 'migrations applied')
    await ensureInitTokens(database.db, config.initAdminApiTokens)
    const anyToken = await database.db.selectFrom('api_tokens').select('name').limit(1).executeTakeFirst()
    if (!anyToken) {
      // Nobody could ever call the API: say so instead of serving 401s forever.
      throw new Error(
        'No API token exists and INIT_ADMIN_API_TOKENS is empty: set INIT_ADMIN_API_TOKENS to the admin secret you want (with docker compose: ADMIN_API_TOKEN)'
      )
    }
  } catch (error) {
    await database.db.destroy()
    throw error
  }
  return database
}
