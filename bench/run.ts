/**
 * Load benchmark: the compiled server on PostgreSQL against the database floor.
 *
 *   npm run bench                       (BENCH_SECONDS=15 BENCH_CONNECTIONS=20 by default)
 *
 * PostgreSQL is found as the tests find it (TEST_DATABASE_URL, Testcontainers, local binaries).
 * Prints a table and writes it as JSON under bench/results/.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import autocannon from 'autocannon'
import pg from 'pg'
import { withClient, withDatabase } from '../test/helpers/database.js'
import { findPostgres, freePort } from '../test/helpers/postgres.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20)
const FEATURES = 50
const SECRET = 'bench-admin-secret'
const headers = { authorization: SECRET, 'content-type': 'application/json' }

interface Row {
  scenario: string
  reqPerSec: number
  p50Ms: number
  p99Ms: number
  errors: number
  rssMb?: number
  ratio?: number
}

function startServer (databaseUrl: string, port: number, extraArgs: string[] = []) {
  const started = performance.now()
  const child = spawn(process.execPath, [...extraArgs, 'dist/server.js'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      LOG_LEVEL: 'info',
      INIT_ADMIN_API_TOKENS: SECRET,
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  return { child, started }
}

async function waitReady (port: number, started: number): Promise<number> {
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/ready`)
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

function rssMb (pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return kb / 1024
}

async function seed (port: number): Promise<string[]> {
  const names: string[] = []
  for (let i = 0; i < FEATURES; i++) {
    const name = `bench-${i}`
    const base = `http://127.0.0.1:${port}/api/admin/projects/default/features`
    await fetch(base, { method: 'POST', headers, body: JSON.stringify({ name }) })
    await fetch(`${base}/${name}/environments/development/variants`, {
      method: 'PUT',
      headers,
      body: JSON.stringify([
        { name: 'control', weight: 0, payload: { type: 'string', value: 'seed' } },
        { name: 'treatment', weight: 200, weightType: 'fix' },
      ]),
    })
    names.push(name)
  }
  return names
}

/** Drives the server; every request changes stored state, so each one is a real write. */
async function load (
  port: number,
  pid: number,
  scenario: string,
  next: (i: number) => { path: string; method: 'PATCH' | 'POST'; body: string }
): Promise<Row> {
  let counter = 0
  let peakRss = 0
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMb(pid))
  }, 250)
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        setupRequest: (req) => {
          const r = next(counter++)
          return { ...req, method: r.method, path: r.path, body: r.body, headers }
        },
      },
    ],
  })
  clearInterval(sampler)
  return {
    scenario,
    reqPerSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    rssMb: Math.round(peakRss),
  }
}

/** The floor: the same write transaction issued directly with pg, no HTTP, same concurrency. */
async function floor (databaseUrl: string, names: string[], label: string): Promise<Row> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: CONNECTIONS })
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
          await client.query('BEGIN')
          const { rows } = await client.query(
            `SELECT fe.variants, fe.revision FROM feature_environments fe
             JOIN features f ON f.name = fe.feature_name
             JOIN project_environments pe ON pe.project_id = f.project_id AND pe.environment_name = fe.environment_name
             WHERE f.project_id = 'default' AND fe.feature_name = $1 AND fe.environment_name = 'development'
             FOR UPDATE OF fe`,
            [feature]
          )
          const variants = rows[0].variants
          variants[0].payload.value = String(counter)
          await client.query(
            `UPDATE feature_environments SET variants = $1, revision = revision + 1
             WHERE feature_name = $2 AND environment_name = 'development' RETURNING revision`,
            [JSON.stringify(variants), feature]
          )
          await client.query(
            `INSERT INTO events (type, created_by, project, feature_name, environment, data, pre_data)
             VALUES ('feature-environment-variants-updated', 'floor', 'default', $1, 'development', $2, $3)`,
            [feature, JSON.stringify({ variants }), JSON.stringify({ variants: rows[0].variants })]
          )
          await client.query('COMMIT')
          latencies.push(performance.now() - t0)
        } catch {
          errors++
          await client.query('ROLLBACK').catch(() => {})
        }
      }
    } finally {
      client.release()
    }
  }
  await Promise.all(Array.from({ length: CONNECTIONS }, worker))
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

async function main () {
  const postgres = await findPostgres()
  const dbName = `ffapi_bench_${randomBytes(4).toString('hex')}`
  await withClient(postgres.url, (c) => c.query(`CREATE DATABASE ${dbName}`))
  const databaseUrl = withDatabase(postgres.url, dbName)
  const port = await freePort()
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir=bench/results'] : []
  try {
    // First start migrates; the second measures start-up to ready on a migrated database.
    const first = startServer(databaseUrl, port)
    await waitReady(port, first.started)
    await stopServer(first.child)
    const server = startServer(databaseUrl, port, profile)
    const startupMs = Math.round(await waitReady(port, server.started))
    const pid = server.child.pid as number

    const names = await seed(port)
    // This machine's speed drifts (shared virtual CPUs): the floor is measured before and after
    // the server scenarios, and the server is compared with their mean.
    const floorBefore = await floor(databaseUrl, names, 'before')
    const variantsPath = (name: string) =>
      `/api/admin/projects/default/features/${name}/environments/development/variants`
    const patchBody = (i: number) =>
      JSON.stringify([{ op: 'replace', path: '/0/payload/value', value: `v${i}` }])

    const rows: Row[] = []
    rows.push(
      await load(port, pid, 'PATCH variants, 50 features', (i) => ({
        method: 'PATCH',
        path: variantsPath(names[i % FEATURES] as string),
        body: patchBody(i),
      }))
    )
    rows.push(
      await load(port, pid, 'PATCH variants, one hot feature', (i) => ({
        method: 'PATCH',
        path: variantsPath(names[0] as string),
        body: patchBody(i),
      }))
    )
    rows.push(
      await load(port, pid, 'POST lifecycle/complete, 50 features', (i) => ({
        method: 'POST',
        path: `/api/admin/projects/default/features/${names[i % FEATURES]}/lifecycle/complete`,
        body: JSON.stringify({ status: i % 2 ? 'kept' : 'discarded', statusValue: `v${i}` }),
      }))
    )
    const idleRss = Math.round(rssMb(pid))
    await stopServer(server.child)

    const floorAfter = await floor(databaseUrl, names, 'after')
    const floorMean = (floorBefore.reqPerSec + floorAfter.reqPerSec) / 2
    for (const row of rows) row.ratio = Number((row.reqPerSec / floorMean).toFixed(2))
    rows.push(floorBefore, floorAfter)

    console.log(
      `\n${SECONDS}s per scenario, ${CONNECTIONS} connections, PostgreSQL from ${postgres.source}, node ${process.version}`
    )
    console.table(
      rows.map((r) => ({
        scenario: r.scenario,
        'req/s': r.reqPerSec,
        'p50 ms': r.p50Ms,
        'p99 ms': r.p99Ms,
        errors: r.errors,
        'RSS MB': r.rssMb ?? '',
        '÷ floor': r.ratio ?? '',
      }))
    )
    console.log(`start-up to ready on a migrated database: ${startupMs} ms; RSS after the run: ${idleRss} MB`)

    const file = `bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`
    writeFileSync(
      file,
      JSON.stringify({ date: new Date().toISOString(), seconds: SECONDS, connections: CONNECTIONS, startupMs, rows }, null, 2)
    )
    console.log(`written to ${file}`)
  } finally {
    await withClient(postgres.url, (c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`))
    await postgres.stop()
  }
}

await main()
