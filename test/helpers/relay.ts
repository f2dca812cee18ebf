import { spawn } from 'node:child_process'
import { createServer, request as httpRequest } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { loadConfig } from '../../src/config.js'
import { buildRelayApp, type RelayApp } from '../../src/relay/relay-app.js'
import { checkContract, recordResponses, type RecordedResponse } from './contract.js'

export interface TestRelay {
  app: RelayApp
  url: string
  responses: RecordedResponse[]
  /** Closes the relay; throws when a response it sent disagrees with its OpenAPI document. */
  close(): Promise<void>
}

/**
 * A relay in this process, listening on a free port, in front of `upstream` (an URL), with
 * `env` on top of test settings (usage sent every 100 ms, polls every second). Resolves once
 * it listens; `ready` waits for its /ready too.
 */
export async function startRelay (upstream: string, env: Record<string, string> = {}, { ready = true, port = 0 } = {}): Promise<TestRelay> {
  const config = loadConfig({ UPSTREAM_URL: upstream, LOG_LEVEL: 'silent', USAGE_FLUSH_MS: '100', REFRESH_INTERVAL: '1', STREAMING_KEEPALIVE_MS: '1000', ...env })
  const app = await buildRelayApp(config, config.relay!)
  const responses = recordResponses(app)
  await app.listen({ port, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  if (ready) await untilRelayReady(url)
  return {
    app,
    url,
    responses,
    async close () {
      const violations = await checkContract(app, responses)
      await app.close()
      if (violations.length > 0) throw new Error(`${violations.length} relay responses disagree with its OpenAPI document:\n${violations.slice(0, 30).join('\n')}`)
    },
  }
}

/** Until the relay at `url` answers /ready with 200 (15 s at most). */
export async function untilRelayReady (url: string, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs
  for (;;) {
    try {
      if ((await fetch(`${url}/ready`)).ok) return
    } catch {}
    if (Date.now() > until) throw new Error(`the relay at ${url} did not become ready within ${timeoutMs} ms`)
    await sleep(50)
  }
}

/** The server (src/server.ts) as a child process on `databaseUrl`, listening on `port`: killed with SIGKILL by `kill`. */
export async function spawnServer (databaseUrl: string, port: number, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', STREAMING_KEEPALIVE_MS: '1000', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exited = once(child, 'exit')
  await untilRelayReady(`http://127.0.0.1:${port}`, 30_000)
  return {
    url: `http://127.0.0.1:${port}`,
    /** kill -9: no shutdown, connections cut. */
    async kill () {
      child.kill('SIGKILL')
      await exited
    },
  }
}

/**
 * A plain HTTP proxy in front of `target` that records every request passing through it (method
 * and path, in arrival order): counts what a relay asks of its upstream, as the upstream sees it.
 * Streams (SSE) pass through as they come.
 */
export async function countingProxy (target: string) {
  const to = new URL(target)
  const seen: { method: string; path: string; at: number }[] = []
  const server = createServer((req, res) => {
    seen.push({ method: req.method!, path: req.url!.split('?')[0]!, at: Date.now() })
    const up = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers)
      answer.pipe(res)
    })
    up.on('error', () => res.destroy())
    res.on('close', () => up.destroy())
    req.pipe(up)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    async close () {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
