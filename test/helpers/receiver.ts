import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { Webhook } from 'standardwebhooks'
import { afterAll } from 'vitest'

/** One request a receiver got. */
export interface Received {
  id: string
  timestamp: string
  signature: string
  headers: IncomingHttpHeaders
  body: string
  /** The secrets (of `receiver.secrets`) whose signature the standardwebhooks package verified. */
  verifiedWith: string[]
  /** When it arrived (performance.now()). */
  at: number
}

/** How a receiver answers its n-th request (0-based): a status, or 'hang' (never answers). */
export type Answer = (request: Received, n: number) => number | 'hang' | { status: number; headers: Record<string, string> }

/**
 * A webhook receiver on loopback: records every request and verifies its signature with the
 * standardwebhooks package against each secret in `secrets` (set them once the webhook exists).
 */
export async function startReceiver (answer: Answer = () => 200) {
  const received: Received[] = []
  const hanging = new Set<ServerResponse>()
  const state = { secrets: [] as string[] }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const header = (name: string) => String(req.headers[name] ?? '')
      const verifiedWith = state.secrets.filter((secret) => {
        try {
          // jsonParse off: a template may render a body that is not JSON.
          new Webhook(secret).verify(body, req.headers as Record<string, string>, { jsonParse: false })
          return true
        } catch {
          return false
        }
      })
      const entry: Received = {
        id: header('webhook-id'),
        timestamp: header('webhook-timestamp'),
        signature: header('webhook-signature'),
        headers: req.headers,
        body,
        verifiedWith,
        at: performance.now(),
      }
      received.push(entry)
      const reply = answer(entry, received.length - 1)
      if (reply === 'hang') {
        hanging.add(res)
        return
      }
      const { status, headers } = typeof reply === 'number' ? { status: reply, headers: {} } : reply
      res.writeHead(status, headers).end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    get secrets () { return state.secrets },
    set secrets (value: string[]) { state.secrets = value },
    /** Resolves once `count` requests arrived; throws after `ms`. */
    async waitFor (count: number, ms = 10_000) {
      const deadline = performance.now() + ms
      while (received.length < count) {
        if (performance.now() > deadline) throw new Error(`receiver got ${received.length} requests, expected ${count}`)
        await sleep(10)
      }
      return received
    },
    async close () {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>

/** Starts receivers for a test file's tests, all closed after the file (call at the top level). */
export function receiversForThisFile () {
  const started: Receiver[] = []
  afterAll(async () => {
    for (const r of started) await r.close()
  })
  return async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args)
    started.push(r)
    return r
  }
}
