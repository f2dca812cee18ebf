/**
 * Streaming (BENCH_ONLY=streaming): BENCH_STREAMS (default 1000) streaming SDKs on the server,
 * each change made through the admin API one after another; for each, the time from the
 * acknowledged write (its HTTP answer) to its arrival at every SDK (p50, p99, max over all
 * arrivals), and the fan-out time (first to last arrival of one change). Three runs: raw SSE
 * readers (the bytes of `unleash-updated` parsed), the official Node SDK (unleash-client
 * 6.12.1, its `changed` event), and raw readers split over two instances on one database with
 * the writes made through the first. Memory per stream: the server's RSS with the streams open
 * minus before, divided by their number. Written to bench/results/streaming-<date>.json.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { InMemStorageProvider, Unleash } from 'unleash-client'
import { freePort } from '../../test/helpers/postgres.js'

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000)
const CHANGES = Number(process.env.BENCH_STREAM_CHANGES ?? 30)

export interface StreamingTarget {
  base: string
  headers: Record<string, string>
  pid: number
}

export interface StreamingRow {
  scenario: string
  streams: number
  changes: number
  /** Time to open every stream and receive its first event. */
  connectMs: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  /** First to last arrival of one change at every stream: median and slowest. */
  fanOutP50Ms: number
  fanOutMaxMs: number
  /** Server RSS growth per open stream. */
  kbPerStream?: number
  missed: number
}

interface Reader {
  /** Arrival times (performance.now()) of the updates after the first event, in order. */
  arrivals: number[]
  close(): void
}

function rssKb (pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
}

/** A second instance of the built server on the same database. */
async function startSecond (databaseUrl: string) {
  const port = await freePort()
  const child = spawn(process.execPath, ['dist/server.js'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the second instance exited with code ${child.exitCode}`)
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ready`)).ok) break
    } catch {
      // not listening yet
    }
    await sleep(20)
  }
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    stop: async () => {
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** A raw SSE reader: resolves once its first event (unleash-connected) arrived. */
export function rawReader (base: string, secret: string, agent: http.Agent): Promise<Reader> {
  return new Promise((resolve, reject) => {
    const arrivals: number[] = []
    let connected = false
    let buffer = ''
    const req = http.get(`${base}/api/client/streaming`, { agent, headers: { authorization: secret, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`stream refused: ${res.statusCode}`))
        res.resume()
        return
      }
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        buffer += chunk
        let end = buffer.indexOf('\n\n')
        while (end >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          if (block.startsWith('event: unleash-updated')) arrivals.push(performance.now())
          else if (block.startsWith('event: unleash-connected') && !connected) {
            connected = true
            resolve({ arrivals, close: () => req.destroy() })
          }
          end = buffer.indexOf('\n\n')
        }
      })
    })
    req.on('error', (error) => { if (!connected) reject(error) })
  })
}

/** The official SDK in streaming mode: resolves once synchronised; each later `changed` is an arrival. */
async function sdkReader (base: string, secret: string, i: number): Promise<Reader> {
  const sdk = new Unleash({
    url: `${base}/api/`,
    appName: `bench-streaming-${i}`,
    customHeaders: { Authorization: secret },
    disableMetrics: true,
    skipInstanceCountWarning: true,
    storageProvider: new InMemStorageProvider(),
    experimentalMode: { type: 'streaming' },
  })
  sdk.on('error', () => {})
  sdk.on('warn', () => {})
  await once(sdk, 'synchronized')
  const arrivals: number[] = []
  sdk.on('changed', () => arrivals.push(performance.now()))
  return { arrivals, close: () => sdk.destroy() }
}

export async function call (base: string, headers: Record<string, string>, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return text ? JSON.parse(text) : undefined
}

const percentile = (sorted: number[], p: number) => sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!
const round = (ms: number) => Math.round(ms * 10) / 10

/** Opens `count` readers, `parallel` at a time. */
async function openAll (count: number, open: (i: number) => Promise<Reader>, parallel = 50): Promise<Reader[]> {
  const readers: Reader[] = []
  for (let i = 0; i < count; i += parallel) {
    readers.push(...(await Promise.all(Array.from({ length: Math.min(parallel, count - i) }, (_, j) => open(i + j)))))
  }
  return readers
}

export async function measure (scenario: string, target: StreamingTarget, writeBase: string, feature: string, open: (i: number) => Promise<Reader>, pids: number[]): Promise<StreamingRow> {
  const rssBefore = pids.reduce((sum, pid) => sum + rssKb(pid), 0)
  const started = performance.now()
  const readers = await openAll(STREAMS, open)
  const connectMs = performance.now() - started
  await sleep(500)
  const rssAfter = pids.reduce((sum, pid) => sum + rssKb(pid), 0)
  const latencies: number[] = []
  const fanOuts: number[] = []
  let missed = 0
  const path = `/api/admin/projects/default/features/${feature}/environments/development`
  for (let k = 0; k < CHANGES; k++) {
    await call(writeBase, target.headers, 'POST', `${path}/${k % 2 === 0 ? 'on' : 'off'}`)
    const acked = performance.now()
    // Wait until every reader has this change (or 10 s).
    const deadline = acked + 10_000
    while (readers.some((r) => r.arrivals.length <= k) && performance.now() < deadline) await sleep(1)
    const times: number[] = []
    for (const r of readers) {
      const at = r.arrivals[k]
      if (at === undefined) missed++
      else times.push(at)
    }
    for (const at of times) latencies.push(Math.max(0, at - acked))
    if (times.length > 0) fanOuts.push(Math.max(...times) - Math.min(...times))
    await sleep(20)
  }
  for (const r of readers) r.close()
  latencies.sort((a, b) => a - b)
  fanOuts.sort((a, b) => a - b)
  return {
    scenario,
    streams: readers.length,
    changes: CHANGES,
    connectMs: Math.round(connectMs),
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(latencies.at(-1) ?? NaN),
    fanOutP50Ms: round(percentile(fanOuts, 50)),
    fanOutMaxMs: round(fanOuts.at(-1) ?? NaN),
    ...(rssAfter > 0 && { kbPerStream: round((rssAfter - rssBefore) / readers.length) }),
    missed,
  }
}

/**
 * The streaming scenarios against `target` (the server of bench/run.ts), then with a second
 * instance started on the same database.
 */
export async function streamingScenarios (target: StreamingTarget, databaseUrl: string): Promise<StreamingRow[]> {
  const token = await call(target.base, target.headers, 'POST', '/api/admin/api-tokens', { tokenName: `bench-stream-${Date.now()}`, type: 'client', environment: 'development' })
  const secret = token.secret as string
  const feature = `bench-stream-${Date.now()}`
  await call(target.base, target.headers, 'POST', '/api/admin/projects/default/features', { name: feature })
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity })
  const rows: StreamingRow[] = []
  rows.push(await measure(`${STREAMS} raw SSE readers, one instance`, target, target.base, feature, () => rawReader(target.base, secret, agent), [target.pid]))
  await sleep(1000)
  rows.push(await measure(`${STREAMS} unleash-client SDKs (changed event), one instance`, target, target.base, feature, (i) => sdkReader(target.base, secret, i), [target.pid]))
  await sleep(1000)
  const second = await startSecond(databaseUrl)
  try {
    rows.push(await measure(`${STREAMS} raw SSE readers over two instances, writes through the first`, target, target.base, feature, (i) => rawReader(i % 2 === 0 ? target.base : second.base, secret, agent), [target.pid, second.pid]))
  } finally {
    await second.stop()
  }
  const file = `bench/results/streaming-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), streams: STREAMS, changes: CHANGES, rows }, null, 2))
  console.log(`streaming: written to ${file}`)
  return rows
}

export function printStreaming (rows: StreamingRow[], title = 'Streaming') {
  console.log(`\n${title}: ${STREAMS} streams, ${CHANGES} changes one after another (ms from the acknowledged write to arrival)`)
  console.table(rows.map((r) => ({
    scenario: r.scenario,
    'connect all ms': r.connectMs,
    'p50 ms': r.p50Ms,
    'p99 ms': r.p99Ms,
    'max ms': r.maxMs,
    'fan-out p50 ms': r.fanOutP50Ms,
    'fan-out max ms': r.fanOutMaxMs,
    'KB/stream': r.kbPerStream ?? '',
    missed: r.missed,
  })))
}
