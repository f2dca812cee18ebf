/**
 * Streaming behind relays (BENCH_ONLY=relay-streaming): BENCH_STREAMS (default 1000) raw SSE
 * readers, as the Node SDK's streaming mode reads `/api/client/streaming`, split evenly over two
 * relays (the built server with UPSTREAM_URL) in front of the one server; each change made
 * through the server's admin API, one after another; for each, the time from the acknowledged
 * write to its arrival at every reader (p50, p99, max), through the server's stream to each
 * relay and the relay's to the reader. Target: p99 ≤ 1 s. KB/stream: the two relays' RSS growth.
 */
import http from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Bench } from '../lib/bench.js'
import { stopServer } from '../lib/server.js'
import { startRelay } from './relay.js'
import { call, measure, rawReader, type StreamingRow } from './streaming.js'

export async function relayStreamingScenario ({ target, pid }: Bench): Promise<StreamingRow[]> {
  const run = Date.now()
  const token = await call(target.base, target.headers, 'POST', '/api/admin/api-tokens', { tokenName: `bench-relay-stream-${run}`, type: 'client', environment: 'development' })
  const secret = token.secret as string
  const feature = `bench-relay-stream-${run}`
  await call(target.base, target.headers, 'POST', '/api/admin/projects/default/features', { name: feature })
  const relays = [await startRelay(target.base, [secret]), await startRelay(target.base, [secret])]
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity })
  try {
    // Each relay's stream from the server is open once it is ready; a moment for it to settle.
    await sleep(500)
    const row = await measure(
      'raw SSE readers over two relays in front of one server, writes through the server',
      { ...target, pid },
      target.base,
      feature,
      (i) => rawReader(relays[i % 2]!.base, secret, agent),
      relays.map((r) => r.pid)
    )
    return [row]
  } finally {
    for (const relay of relays) await stopServer(relay.child)
    await call(target.base, target.headers, 'DELETE', `/api/admin/projects/default/features/${feature}`).catch(() => {})
  }
}
