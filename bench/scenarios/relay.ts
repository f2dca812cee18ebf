import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from '../../test/helpers/postgres.js'
import { call, inParallel } from '../lib/api.js'
import type { Bench } from '../lib/bench.js'
import { load, rssMb, type Row, type Target } from '../lib/measure.js'
import { stopServer } from '../lib/server.js'
import { CLIENT_CONNECTIONS, SECONDS, WARM_UP_SECONDS } from '../lib/settings.js'
import { mixStrategies, staticFloor } from './frontend.js'

const FLAGS = 1000
const SCOPES = 10
const USERS = 10_000

const token = async (server: Target, type: 'client' | 'frontend', projects: string[]) => {
  const res = await fetch(`${server.base}/api/admin/api-tokens`, {
    method: 'POST',
    headers: server.headers,
    body: JSON.stringify({ tokenName: `bench-relay-${randomBytes(3).toString('hex')}`, type, environment: 'development', projects }),
  })
  if (res.status !== 201) throw new Error(`creating a ${type} token: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { secret: string }).secret
}

/** The built server in relay mode (dist/server.js with UPSTREAM_URL) in front of `upstream`, ready. */
export async function startRelay (upstream: string, tokens: string[]) {
  const port = await freePort()
  const child = spawn(process.execPath, ['dist/server.js'], {
    env: { ...process.env, UPSTREAM_URL: upstream, TOKENS: tokens.join(','), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the relay exited with code ${child.exitCode}`)
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ready`)).ok) break
    } catch {}
    if (Date.now() > deadline) throw new Error('the relay was not ready within 120 s')
    await sleep(50)
  }
  return { child, base: `http://127.0.0.1:${port}`, pid: child.pid as number }
}

const userQuery = (i: number) => `userId=user-${i % USERS}&age=${(i % USERS) % 90}`

/** The SDK reads of one target (the server or the relay), the same requests in the same order. */
async function reads (target: string, pid: number, label: string, client: string, frontend: string, run: string): Promise<{ rows: Row[]; body: string }> {
  const connections = CLIENT_CONNECTIONS
  // Users of the label's own, in a query-safe word.
  const slug = label.replace(/[^a-z]/g, '')
  const features = { method: 'GET' as const, path: '/api/client/features' }
  const first = await fetch(`${target}/api/client/features`, { headers: { authorization: client } })
  const body = await first.text()
  const etag = first.headers.get('etag') ?? ''
  const web = { base: target, headers: { authorization: frontend } }
  const users = (i: number) => ({ method: 'GET' as const, path: `/api/frontend?${userQuery(i)}` })
  const one = await fetch(`${target}/api/frontend?${userQuery(1)}`, { headers: { authorization: frontend } })
  await one.text()
  const webEtag = one.headers.get('etag') ?? ''
  // Unmeasured: compilation, then the polling users' first two polls (answers are kept from a context's second request on).
  await load(web, 'warm-up', connections, (i) => ({ method: 'GET', path: `/api/frontend?userId=warm-${slug}-${i}&age=${i % 90}` }), pid, [200], WARM_UP_SECONDS)
  await load(web, 'first polls', connections, users, undefined, [200], SECONDS, 2 * USERS)
  const rows = [
    await load({ base: target, headers: { authorization: client, 'if-none-match': etag } }, `${label}GET /api/client/features with If-None-Match (304), ${FLAGS} flags`, connections, () => features, pid, [304]),
    await load({ base: target, headers: { authorization: client } }, `${label}GET /api/client/features (${Math.round(body.length / 1024)} kB), ${FLAGS} flags`, connections, () => features, pid),
    await load({ base: target, headers: { authorization: frontend, 'if-none-match': webEtag } }, `${label}GET /api/frontend, one user, If-None-Match (304), ${FLAGS} flags`, connections, () => users(1), pid, [304]),
    await load(web, `${label}GET /api/frontend, ${USERS} users polling in turn, each polled before, ${FLAGS} flags`, connections, users, pid),
    await load(web, `${label}GET /api/frontend, every request a new user, ${FLAGS} flags`, connections, (i) => ({ method: 'GET', path: `/api/frontend?userId=new-${slug}-${run}-${i}&age=${i % 90}` }), pid),
  ]
  return { rows, body }
}

/**
 * Relay mode: 1,000 flags of the frontend part's realistic mix in a project, held by a relay (the
 * built server with UPSTREAM_URL) for 10 client scopes (the project alone, then with each of 9
 * other projects) and a frontend token; the same SDK reads, 50 connections, at the server and
 * at the relay (each one's CPU time per answered request); the relay's RSS holding the 10
 * scopes; the static floor with the client API's bytes.
 */
export async function relayPart ({ target, pid }: Bench): Promise<Row[]> {
  const run = randomBytes(3).toString('hex')
  const project = `relay-${run}`
  const projects = Array.from({ length: SCOPES - 1 }, (_, i) => `${project}-p${i}`)
  for (const id of [project, ...projects]) {
    await call(target, 'POST', '/api/admin/projects', { id, name: id })
    await call(target, 'POST', `/api/admin/projects/${id}/environments`, { environment: 'development' })
  }
  const names = Array.from({ length: FLAGS }, (_, i) => `relay-${run}-${String(i).padStart(4, '0')}`)
  const features = `/api/admin/projects/${project}/features`
  await inParallel(names.map((name, i) => ({ name, i })), 8, async ({ name, i }) => {
    await call(target, 'POST', features, { name })
    for (const strategy of mixStrategies(name, i)) await call(target, 'POST', `${features}/${name}/environments/development/strategies`, strategy)
    await call(target, 'POST', `${features}/${name}/environments/development/on`)
  })
  const client = await token(target, 'client', [project])
  const frontend = await token(target, 'frontend', [project])
  const others = await Promise.all(projects.map((p) => token(target, 'client', [project, p])))

  const relay = await startRelay(target.base, [client, frontend, ...others])
  try {
    const held: Row = { scenario: `relay: RSS holding ${FLAGS} flags for ${SCOPES} scopes, ready, before any SDK`, reqPerSec: 0, p50Ms: 0, p99Ms: 0, errors: 0, rssMb: Math.round(rssMb(relay.pid)) }
    const server = await reads(target.base, pid, 'server: ', client, frontend, run)
    const atRelay = await reads(relay.base, relay.pid, 'relay: ', client, frontend, run)
    const same = atRelay.body === server.body ? '' : ' (the relay\'s bytes differ from the server\'s!)'
    return [held, ...server.rows, ...atRelay.rows.map((r) => ({ ...r, scenario: r.scenario + same })), await staticFloor(server.body, FLAGS)]
  } finally {
    // SIGTERM; a relay that has not exited 15 s later is killed, and the table says so.
    const killer = setTimeout(() => {
      console.log('the relay did not exit within 15 s of SIGTERM: killed')
      relay.child.kill('SIGKILL')
    }, 15_000)
    await stopServer(relay.child)
    clearTimeout(killer)
    await inParallel(names, 8, async (name) => { await call(target, 'DELETE', `${features}/${name}`) })
  }
}
