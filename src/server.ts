import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { buildApp } from './app.js'
import { ConfigError, loadConfig } from './config.js'
import { loggerOptions } from './logger.js'
import { buildRelayApp } from './relay/relay-app.js'
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
// Written asynchronously and in batches (4 kB, or every 200 ms at the latest): a request does
// not wait for its log line to reach stdout, and one write carries many lines. Flushed before
// the process exits; a crash loses at most the last 200 ms of lines.
const destination = pino.destination({ sync: false, minLength: 4096, periodicFlush: 200 })
const log = pino(loggerOptions(config.logLevel), destination)
const exit = (code: number) => {
  destination.flushSync()
  process.exit(code)
}
log.debug({ ms: Math.round(performance.now()) }, 'modules loaded')

/** The server's app on its database, or (UPSTREAM_URL set) a relay, with no database at all. */
async function start () {
  const shown = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host
  if (config.relay !== undefined) {
    const app = await buildRelayApp(config, config.relay, log)
    await app.listen({ port: config.port, host: config.host })
    log.info({ startupMs: Math.round(performance.now()), mode: 'relay', upstream: config.relay.upstreamUrl, tokens: config.relay.tokens.length, url: `http://${shown}:${config.port}/` }, `relay listening at http://${shown}:${config.port}/, following ${config.relay.upstreamUrl}`)
    return { app, close: async () => {} }
  }
  const database = await openDatabase(config, log)
  log.debug({ ms: Math.round(performance.now()) }, 'database ready')
  // Beside the bundle: dist/web, written by build.mjs.
  const app = await buildApp(config, { database, uiDir: fileURLToPath(new URL('web', import.meta.url)) }, log)
  log.debug({ ms: Math.round(performance.now()) }, 'app built')
  await app.listen({ port: config.port, host: config.host })
  log.info({ startupMs: Math.round(performance.now()), mode: database.mode, url: `http://${shown}:${config.port}/` }, `ready: the admin UI is at http://${shown}:${config.port}/`)
  return { app, close: () => database.db.destroy() }
}

try {
  const { app, close } = await start()

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
      await close()
      log.info('stopped')
      exit(0)
    } catch (err) {
      log.error({ err }, 'unclean shutdown')
      exit(1)
    }
  }
  process.once('SIGTERM', () => { shutdown('SIGTERM') })
  process.once('SIGINT', () => { shutdown('SIGINT') })
} catch (err) {
  // A setting that cannot be honoured (IMPORT_FILE refused) is one line naming it; anything else is a crash, with its stack.
  if (err instanceof ConfigError) log.fatal(err.message)
  else log.fatal({ err }, 'start-up failed')
  exit(1)
}
