import { setTimeout as sleep } from 'node:timers/promises'
import pino from 'pino'
import { buildApp } from './app.js'
import { ConfigError, loadConfig } from './config.js'
import { loggerOptions } from './logger.js'
import { openDatabase } from './startup.js'

function readConfig () {
  try {
    return loadConfig()
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message)
      process.exit(1)
    }
    throw error
  }
}

const config = readConfig()
const log = pino(loggerOptions(config.logLevel))
log.debug({ ms: Math.round(performance.now()) }, 'modules loaded')

try {
  const database = await openDatabase(config, log)
  log.debug({ ms: Math.round(performance.now()) }, 'database ready')
  const app = await buildApp(config, { database }, log)
  log.debug({ ms: Math.round(performance.now()) }, 'app built')
  await app.listen({ port: config.port, host: config.host })
  log.info({ startupMs: Math.round(performance.now()), mode: database.mode }, 'ready')

  let closing = false
  const shutdown = async (signal: string) => {
    if (closing) return
    closing = true
    log.info({ signal, delayMs: config.shutdownDelayMs }, 'shutting down: /ready now answers 503')
    // Keep serving for a moment: a load balancer sees /ready fail and stops routing here, and
    // requests already on their way are read before close() drops idle-looking connections.
    app.draining = true
    await sleep(config.shutdownDelayMs)
    log.info('closing: finishing in-flight requests')
    try {
      await app.close()
      await database.db.destroy()
      log.info('stopped')
      process.exit(0)
    } catch (err) {
      log.error({ err }, 'unclean shutdown')
      process.exit(1)
    }
  }
  process.once('SIGTERM', () => { shutdown('SIGTERM') })
  process.once('SIGINT', () => { shutdown('SIGINT') })
} catch (err) {
  log.fatal({ err }, 'start-up failed')
  process.exit(1)
}
