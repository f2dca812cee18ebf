/**
 * Load benchmark: the compiled server on PostgreSQL, each scenario beside a floor (the same
 * database work issued directly with pg, no HTTP) measured in the same run.
 *
 *   npm run bench
 *
 * Settings: BENCH_SECONDS (per scenario, default 10), BENCH_CONNECTIONS (the 50-feature
 * scenarios, default 20), BENCH_SIZES (the document-size series, default 2,100,400,1000),
 * BENCH_ONLY=series|features|client|frontend|cpu|large|webhooks|people|import|streaming|usage (run one part), BENCH_FRONTEND_SIZES (the
 * frontend scenarios' flag counts, default 100,1000,5000). BENCH_UNLEASH=1: also start Unleash 8.2 on
 * the same PostgreSQL (test/helpers/unleash.ts) and drive it with the same series, side by side, its
 * server CPU time measured as ours; or UNLEASH_URL and UNLEASH_TOKEN (an admin token) name a running one.
 * Unleash's import needs a personal access token: made by the launcher, or UNLEASH_PAT with UNLEASH_URL.
 *
 * PostgreSQL is found as the tests find it (TEST_DATABASE_URL, Testcontainers, local binaries).
 * Prints tables and writes them as JSON under bench/results/.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import autocannon from 'autocannon'
import pg from 'pg'
import { createDatabase, dropDatabase, withClient, withDatabase } from '../test/helpers/database.js'
import { findPostgres, freePort } from '../test/helpers/postgres.js'
import { startUnleash } from '../test/helpers/unleash.js'
import { UNLEASH_VERSION } from '../test/helpers/unleash-install.js'
import { floorWrite } from './floor-transaction.mjs'
import { printStreaming, streamingScenarios } from './streaming.js'
import { printUsage, usageScenarios } from './usage.js'
import { printPace, webhookPaceScenarios } from './webhooks-pace.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARM_UP_SECONDS = 4
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20)
const SIZES = (process.env.BENCH_SIZES ?? '2,100,400,1000').split(',').map(Number)
const ONLY = process.env.BENCH_ONLY
const SERIES_CONNECTIONS = 4
const CLIENT_CONNECTIONS = 50
const FEATURES = 50
const SECRET = 'bench-admin-secret'
const PAYLOAD = 'p'.repeat(100)

interface Row {
  scenario: string
  /** Server CPU time (user + system) per answered request, in milliseconds. */
  cpuMsPerRequest?: number
  reqPerSec: number
  p50Ms: number
  p99Ms: number
  errors: number
  /** The answers counted in `errors`, by status (and `error`, `timeout` for no answer). */
  unexpected?: Record<string, number>
  rssMb?: number
  /** reqPerSec ÷ the mean of the floor measured before and after. */
  ratio?: number
}

interface Target {
  base: string
  headers: Record<string, string>
  /** The server's process, when this machine runs it (CPU time and memory from /proc). */
  pid?: number
}

interface UnleashTarget extends Target {
  /** A personal access token: Unleash refuses admin tokens on its import. */
  pat?: string
  stop(): Promise<void>
  /** A user who may log in (the admin the launcher created, or UNLEASH_ADMIN_USER and UNLEASH_ADMIN_PASSWORD). */
  login?: { username: string; password: string }
}

/** BENCH_UNLEASH=1 starts Unleash on this PostgreSQL, in a database of its own; UNLEASH_URL names a running one. */
async function unleashTarget (serverUrl: string): Promise<UnleashTarget | undefined> {
  if (process.env.UNLEASH_URL) {
    const headers = { authorization: process.env.UNLEASH_TOKEN ?? '', 'content-type': 'application/json' }
    const { UNLEASH_ADMIN_USER: username, UNLEASH_ADMIN_PASSWORD: password } = process.env
    return { base: process.env.UNLEASH_URL, headers, pat: process.env.UNLEASH_PAT, stop: async () => {}, ...(username && password && { login: { username, password } }) }
  }
  if (process.env.BENCH_UNLEASH !== '1') return undefined
  const databaseUrl = await createDatabase(serverUrl, 'unleash_bench')
  try {
    // The same pool size as ours (DATABASE_POOL_SIZE defaults to 20; Unleash's to 4), so that
    // the pool is not what the comparison measures; its limit of 5,000 flags raised, so that it
    // takes the 5,000-flag frontend set (and the whole run's flags).
    const unleash = await startUnleash({ databaseUrl, keepLog: true, env: { DATABASE_POOL_MAX: '20', UNLEASH_FEATURE_FLAGS_LIMIT: '50000' }, log: console.log })
    console.log(`Unleash ${UNLEASH_VERSION} at ${unleash.url}, started in ${unleash.startupMs} ms on a fresh database (log: ${unleash.logFile})`)
    return {
      base: unleash.url,
      headers: unleash.adminHeaders,
      pid: unleash.pid,
      login: unleash.admin,
      pat: ONLY === undefined || ONLY === 'import' ? await unleash.createPersonalAccessToken() : undefined,
      stop: async () => {
        console.log(`Unleash: RSS after the run: ${Math.round(rssMb(unleash.pid))} MB`)
        await unleash.stop()
        await dropDatabase(serverUrl, databaseUrl)
      },
    }
  } catch (error) {
    await dropDatabase(serverUrl, databaseUrl)
    throw error
  }
}

function startServer (databaseUrl: string, port: number, extraArgs: string[] = []) {
  const started = performance.now()
  const child = spawn(process.execPath, [...extraArgs, 'dist/server.js'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      INIT_ADMIN_API_TOKENS: SECRET,
      NODE_ENV: 'production',
      // The webhook scenarios' receivers listen on loopback.
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      // The login timing scenario fails on purpose, many times, from one address.
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '1000000',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '1000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  return { child, started }
}

async function waitReady (port: number, started: number, child?: ChildProcess): Promise<number> {
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`)
    try {
      const res = await fetch(`http://127.0.0.1:${port}/ready`)
      await res.text()
      if (res.ok) return performance.now() - started
    } catch {
      // not listening yet
    }
    await sleep(5)
  }
}

async function stopServer (child: ChildProcess) {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

/** CPU time (user + system) a process has used, in milliseconds, from /proc/<pid>/stat. */
function cpuMs (pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the command name (which may hold spaces) start after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticks = Number(fields[11]) + Number(fields[12])
  return (ticks * 1000) / CLOCK_TICKS
}

/** Clock ticks per second of /proc times (USER_HZ; 100 on Linux). */
const CLOCK_TICKS = 100

function rssMb (pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

async function call (target: Target, method: string, path: string, body?: unknown) {
  const { 'content-type': contentType, ...headers } = target.headers
  const res = await fetch(`${target.base}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': contentType ?? 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
}

const variantsPath = (name: string) =>
  `/api/admin/projects/default/features/${name}/environments/development/variants`

/** A feature with `count` variants whose payloads are PAYLOAD long. */
async function createFeature (target: Target, name: string, count: number) {
  await call(target, 'POST', '/api/admin/projects/default/features', { name })
  const variants = Array.from({ length: count }, (_, i) => ({
    name: `v${String(i).padStart(4, '0')}`,
    weight: 0,
    weightType: 'variable',
    stickiness: 'default',
    payload: { type: 'string', value: PAYLOAD },
  }))
  await call(target, 'PUT', variantsPath(name), variants)
}

/** Archives features a scenario switched on, so that the next scenario's SDKs do not see them. */
async function archive (target: Target, names: string[]) {
  for (const name of names) await call(target, 'DELETE', `/api/admin/projects/default/features/${name}`)
}

/** Drives a target; `next` makes each request, and every one of them is a real change. */
async function load (
  target: Target,
  scenario: string,
  connections: number,
  next: (i: number) => { path: string; method: 'PATCH' | 'POST' | 'GET'; body?: string },
  pid?: number,
  expected: number[] = [200, 201],
  seconds = SECONDS,
  /** Instead of `seconds`: this many requests. */
  amount?: number
): Promise<Row> {
  let counter = 0
  let peakRss = 0
  const cpuBefore = pid === undefined ? undefined : cpuMs(pid)
  const sampler = pid === undefined ? undefined : setInterval(() => { peakRss = Math.max(peakRss, rssMb(pid)) }, 250)
  const result = await autocannon({
    url: target.base,
    connections,
    ...(amount === undefined ? { duration: seconds } : { amount }),
    requests: [
      {
        setupRequest: (req) => {
          const r = next(counter++)
          return { ...req, method: r.method, path: r.path, body: r.body, headers: { ...target.headers } }
        },
      },
    ],
  })
  clearInterval(sampler)
  const unexpected: Record<string, number> = {}
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
    if (!expected.includes(Number(code))) unexpected[code] = (stat as { count?: number }).count ?? 0
  }
  if (result.errors > 0) unexpected.error = result.errors
  if (result.timeouts > 0) unexpected.timeout = result.timeouts
  const answered = Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => expected.includes(Number(code)))
    .reduce((sum, [, stat]) => sum + ((stat as { count?: number }).count ?? 0), 0)
  return {
    scenario,
    ...(pid !== undefined && cpuBefore !== undefined && answered > 0 && {
      cpuMsPerRequest: Number(((cpuMs(pid) - cpuBefore) / answered).toFixed(3)),
    }),
    reqPerSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors:
      result.errors +
      result.timeouts +
      Object.entries(result.statusCodeStats ?? {})
        .filter(([code]) => !expected.includes(Number(code)))
        .reduce((sum, [, stat]) => sum + ((stat as { count?: number }).count ?? 0), 0),
    ...(Object.keys(unexpected).length > 0 && { unexpected }),
    ...(pid !== undefined && { rssMb: Math.round(peakRss) }),
  }
}

/**
 * The floor: what a variants change costs the database, issued directly with pg at the same
 * concurrency: lock the feature and its feature-environment, parse the variants, change one
 * field, write them back, insert the event with data and preData (and move the state version and
 * insert its webhook deliveries), commit: the service's statements.
 */
async function floor (databaseUrl: string, names: string[], connections: number, label: string): Promise<Row> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: connections })
  const latencies: number[] = []
  let errors = 0
  let counter = 0
  const deadline = performance.now() + SECONDS * 1000
  const worker = async () => {
    const client = await pool.connect()
    try {
      while (performance.now() < deadline) {
        const feature = names[counter++ % names.length] as string
        const t0 = performance.now()
        try {
          await floorWrite(client, feature, `f${counter}`)
          latencies.push(performance.now() - t0)
        } catch {
          errors++
        }
      }
    } finally {
      client.release()
    }
  }
  await Promise.all(Array.from({ length: connections }, worker))
  await pool.end()
  latencies.sort((a, b) => a - b)
  const pct = (p: number) => Number((latencies[Math.floor((latencies.length - 1) * p)] ?? 0).toFixed(2))
  return {
    scenario: `floor: same transaction via pg (${label})`,
    reqPerSec: Math.round(latencies.length / SECONDS),
    p50Ms: pct(0.5),
    p99Ms: pct(0.99),
    errors,
  }
}

const patchOne = (i: number) => JSON.stringify([{ op: 'replace', path: '/0/payload/value', value: `v${i}` }])

/** The server scenario between a floor before and one after; its ratio is to their mean. */
async function besideFloor (
  databaseUrl: string,
  names: string[],
  connections: number,
  run: () => Promise<Row>
): Promise<Row[]> {
  const before = await floor(databaseUrl, names, connections, 'before')
  const row = await run()
  const after = await floor(databaseUrl, names, connections, 'after')
  row.ratio = Number((row.reqPerSec / ((before.reqPerSec + after.reqPerSec) / 2)).toFixed(2))
  return [row, before, after]
}

/** One PATCH with one operation on documents of each size, one feature per size, 4 connections. */
async function sizeSeries (server: Target, databaseUrl: string, pid: number, unleash?: Target): Promise<Row[]> {
  const rows: Row[] = []
  for (const size of SIZES) {
    const name = `series-${size}`
    await createFeature(server, name, size)
    rows.push(
      ...(await besideFloor(databaseUrl, [name], SERIES_CONNECTIONS, () =>
        load(server, `PATCH one op, ${size} variants, ${SERIES_CONNECTIONS} conn`, SERIES_CONNECTIONS, (i) => ({
          method: 'PATCH',
          path: variantsPath(name),
          body: patchOne(i),
        }), pid)
      ))
    )
    if (unleash) {
      try {
        const unleashName = `${name}-${randomBytes(3).toString('hex')}`
        await createFeature(unleash, unleashName, size)
        rows.push(
          await load(unleash, `Unleash: PATCH one op, ${size} variants, ${SERIES_CONNECTIONS} conn`, SERIES_CONNECTIONS, (i) => ({
            method: 'PATCH',
            path: variantsPath(unleashName),
            body: patchOne(i),
          }), unleash.pid)
        )
      } catch (error) {
        console.log(`Unleash, ${size} variants: ${(error as Error).message.slice(0, 200)}`)
      }
    }
  }
  return rows
}

/** The scenarios over 50 features at BENCH_CONNECTIONS: writes spread out, one hot feature, completions. */
async function featureScenarios (server: Target, databaseUrl: string, pid: number): Promise<Row[]> {
  const names = Array.from({ length: FEATURES }, (_, i) => `bench-${i}`)
  for (const name of names) await createFeature(server, name, 2)
  const rows: Row[] = []
  rows.push(
    ...(await besideFloor(databaseUrl, names, CONNECTIONS, () =>
      load(server, `PATCH variants, ${FEATURES} features`, CONNECTIONS, (i) => ({
        method: 'PATCH',
        path: variantsPath(names[i % FEATURES] as string),
        body: patchOne(i),
      }), pid)
    ))
  )
  rows.push(
    await load(server, 'PATCH variants, one hot feature', CONNECTIONS, (i) => ({
      method: 'PATCH',
      path: variantsPath(names[0] as string),
      body: patchOne(i),
    }), pid)
  )
  rows.push(
    await load(server, `POST lifecycle/complete, ${FEATURES} features`, CONNECTIONS, (i) => ({
      method: 'POST',
      path: `/api/admin/projects/default/features/${names[i % FEATURES]}/lifecycle/complete`,
      body: JSON.stringify({ status: i % 2 ? 'kept' : 'discarded', statusValue: `v${i}` }),
    }), pid)
  )
  return rows
}

/**
 * The client API as SDKs poll it: 1000 features, a client token, 50 connections; polls that
 * send the ETag they hold (304) and polls that do not (the whole answer).
 */
async function clientScenarios (server: Target, pid?: number, label = ''): Promise<Row[]> {
  const run = randomBytes(3).toString('hex')
  const names = Array.from({ length: 1000 }, (_, i) => `client-${run}-${String(i).padStart(4, '0')}`)
  for (const name of names) {
    await call(server, 'POST', '/api/admin/projects/default/features', { name })
    await call(server, 'POST', `/api/admin/projects/default/features/${name}/environments/development/on`)
  }
  const created = await fetch(`${server.base}/api/admin/api-tokens`, {
    method: 'POST',
    headers: server.headers,
    body: JSON.stringify({ tokenName: `bench-client-${randomBytes(3).toString('hex')}`, type: 'client', environment: 'development' }),
  })
  const secret = ((await created.json()) as { secret: string }).secret
  const first = await fetch(`${server.base}/api/client/features`, { headers: { authorization: secret } })
  const etag = first.headers.get('etag') ?? ''
  const size = (await first.text()).length
  const poll = { path: '/api/client/features', method: 'GET' as const }
  const rows = [
    await load({ base: server.base, headers: { authorization: secret, 'if-none-match': etag } }, `${label}GET /api/client/features with If-None-Match (304), ${names.length} features, ${CLIENT_CONNECTIONS} conn`, CLIENT_CONNECTIONS, () => poll, pid, [304]),
    await load({ base: server.base, headers: { authorization: secret } }, `${label}GET /api/client/features (${Math.round(size / 1024)} kB), ${names.length} features, ${CLIENT_CONNECTIONS} conn`, CLIENT_CONNECTIONS, () => poll, pid),
  ]
  await archive(server, names)
  return rows
}

/** Flag counts of the frontend scenarios (BENCH_FRONTEND_SIZES). */
const FRONTEND_SIZES = (process.env.BENCH_FRONTEND_SIZES ?? '100,1000,5000').split(',').map(Number)
const USERS = 10_000

/**
 * The strategies of flag `i` of the realistic mix: half plain on, a fifth gradual rollouts, a
 * tenth IN constraints, a tenth two strategies with string and number constraints, a tenth 50 %
 * with strategy variants and payloads.
 */
function mixStrategies (name: string, i: number): object[] {
  const kind = i % 10
  if (kind < 5) return [{ name: 'default', parameters: {}, constraints: [] }]
  if (kind < 7) return [{ name: 'flexibleRollout', parameters: { rollout: '30', stickiness: 'default', groupId: name }, constraints: [] }]
  if (kind === 7) {
    return [{ name: 'default', parameters: {}, constraints: [{ contextName: 'userId', operator: 'IN', values: Array.from({ length: 50 }, (_, u) => `user-${u * 37}`) }] }]
  }
  if (kind === 8) {
    return [
      { name: 'default', parameters: {}, constraints: [{ contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@example.com'], caseInsensitive: true }] },
      { name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: name }, constraints: [{ contextName: 'age', operator: 'NUM_GTE', value: '18' }] },
    ]
  }
  return [{
    name: 'flexibleRollout',
    parameters: { rollout: '50', stickiness: 'default', groupId: name },
    constraints: [],
    variants: ['a', 'b'].map((v) => ({ name: v, weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: `${v}-${PAYLOAD}` } })),
  }]
}

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T> (items: T[], width: number, work: (item: T) => Promise<void>) {
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await work(items[next++] as T)
  }))
}

/** The query of user `i` (of USERS, in turn): a userId and that user's age, as a browser app sends them on every poll. */
const userQuery = (i: number) => `userId=user-${i % USERS}&age=${(i % USERS) % 90}`
/** A query no request sent before: a user never seen, for the rows where nothing kept can answer. */
const newUserQuery = (run: string, i: number) => `userId=new-${run}-${i}&age=${i % 90}`

/**
 * The frontend API as browser apps call it, and OFREP's bulk evaluation as OpenFeature web
 * providers do: `count` flags of the realistic mix switched on in one project, a frontend token
 * for it, 50 connections. Polls of one user sending the ETag they hold (304); polls of 10,000
 * different users, in turn, each with the same context on every poll, each user having polled
 * twice before, unmeasured (each answered in full, from the answers kept per context, as a
 * browser's polls are after its first two); requests that each come from a user never seen
 * (nothing kept can answer: every one evaluated); OFREP bulk likewise, for other users. Unleash's paths are the
 * same, so the same function drives an Unleash server (in its default project, without OFREP).
 * Returns the rows and the one-user answer (the static floor serves it).
 */
async function frontendScenarios (server: Target, count: number, options: { pid?: number; label?: string; project?: string; ofrep?: boolean }): Promise<{ rows: Row[]; body: string }> {
  const { pid, label = '', ofrep = true } = options
  const run = randomBytes(3).toString('hex')
  const project = options.project ?? 'default'
  if (project !== 'default') {
    await call(server, 'POST', '/api/admin/projects', { id: project, name: project })
    await call(server, 'POST', `/api/admin/projects/${project}/environments`, { environment: 'development' })
  }
  const names = Array.from({ length: count }, (_, i) => `web-${run}-${String(i).padStart(4, '0')}`)
  const features = `/api/admin/projects/${project}/features`
  await inParallel(names.map((name, i) => ({ name, i })), 8, async ({ name, i }) => {
    await call(server, 'POST', features, { name })
    for (const strategy of mixStrategies(name, i)) await call(server, 'POST', `${features}/${name}/environments/development/strategies`, strategy)
    await call(server, 'POST', `${features}/${name}/environments/development/on`)
  })
  const created = await fetch(`${server.base}/api/admin/api-tokens`, {
    method: 'POST',
    headers: server.headers,
    body: JSON.stringify({ tokenName: `bench-web-${run}`, type: 'frontend', environment: 'development', projects: [project] }),
  })
  const secret = ((await created.json()) as { secret: string }).secret
  // Until the answer holds this run's features (Unleash refreshes its frontend state on a timer).
  let first: Response
  let body = ''
  const deadline = Date.now() + 60_000
  for (;;) {
    first = await fetch(`${server.base}/api/frontend?${userQuery(1)}`, { headers: { authorization: secret } })
    body = await first.text()
    const ours = (JSON.parse(body) as { toggles: { name: string }[] }).toggles.filter((t) => t.name.startsWith(`web-${run}-`))
    // More than half are on for one user; Unleash's engine may still hold an older state.
    if (ours.length >= count / 2 || Date.now() > deadline) break
    await sleep(500)
  }
  const etag = first.headers.get('etag') ?? ''
  const on = (JSON.parse(body) as { toggles: unknown[] }).toggles.length
  const connections = CLIENT_CONNECTIONS
  const users = (i: number) => ({ method: 'GET' as const, path: `/api/frontend?${userQuery(i)}` })
  const web = { base: server.base, headers: { authorization: secret } }
  // Unmeasured first, so that no row pays for just-in-time compilation; with other users, so
  // that the measured rows find none of theirs kept.
  await load(web, 'warm-up', connections, (i) => ({ method: 'GET', path: `/api/frontend?userId=warm-${i}&age=${i % 90}` }), pid, [200], WARM_UP_SECONDS)
  // The polling users' first two polls, unmeasured: the row measures polls of users who have
  // polled before, as a browser's polls are after its first minute (an answer is kept from a
  // context's second request on; the never-seen row measures first requests).
  const polledBefore = (target: Target, next: (i: number) => { path: string; method: 'GET' | 'POST'; body?: string }) =>
    load(target, 'first polls', connections, next, undefined, [200], SECONDS, 2 * USERS)
  await polledBefore(web, users)
  const rows = [
    await load({ base: server.base, headers: { authorization: secret, ...(etag && { 'if-none-match': etag }) } }, `${label}GET /api/frontend, one user, If-None-Match (${etag ? '304' : 'no ETag: 200'}), ${count} flags`, connections, () => users(1), pid, [200, 304]),
    await load(web, `${label}GET /api/frontend, ${USERS} users polling in turn, each polled before (${on} of ${count} on, ${Math.round(body.length / 1024)} kB), ${count} flags`, connections, users, pid),
    await load(web, `${label}GET /api/frontend, every request a new user, ${count} flags`, connections, (i) => ({ method: 'GET', path: `/api/frontend?${newUserQuery(run, i)}` }), pid),
  ]
  if (ofrep) {
    const bulk = { base: server.base, headers: { authorization: secret, 'content-type': 'application/json' } }
    const ofrepRequest = (context: (i: number) => object) => (i: number) => ({ method: 'POST' as const, path: '/ofrep/v1/evaluate/flags', body: JSON.stringify({ context: context(i) }) })
    const ofrepLoad = (scenario: string, context: (i: number) => object) =>
      load(bulk, `${label}POST /ofrep/v1/evaluate/flags, ${scenario}, ${count} flags`, connections, ofrepRequest(context), pid)
    // Users of their own: none of the frontend rows' answers is kept for them.
    const ofrepUser = (i: number) => ({ targetingKey: `ofrep-user-${i % USERS}`, age: (i % USERS) % 90 })
    await polledBefore(bulk, ofrepRequest(ofrepUser))
    rows.push(await ofrepLoad(`${USERS} users polling in turn, each polled before`, ofrepUser))
    rows.push(await ofrepLoad('every request a new user', (i) => ({ targetingKey: `ofrep-new-${run}-${i}`, age: i % 90 })))
  }
  await inParallel(names, 8, async (name) => { await call(server, 'DELETE', `${features}/${name}`) })
  return { rows, body }
}

/** The static floor: the same answer bytes, precomputed, from bare node:http, at the same load as the 10,000-user row. */
async function staticFloor (body: string, count: number): Promise<Row> {
  const file = `bench/results/.static-body-${process.pid}.json`
  writeFileSync(file, body)
  const port = await freePort()
  const floorServer = spawn(process.execPath, ['bench/static-floor.mjs'], { env: { ...process.env, BODY_FILE: file, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] })
  try {
    for (;;) {
      try {
        await (await fetch(`http://127.0.0.1:${port}/`)).text()
        break
      } catch {
        await sleep(20)
      }
    }
    const target = { base: `http://127.0.0.1:${port}`, headers: {} }
    const users = (i: number) => ({ method: 'GET' as const, path: `/api/frontend?${userQuery(i)}` })
    await load(target, 'warm-up', CLIENT_CONNECTIONS, users, floorServer.pid, [200], WARM_UP_SECONDS)
    return await load(target, `static floor: the same ${Math.round(body.length / 1024)} kB from bare node:http, ${count} flags`, CLIENT_CONNECTIONS, users, floorServer.pid)
  } finally {
    await stopServer(floorServer)
    rmSync(file, { force: true })
  }
}

/**
 * Server CPU time per PATCH (one operation, spread over 50 features, BENCH_CONNECTIONS
 * connections) beside an HTTP floor measured in the same run: a bare Fastify route with no
 * schemas, auth or logging doing the same transaction with pg (bench/floor-server.mjs), run
 * before and after. CPU time, not throughput, because this machine's speed drifts.
 */
async function cpuScenario (server: Target, databaseUrl: string, pid: number): Promise<Row[]> {
  const names = Array.from({ length: FEATURES }, (_, i) => `cpu-${i}`)
  for (const name of names) await createFeature(server, name, 2)
  const port = await freePort()
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir=bench/results', '--cpu-prof-name=floor.cpuprofile'] : []
  const floorServer = spawn(process.execPath, [...profile, 'bench/floor-server.mjs'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  try {
    await waitFor(`http://127.0.0.1:${port}/floor/${names[0]}`, floorServer)
    const floorTarget = { base: `http://127.0.0.1:${port}`, headers: { 'content-type': 'application/json' } }
    const floorRun = (label: string, seconds = SECONDS) =>
      load(floorTarget, `HTTP floor: bare Fastify + pg, same transaction (${label})`, CONNECTIONS, (i) => ({
        method: 'PATCH',
        path: `/floor/${names[i % FEATURES]}`,
        body: JSON.stringify([{ op: 'replace', path: '/0/payload/value', value: `v${i}` }]),
      }), floorServer.pid, undefined, seconds)
    const oursRun = (seconds = SECONDS) =>
      load(server, `PATCH one op, ${FEATURES} features, ${CONNECTIONS} conn: server CPU`, CONNECTIONS, (i) => ({
        method: 'PATCH',
        path: variantsPath(names[i % FEATURES] as string),
        body: patchOne(i),
      }), pid, undefined, seconds)
    // Steady state is measured: both servers first run the same load unmeasured for a few
    // seconds, so that neither pays for just-in-time compilation in its figure.
    await floorRun('warm-up', WARM_UP_SECONDS)
    await oursRun(WARM_UP_SECONDS)
    const before = await floorRun('before')
    const ours = await oursRun()
    const after = await floorRun('after')
    const floorCpu = ((before.cpuMsPerRequest ?? 0) + (after.cpuMsPerRequest ?? 0)) / 2
    ours.ratio = Number(((ours.cpuMsPerRequest ?? 0) / floorCpu).toFixed(2))
    return [ours, before, after]
  } finally {
    await stopServer(floorServer)
  }
}

/**
 * Webhooks: the same PATCH load (50 features, BENCH_CONNECTIONS) with no webhook, with a webhook
 * on every change whose receiver answers 200 at once, and with one whose receiver never answers
 * (each attempt waits WEBHOOK_TIMEOUT_MS). The p99 of the writes must not suffer from the
 * hanging receiver: deliveries are sent outside the request and outside any transaction.
 */
/**
 * What a body-limit-sized write does to everyone else: /health asked over and over while a PUT
 * of about 1 MB (1,000 variants with 900-character payloads) is parsed, checked and stored.
 * p99 ms is the slowest /health answer during the PUTs (the target: under 50 ms, so that one
 * large write never stalls the instance's other traffic); p50 ms is their median.
 */
async function largeWriteScenario (server: Target): Promise<Row[]> {
  const name = 'bench-large-put'
  await call(server, 'POST', '/api/admin/projects/default/features', { name })
  const body = (round: number) =>
    Array.from({ length: 1000 }, (_, i) => ({
      name: `v${round}-${i}`,
      weight: 0,
      payload: { type: 'string', value: String(i).padEnd(900, 'x') },
    }))
  await call(server, 'PUT', variantsPath(name), body(0)) // warm up
  const probes: number[] = []
  const puts: number[] = []
  for (let round = 1; round <= 10; round++) {
    const putting = { on: true }
    const prober = (async () => {
      while (putting.on) {
        const started = performance.now()
        const res = await fetch(`${server.base}/health`)
        await res.arrayBuffer()
        probes.push(performance.now() - started)
      }
    })()
    const started = performance.now()
    await call(server, 'PUT', variantsPath(name), body(round))
    puts.push(performance.now() - started)
    putting.on = false
    await prober
  }
  const sorted = [...probes].sort((a, b) => a - b)
  const round1 = (n: number) => Math.round(n * 10) / 10
  return [{
    scenario: `GET /health during a 1 MB variants PUT (10 PUTs, median ${round1(puts.sort((a, b) => a - b)[5]!)} ms each; p99 ms = the slowest answer, target < 50)`,
    reqPerSec: 0,
    p50Ms: round1(sorted[Math.floor(sorted.length / 2)]!),
    p99Ms: round1(sorted[sorted.length - 1]!),
    errors: 0,
  }]
}

async function webhookScenarios (server: Target, pid: number): Promise<Row[]> {
  const names = Array.from({ length: FEATURES }, (_, i) => `hook-${i}`)
  for (const name of names) await createFeature(server, name, 2)
  const hanging = createServer(() => {})
  const answering = createServer((_req, res) => { res.end('ok') })
  const listen = async (s: Server) => {
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
    return (s.address() as AddressInfo).port
  }
  const hangingPort = await listen(hanging)
  const answeringPort = await listen(answering)
  const patch = (label: string) =>
    load(server, `PATCH one op, ${FEATURES} features, ${CONNECTIONS} conn: ${label}`, CONNECTIONS, (i) => ({
      method: 'PATCH',
      path: variantsPath(names[i % FEATURES] as string),
      body: patchOne(i),
    }), pid)
  const withWebhook = async (port: number, label: string) => {
    const res = await fetch(`${server.base}/api/admin/addons`, {
      method: 'POST',
      headers: server.headers,
      body: JSON.stringify({ provider: 'webhook', enabled: true, events: ['feature-environment-variants-updated'], parameters: { url: `http://127.0.0.1:${port}/hook` } }),
    })
    const { id } = (await res.json()) as { id: number }
    try {
      return await patch(label)
    } finally {
      await call(server, 'DELETE', `/api/admin/addons/${id}`)
    }
  }
  try {
    await patch('warm-up')
    return [
      await patch('no webhook'),
      await withWebhook(answeringPort, 'a webhook on every change, receiver answers 200'),
      await withWebhook(hangingPort, 'a webhook on every change, receiver hangs'),
      await patch('no webhook (again)'),
    ]
  } finally {
    hanging.closeAllConnections()
    answering.closeAllConnections()
    hanging.close()
    answering.close()
  }
}

/** Until a PATCH on `url` answers (the floor server is up). */
/** Median of a list of numbers. */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

/** Logs in (Unleash's route, on either server); the session cookie, or the status when refused. */
async function logIn (base: string, username: string, password: string) {
  const res = await fetch(`${base}/auth/simple/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) })
  await res.text()
  const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c !== undefined && /session/.test(c))
  return { status: res.status, cookie }
}

/** Time of one refused login, in ms. */
async function timedLogin (base: string, username: string) {
  const started = performance.now()
  const { status } = await logIn(base, username, 'not-the-password-1')
  return { ms: performance.now() - started, status }
}

/**
 * People: the same admin read (a project's features) authenticated by an API token, a session
 * cookie and a personal access token (server CPU per request: a person is read afresh from the
 * database at every request, a token is cached), and the time of a refused login for a wrong
 * password and for an unknown name (interleaved; equal is the point). With Unleash beside us
 * (BENCH_UNLEASH=1, or UNLEASH_URL with UNLEASH_ADMIN_USER and UNLEASH_ADMIN_PASSWORD), the
 * same for Unleash (whose login limiter allows 10 a minute per address, so fewer attempts).
 */
async function peopleScenarios (server: Target, pid: number, unleash?: UnleashTarget): Promise<Row[]> {
  const password = 'bench-password-for-people'
  await call(server, 'POST', '/api/admin/user-admin', { username: 'bench-editor', rootRole: 'Editor', password })
  const session = await logIn(server.base, 'bench-editor', password)
  if (!session.cookie) throw new Error(`bench login failed: ${session.status}`)
  const patRes = await fetch(`${server.base}/api/admin/user/tokens`, { method: 'POST', headers: { cookie: session.cookie, 'content-type': 'application/json' }, body: JSON.stringify({ description: 'bench', expiresAt: new Date(Date.now() + 86_400_000).toISOString() }) })
  const pat = (await patRes.json() as { secret: string }).secret
  for (let i = 0; i < 20; i++) await call(server, 'POST', '/api/admin/projects/default/features', { name: `people-${i}` })
  const read = () => ({ method: 'GET' as const, path: '/api/admin/projects/default/features' })
  const as = (headers: Record<string, string>): Target => ({ base: server.base, headers })
  await load(as({ authorization: SECRET }), 'warm-up', CONNECTIONS, read, pid, [200], WARM_UP_SECONDS)
  const rows = [
    await load(as({ authorization: SECRET }), `GET a project's features, API token, ${CONNECTIONS} conn`, CONNECTIONS, read, pid, [200]),
    await load(as({ cookie: session.cookie }), `GET a project's features, session cookie, ${CONNECTIONS} conn`, CONNECTIONS, read, pid, [200]),
    await load(as({ authorization: pat }), `GET a project's features, personal access token, ${CONNECTIONS} conn`, CONNECTIONS, read, pid, [200]),
  ]
  const timing = async (base: string, known: string, attempts: number, label: string) => {
    const wrong: number[] = []
    const unknown: number[] = []
    for (let i = 0; i < attempts; i++) {
      wrong.push((await timedLogin(base, known)).ms)
      unknown.push((await timedLogin(base, `nobody-${i}-${randomBytes(3).toString('hex')}`)).ms)
    }
    const row = (scenario: string, xs: number[]): Row => ({ scenario, reqPerSec: 0, p50Ms: Number(median(xs).toFixed(1)), p99Ms: Number(Math.max(...xs).toFixed(1)), errors: 0 })
    return [row(`${label}refused login, wrong password (${attempts}, p99 = max)`, wrong), row(`${label}refused login, unknown name (${attempts}, p99 = max)`, unknown)]
  }
  rows.push(...(await timing(server.base, 'bench-editor', 20, '')))
  if (unleash?.login) {
    const { username, password: theirPassword } = unleash.login
    const theirs = await logIn(unleash.base, username, theirPassword)
    if (theirs.cookie) {
      rows.push(await load({ base: unleash.base, headers: { cookie: theirs.cookie } }, `Unleash: GET a project's features, session cookie, ${CONNECTIONS} conn`, CONNECTIONS, read, unleash.pid, [200]))
    }
    // Unleash allows 10 logins a minute per address: 8 attempts after the one above.
    rows.push(...(await timing(unleash.base, username, 4, 'Unleash: ')))
  }
  return rows
}

async function waitFor (url: string, child: ChildProcess) {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the floor server exited with code ${child.exitCode}`)
    try {
      const res = await fetch(url, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '[{"value":"warm-up"}]' })
      await res.text()
      if (res.ok) return
    } catch {
      // not listening yet
    }
    await sleep(20)
  }
}

/** One import or export, timed, with the server's CPU time and peak memory while it ran. */
interface OnceRow {
  scenario: string
  ms: number
  cpuMs?: number
  peakRssMb?: number
}

const IMPORT_FEATURES = Number(process.env.BENCH_IMPORT_FEATURES ?? 1000)
const IMPORT_CHUNK = 50

/** An export of `count` features, each with a gradual rollout, a constraint, two strategy variants and environment variants. */
function importData (prefix: string, count: number) {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}`)
  return {
    features: names.map((name) => ({ name, type: 'release', description: `imported ${name}` })),
    featureStrategies: names.map((name, i) => ({
      name: 'flexibleRollout',
      featureName: name,
      parameters: { rollout: String(i % 101), stickiness: 'default', groupId: name },
      constraints: [{ contextName: 'appName', operator: 'IN', values: ['web', 'ios', 'android'] }],
      variants: [{ name: 'a', weight: 500, weightType: 'variable', stickiness: 'default' }, { name: 'b', weight: 500, weightType: 'variable', stickiness: 'default' }],
    })),
    featureEnvironments: names.map((name, i) => ({ name, featureName: name, environment: 'development', enabled: i % 2 === 0, variants: [{ name: 'on', weight: 1000, weightType: 'variable', stickiness: 'default' }] })),
    contextFields: [],
    featureTags: [],
    segments: [],
    tagTypes: [],
  }
}

/** Runs `work` once, timing it and sampling the server's memory every 50 ms. */
async function once (scenario: string, pid: number | undefined, work: () => Promise<void>): Promise<OnceRow> {
  let peak = pid === undefined ? 0 : rssMb(pid)
  const sampler = pid === undefined ? undefined : setInterval(() => { peak = Math.max(peak, rssMb(pid)) }, 50)
  const cpuBefore = pid === undefined ? 0 : cpuMs(pid)
  const started = performance.now()
  try {
    await work()
  } finally {
    clearInterval(sampler)
  }
  const ms = Math.round(performance.now() - started)
  return { scenario, ms, ...(pid !== undefined && { cpuMs: Math.round(cpuMs(pid) - cpuBefore), peakRssMb: Math.round(Math.max(peak, rssMb(pid))) }) }
}

/**
 * Import of IMPORT_FEATURES features with strategies into an empty project (one transaction),
 * the same import again (nothing to change), and an export of them; Unleash's beside when
 * UNLEASH_URL (and UNLEASH_PAT for its import) are set.
 */
async function importScenarios (target: Target, pid: number | undefined, label = '', importHeaders?: Record<string, string>): Promise<OnceRow[]> {
  // Into the default project (Unleash's open-source edition cannot create projects), with names of this run.
  const project = 'default'
  const data = importData(`bench-${randomBytes(3).toString('hex')}`, IMPORT_FEATURES)
  const importer = { ...target, headers: importHeaders ?? target.headers }
  const rows: OnceRow[] = []
  // One request, as a user would send it; a server that refuses its size (Unleash's 100 kB body
  // limit) gets the same features in requests of IMPORT_CHUNK, one after another.
  let chunk = IMPORT_FEATURES
  const importAll = async () => {
    for (let start = 0; start < IMPORT_FEATURES; start += chunk) {
      const part = importData('', 0)
      const names = new Set(data.features.slice(start, start + chunk).map((f) => f.name))
      for (const key of ['features', 'featureStrategies', 'featureEnvironments'] as const) {
        (part[key] as unknown[]) = (data[key] as { name?: string; featureName?: string }[]).filter((x) => names.has(x.featureName ?? x.name ?? ''))
      }
      await call(importer, 'POST', '/api/admin/features-batch/import', { project, environment: 'development', data: part })
    }
  }
  try {
    await call(importer, 'POST', '/api/admin/features-batch/validate', { project, environment: 'development', data })
  } catch (error) {
    if (!/: 413 /.test((error as Error).message)) throw error
    chunk = IMPORT_CHUNK
  }
  const how = chunk === IMPORT_FEATURES ? 'one request' : `${Math.ceil(IMPORT_FEATURES / chunk)} requests of ${chunk} (one is refused: 413)`
  rows.push(await once(`${label}import ${IMPORT_FEATURES} features with strategies (new), ${how}`, pid, importAll))
  rows.push(await once(`${label}import the same again (nothing changes)`, pid, importAll))
  const features = data.features.map((f) => f.name)
  rows.push(await once(`${label}export ${IMPORT_FEATURES} features with strategies`, pid, () => call(target, 'POST', '/api/admin/features-batch/export', { environment: 'development', features })))
  return rows
}

function printOnce (title: string, rows: OnceRow[]) {
  console.log(`\n${title}`)
  console.table(rows.map((r) => ({ scenario: r.scenario, ms: r.ms, 'server CPU ms': r.cpuMs ?? '', 'peak RSS MB': r.peakRssMb ?? '' })))
}

function print (title: string, rows: Row[]) {
  console.log(`\n${title}`)
  console.table(
    rows.map((r) => ({
      scenario: r.scenario,
      'req/s': r.reqPerSec,
      'p50 ms': r.p50Ms,
      'p99 ms': r.p99Ms,
      errors: r.unexpected ? `${r.errors} (${Object.entries(r.unexpected).map(([k, v]) => `${k}: ${v}`).join(', ')})` : r.errors,
      'RSS MB': r.rssMb ?? '',
      'CPU ms/req': r.cpuMsPerRequest ?? '',
      '÷ floor': r.ratio ?? '',
    }))
  )
}

async function main () {
  const postgres = await findPostgres({ durable: true })
  const dbName = `ffapi_bench_${randomBytes(4).toString('hex')}`
  await withClient(postgres.url, (c) => c.query(`CREATE DATABASE ${dbName}`))
  const databaseUrl = withDatabase(postgres.url, dbName)
  const port = await freePort()
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir=bench/results'] : []
  let unleash: UnleashTarget | undefined
  try {
    unleash = await unleashTarget(postgres.url)
    // The first start migrates; the second measures start-up to ready on a migrated database.
    const first = startServer(databaseUrl, port)
    await waitReady(port, first.started, first.child)
    await stopServer(first.child)
    const server = startServer(databaseUrl, port, profile)
    const startupMs = Math.round(await waitReady(port, server.started, server.child))
    const pid = server.child.pid as number
    const target = { base: `http://127.0.0.1:${port}`, headers: { authorization: SECRET, 'content-type': 'application/json' } }

    console.log(`${SECONDS}s per scenario, PostgreSQL from ${postgres.source} (durable: fsync and synchronous commit on), node ${process.version}`)
    const part = (name: string) => ONLY === undefined || ONLY === name
    const cpu = part('cpu') ? await cpuScenario(target, databaseUrl, pid) : []
    if (cpu.length > 0) print(`Server CPU time per PATCH, ${FEATURES} features, ${CONNECTIONS} connections (÷ floor: CPU per request)`, cpu)
    const series = part('series') ? await sizeSeries(target, databaseUrl, pid, unleash) : []
    if (series.length > 0) print(`Document sizes: one PATCH of one operation, ${SERIES_CONNECTIONS} connections, ${PAYLOAD.length}-character payloads`, series)
    const features = part('features') ? await featureScenarios(target, databaseUrl, pid) : []
    if (features.length > 0) print(`${FEATURES} features, ${CONNECTIONS} connections`, features)
    const client = part('client') ? await clientScenarios(target, pid) : []
    if (client.length > 0 && unleash) {
      try {
        client.push(...(await clientScenarios(unleash, unleash.pid, 'Unleash: ')))
      } catch (error) {
        console.log(`Unleash, client API: ${(error as Error).message.slice(0, 200)}`)
      }
    }
    if (client.length > 0) print('Client API (Unleash SDK polls)', client)
    const frontend: Row[] = []
    if (part('frontend')) {
      for (const count of FRONTEND_SIZES) {
        const ours = await frontendScenarios(target, count, { pid, project: `web-${count}` })
        frontend.push(...ours.rows, await staticFloor(ours.body, count))
        if (unleash) {
          try {
            frontend.push(...(await frontendScenarios(unleash, count, { pid: unleash.pid, label: 'Unleash: ', ofrep: false })).rows)
          } catch (error) {
            console.log(`Unleash, frontend API: ${(error as Error).message.slice(0, 200)}`)
          }
        }
      }
    }
    if (frontend.length > 0) print(`Frontend API and OFREP (browser SDK polls), ${CLIENT_CONNECTIONS} connections`, frontend)
    const large = part('large') ? await largeWriteScenario(target) : []
    if (large.length > 0) print('One large write beside other traffic', large)
    const webhooks = part('webhooks') ? await webhookScenarios(target, pid) : []
    if (webhooks.length > 0) print(`Webhooks: writes with and without deliveries, ${FEATURES} features, ${CONNECTIONS} connections`, webhooks)
    const webhookPace = part('webhooks') ? await webhookPaceScenarios(target) : []
    if (webhookPace.length > 0) printPace(webhookPace)
    const people = part('people') ? await peopleScenarios(target, pid, unleash) : []
    if (people.length > 0) print('People: admin reads by API token, session and personal access token; refused logins', people)
    const imports = part('import') ? await importScenarios(target, pid) : []
    if (imports.length > 0 && unleash?.pat) {
      try {
        imports.push(...(await importScenarios(unleash, unleash.pid, 'Unleash: ', { ...unleash.headers, authorization: unleash.pat })))
      } catch (error) {
        console.log(`Unleash, import: ${(error as Error).message.slice(0, 1000)}`)
      }
    }
    if (imports.length > 0) printOnce(`Import and export (features-batch), ${IMPORT_FEATURES} features`, imports)
    const streaming = part('streaming') ? await streamingScenarios({ ...target, pid }, databaseUrl) : []
    if (streaming.length > 0) printStreaming(streaming)
    const usage = part('usage') ? await usageScenarios({ databaseUrl, serverUrl: postgres.url, secret: SECRET }) : []
    if (usage.length > 0) printUsage(usage)
    const idleRss = Math.round(rssMb(pid))
    await stopServer(server.child)
    console.log(`start-up to ready on a migrated database: ${startupMs} ms; RSS after the run: ${idleRss} MB`)

    const file = `bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`
    writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), seconds: SECONDS, startupMs, cpu, series, features, client, frontend, webhooks, webhookPace, people, imports, streaming, usage }, null, 2))
    console.log(`written to ${file}`)
  } finally {
    await unleash?.stop()
    await withClient(postgres.url, (c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`))
    await postgres.stop()
  }
}

await main()
