import pino from 'pino'
import { ConfigError, loadConfig } from './config.js'
import { loggerOptions } from './logger.js'
import { openDatabase } from './startup.js'

/** `npm run migrate`: applies pending migrations (and init tokens), then exits. */
try {
  const config = loadConfig()
  const log = pino(loggerOptions(config.logLevel))
  const database = await openDatabase(config, log)
  await database.db.destroy()
  log.info('database is up to date')
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error)
  process.exit(1)
}
