/**
 * Usage from 10,000 SDKs (BENCH_ONLY=usage): a simulation of SDK instances against one
 * instance of the server, time compressed. Each instance registers once in the first simulated
 * minute, polls the client API with its ETag every 15 simulated seconds and reports metrics
 * (50 features) every 60 simulated seconds, as the official SDKs do by default.
 *
 * It starts a server of its own on the bench database (so that its CPU time and memory are the
 * simulation's alone; its rate limit scaled by the speed-up, so that the same policy holds in
 * compressed time), and measures: database transactions per second (pg_stat_database's
 * xact_commit of the bench database, less what it counts idle), the server's CPU and peak
 * memory, stored usage bytes per byte the SDKs sent, and, after a graceful stop (SIGTERM),
 * that every count sent is stored. Then 1,000-feature reports from new applications, the worst
 * case for stored bytes per byte sent.
 *
 * BENCH_USAGE_SDKS (10000), BENCH_USAGE_SPEEDUP (2: one simulated minute in 30 s),
 * BENCH_USAGE_MINUTES (3 simulated minutes), BENCH_USAGE_TOKENS (20 client tokens, two
 * applications each).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { Pool } from 'undici'
import { freePort } from '../../test/helpers/postgres.js'

const SDKS = Number(process.env.BENCH_USAGE_SDKS ?? 10_000)
const SPEEDUP = Number(process.env.BENCH_USAGE_SPEEDUP ?? 2)
const MINUTES = Number(process.env.BENCH_USAGE_MINUTES ?? 3)
const TOKENS = Number(process.env.BENCH_USAGE_TOKENS ?? 20)
const FEATURES = 200
const PER_REPORT = 50
const BIG_REPORT = 1000
const NEW_APPLICATIONS = 20
const MINUTE_MS = 60_000 / SPEEDUP
const POLL_MS = 15_000 / SPEEDUP
/** PostgreSQL (15 and later) reports a backend's counters within 10 s of its last transaction. */
const STATS_LAG_MS = 11_000
const USAGE_TABLES = ['usage_applications', 'usage_instances', 'usage_counts']

export interface UsageResult {
  scenario: string
  value: number | string
  unit: string
}

interface Context {
  databaseUrl: string
  /** The maintenance database's URL, for pg_stat_database (reading it there counts no transaction in the bench database). */
  serverUrl: string
  secret: string
}

/** CPU time (user + system) of a process in ms, from /proc (USER_HZ 100). */
const cpuMs = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024

async function startServer (ctx: Context, port: number) {
  const child = spawn(process.execPath, ['dist/server.js'], {
    env: {
      ...process.env,
      DATABASE_URL: ctx.databaseUrl,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      // Reports per token per real minute: the default policy, in compressed time.
      CLIENT_USAGE_RATE: String(1000 * SPEEDUP),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the usage server exited with code ${child.exitCode}`)
    try {
      const res = await fetch(`http://127.0.0.1:${port}/ready`)
      await res.text()
      if (res.ok) return child
    } catch {}
    await sleep(20)
  }
}

async function stopServer (child: ChildProcess) {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

async function commits (ctx: Context, database: string): Promise<number> {
  const client = new pg.Client({ connectionString: ctx.serverUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [database])
    return Number(rows[0]?.n ?? 0)
  } finally {
    await client.end()
  }
}

async function usageBytes (ctx: Context): Promise<number> {
  const client = new pg.Client({ connectionString: ctx.databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: string }>(
      'SELECT sum(pg_total_relation_size(t::regclass)) AS n FROM unnest($1::text[]) AS t',
      [USAGE_TABLES]
    )
    return Number(rows[0]?.n ?? 0)
  } finally {
    await client.end()
  }
}

async function storedYes (ctx: Context, prefix: string): Promise<number> {
  const client = new pg.Client({ connectionString: ctx.databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: string | null }>("SELECT sum(yes) AS n FROM usage_counts WHERE feature_name LIKE $1 || '%'", [prefix])
    return Number(rows[0]?.n ?? 0)
  } finally {
    await client.end()
  }
}

export async function usageScenarios (ctx: Context): Promise<UsageResult[]> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const database = new URL(ctx.databaseUrl).pathname.slice(1)
  const child = await startServer(ctx, port)
  const pid = child.pid as number
  const pool = new Pool(base, { connections: 64 })
  const admin = { authorization: ctx.secret, 'content-type': 'application/json' }
  const send = async (method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string) => {
    const res = await pool.request({ method, path, headers, ...(body !== undefined && { body }) })
    const text = await res.body.text()
    return { status: res.statusCode, text, etag: res.headers.etag as string | undefined }
  }
  const ok = async (method: 'GET' | 'POST', path: string, body: unknown) => {
    const res = await send(method, path, admin, JSON.stringify(body))
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`)
    return res.text === '' ? undefined : JSON.parse(res.text)
  }
  const inParallel = async <T>(items: T[], width: number, work: (item: T) => Promise<void>) => {
    let next = 0
    await Promise.all(Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!)
    }))
  }
  const results: UsageResult[] = []
  try {
    // Setup: features, and the client tokens the SDKs use.
    const run = Math.random().toString(36).slice(2, 7)
    const features = Array.from({ length: FEATURES }, (_, i) => `usage-${run}-${String(i).padStart(3, '0')}`)
    await inParallel(features, 8, async (name) => { await ok('POST', '/api/admin/projects/default/features', { name }) })
    const secrets: string[] = []
    for (let t = 0; t < TOKENS; t++) {
      secrets.push((await ok('POST', '/api/admin/api-tokens', { tokenName: `usage-${run}-${t}`, type: 'client', environment: 'development' })).secret)
    }

    // What the server costs the database idle (the webhook dispatcher's polls, among others).
    await sleep(STATS_LAG_MS)
    const idleFrom = await commits(ctx, database)
    const idleStarted = performance.now()
    await sleep(15_000)
    const idleRate = (await commits(ctx, database) - idleFrom) / ((performance.now() - idleStarted) / 1000)

    // First (on usage tables with no free space left by updates, which new rows would fill and
    // hide), 1,000-feature reports from new applications: each stores 1,000 new rows. Names as short
    // as the tests' (12 characters), the worst case for bytes stored per byte sent; bodies as
    // the Node SDK sends them (`variants: {}` on every feature), then without `variants`.
    const big = Array.from({ length: BIG_REPORT }, () => `f${run}${Math.random().toString(16).slice(2, 8)}`)
    await inParallel(big, 8, async (name) => { await ok('POST', '/api/admin/projects/default/features', { name }) })
    const bigSecret = (await ok('POST', '/api/admin/api-tokens', { tokenName: `usage-big-${run}`, type: 'client', environment: 'development' })).secret
    let bigYes = 0
    const newApplications = async (shape: string, withVariants: boolean) => {
      await sleep(6000) // the last flush
      const before = await usageBytes(ctx)
      let sent = 0
      for (let a = 0; a < NEW_APPLICATIONS; a++) {
        const toggles = Object.fromEntries(big.map((name, i) => {
          const c = { yes: 1 + ((a + i) % 50), no: (a * i) % 7 }
          bigYes += c.yes
          return [name, withVariants ? { ...c, variants: {} } : c]
        }))
        const stop = new Date()
        const body = JSON.stringify({ appName: `new-app-${shape}-${a}`, instanceId: `new-${a}`, environment: 'default', sdkVersion: 'unleash-client-node:6.12.1', platformName: 'node', platformVersion: '22.11.0', yggdrasilVersion: null, specVersion: '5.2.0', bucket: { start: new Date(stop.getTime() - 60_000).toISOString(), stop: stop.toISOString(), toggles } })
        sent += Buffer.byteLength(body)
        const res = await send('POST', '/api/client/metrics', { authorization: bigSecret, 'content-type': 'application/json' }, body)
        if (res.status !== 202) throw new Error(`a ${BIG_REPORT}-feature report: ${res.status} ${res.text}`)
      }
      await sleep(6000) // their flush
      results.push({ scenario: `stored usage bytes per byte sent (${BIG_REPORT}-feature reports from ${NEW_APPLICATIONS} new applications, ${shape})`, value: Math.round(((await usageBytes(ctx)) - before) / sent * 100) / 100, unit: '×' })
    }
    await newApplications('as the Node SDK sends them', true)
    await newApplications('without variants', false)

    // The simulation (once the counters show all that came before).
    await sleep(STATS_LAG_MS)
    const bytesBefore = await usageBytes(ctx)
    const from = await commits(ctx, database)
    const cpuFrom = cpuMs(pid)
    let peakRss = rssMb(pid)
    const sampler = setInterval(() => { peakRss = Math.max(peakRss, rssMb(pid)) }, 500)
    const counts = { register: 0, metrics: 0, polls: 0, notModified: 0, failed: 0, sentBytes: 0, sentYes: 0, late: 0 }
    const failures = new Map<string, number>()
    const etags = new Map<string, string>()
    const endAt = MINUTES * MINUTE_MS
    // Every SDK's actions, in time order.
    type Action = { sdk: number; kind: 'register' | 'metrics' | 'poll'; at: number }
    const due: Action[] = []
    for (let sdk = 0; sdk < SDKS; sdk++) {
      const offset = Math.random() * MINUTE_MS
      due.push({ sdk, kind: 'register', at: offset })
      for (let at = offset + POLL_MS; at < endAt; at += POLL_MS) due.push({ sdk, kind: 'poll', at })
      for (let at = offset + MINUTE_MS; at < endAt; at += MINUTE_MS) due.push({ sdk, kind: 'metrics', at })
    }
    due.sort((a, b) => a.at - b.at)
    const tokenOf = (sdk: number) => secrets[sdk % TOKENS]!
    const appOf = (sdk: number) => `app-${sdk % (TOKENS * 2)}`
    const act = async ({ sdk, kind }: Action) => {
      const headers: Record<string, string> = { authorization: tokenOf(sdk), 'content-type': 'application/json' }
      let body: string | undefined
      let yes = 0
      let path = '/api/client/features'
      if (kind === 'register') {
        path = '/api/client/register'
        body = JSON.stringify({ appName: appOf(sdk), instanceId: `instance-${sdk}`, sdkVersion: 'unleash-client-node:6.12.1', strategies: ['default', 'flexibleRollout', 'userWithId'], started: new Date().toISOString(), interval: 60000, platformName: 'node', platformVersion: '22.11.0', yggdrasilVersion: null, specVersion: '5.2.0' })
      } else if (kind === 'metrics') {
        path = '/api/client/metrics'
        const toggles: Record<string, object> = {}
        for (let j = 0; j < PER_REPORT; j++) {
          const feature = features[(sdk * 7 + j) % FEATURES]!
          const y = 1 + ((sdk + j) % 20)
          yes += y
          toggles[feature] = j % 5 === 0 ? { yes: y, no: 3, variants: { red: y, blue: 3 } } : { yes: y, no: 3, variants: {} }
        }
        const stop = new Date()
        body = JSON.stringify({ appName: appOf(sdk), instanceId: `instance-${sdk}`, environment: 'default', sdkVersion: 'unleash-client-node:6.12.1', platformName: 'node', platformVersion: '22.11.0', yggdrasilVersion: null, specVersion: '5.2.0', bucket: { start: new Date(stop.getTime() - 60_000).toISOString(), stop: stop.toISOString(), toggles } })
      } else {
        const etag = etags.get(tokenOf(sdk))
        if (etag) headers['if-none-match'] = etag
        delete headers['content-type']
      }
      if (body !== undefined) counts.sentBytes += Buffer.byteLength(body)
      try {
        const res = await send(kind === 'poll' ? 'GET' : 'POST', path, headers, body)
        if (res.status >= 400) {
          counts.failed++
          failures.set(`${kind} ${res.status}`, (failures.get(`${kind} ${res.status}`) ?? 0) + 1)
          return
        }
        if (kind === 'poll') {
          counts.polls++
          if (res.status === 304) counts.notModified++
          else if (res.etag) etags.set(tokenOf(sdk), res.etag)
        } else {
          counts[kind]++
          counts.sentYes += yes
        }
      } catch (error) {
        counts.failed++
        failures.set(`${kind} ${(error as Error).message}`, (failures.get(`${kind} ${(error as Error).message}`) ?? 0) + 1)
      }
    }
    /** Runs the actions at their times (at most 256 requests in flight; one more than a second late is counted); resolves with the seconds it took. */
    const drive = async (actions: Action[]) => {
      const begun = performance.now()
      const inFlight = new Set<Promise<void>>()
      for (const action of actions) {
        const wait = action.at - (performance.now() - begun)
        if (wait > 5) await sleep(wait)
        else if (wait < -1000) counts.late++
        while (inFlight.size >= 256) await Promise.race(inFlight)
        const p = act(action).finally(() => inFlight.delete(p))
        inFlight.add(p)
      }
      await Promise.all(inFlight)
      return (performance.now() - begun) / 1000
    }
    const seconds = await drive(due)
    const cpu = cpuMs(pid) - cpuFrom
    clearInterval(sampler)
    await sleep(STATS_LAG_MS)
    const transactions = await commits(ctx, database) - from - idleRate * (seconds + STATS_LAG_MS / 1000)
    const bytesAfter = await usageBytes(ctx)
    const reports = counts.register + counts.metrics
    results.push(
      { scenario: `${SDKS} SDKs × ${MINUTES} simulated minutes in ${seconds.toFixed(0)} s (×${SPEEDUP}): registrations accepted`, value: counts.register, unit: 'requests' },
      { scenario: 'metrics reports accepted (50 features each)', value: counts.metrics, unit: 'requests' },
      { scenario: 'polls (of them 304)', value: `${counts.polls} (${counts.notModified})`, unit: 'requests' },
      { scenario: 'refused or failed', value: failures.size === 0 ? 0 : [...failures].map(([k, v]) => `${k}: ${v}`).join(', '), unit: 'requests' },
      { scenario: 'actions started more than 1 s late (the driver could not keep up)', value: counts.late, unit: 'actions' },
      { scenario: 'usage reports per second (registrations + metrics)', value: Math.round(reports / seconds), unit: '/s' },
      { scenario: 'requests per second (with polls)', value: Math.round((reports + counts.polls) / seconds), unit: '/s' },
      { scenario: 'database transactions per second (less idle)', value: Math.round(transactions / seconds * 10) / 10, unit: 'xact/s' },
      { scenario: 'idle database transactions per second (not counted above)', value: Math.round(idleRate * 10) / 10, unit: 'xact/s' },
      { scenario: 'database transactions per usage report', value: Math.round(transactions / reports * 10_000) / 10_000, unit: 'xact' },
      { scenario: 'server CPU (of one core)', value: Math.round(cpu / 10 / seconds), unit: '%' },
      { scenario: 'server CPU per request', value: Math.round(cpu / (reports + counts.polls) * 1000) / 1000, unit: 'ms' },
      { scenario: 'server peak RSS', value: Math.round(peakRss), unit: 'MB' }
    )

    // Control: the same SDKs polling as often for two simulated minutes, reporting nothing:
    // what polling alone costs the database (token lookups, state version reads).
    const control: Action[] = []
    for (let sdk = 0; sdk < SDKS; sdk++) {
      for (let at = Math.random() * POLL_MS; at < 2 * MINUTE_MS; at += POLL_MS) control.push({ sdk, kind: 'poll', at })
    }
    control.sort((a, b) => a.at - b.at)
    const controlFrom = await commits(ctx, database)
    const controlSeconds = await drive(control)
    await sleep(STATS_LAG_MS)
    const controlRate = (await commits(ctx, database) - controlFrom - idleRate * (controlSeconds + STATS_LAG_MS / 1000)) / controlSeconds
    results.push(
      { scenario: 'control: the same SDKs only polling, as often, database transactions per second (less idle)', value: Math.round(controlRate * 10) / 10, unit: 'xact/s' },
      { scenario: 'what usage reports add to it (the simulation less the control)', value: Math.round((transactions / seconds - controlRate) * 10) / 10, unit: 'xact/s' }
    )

    // A graceful stop writes what is pending: 200 more reports, then SIGTERM at once; every
    // accepted count is stored.
    await Promise.all(Array.from({ length: 200 }, (_, sdk) => act({ sdk, kind: 'metrics', at: 0 })))
    await stopServer(child)
    const stored = await storedYes(ctx, `usage-${run}-`)
    const bigStored = await storedYes(ctx, `f${run}`)
    results.push(
      { scenario: 'stored usage bytes per byte sent (the simulation: registrations, then reports updating the same rows)', value: Math.round((bytesAfter - bytesBefore) / counts.sentBytes * 100) / 100, unit: '×' },
      { scenario: 'yes counts sent in accepted reports, less those stored after SIGTERM (0: nothing lost)', value: counts.sentYes + bigYes - stored - bigStored, unit: 'evaluations' }
    )
    return results
  } finally {
    await pool.close()
    if (child.exitCode === null) await stopServer(child)
  }
}

export function printUsage (rows: UsageResult[]) {
  console.log('\nUsage from many SDKs (BENCH_ONLY=usage)')
  console.table(rows.map((r) => ({ scenario: r.scenario, value: r.value, unit: r.unit })))
}
