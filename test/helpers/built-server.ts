import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ADMIN_SECRET } from './database.js'
import { PASSWORD, sessionCookieOf } from './people.js'
import { freePort } from './postgres.js'
import { untilReady } from './server.js'

/** Builds the production bundle into `outdir` (a folder of its own: other files build in parallel). */
export function buildServer (outdir: string) {
  execFileSync(process.execPath, ['build.mjs'], { stdio: 'inherit', env: { ...process.env, BUILD_OUTDIR: outdir } })
}

export interface BuiltServer {
  port: number
  pid: number
  base: string
  /** Where the server records its event loop's holds (see loop-hold.cjs). */
  holds: string
  /** SIGTERM, then the exit. */
  stop(): Promise<void>
}

/**
 * The built server (`buildServer(outdir)`) in a child process of its own, on `databaseUrl`: its
 * time and memory are its own, not the test's. It records its event loop's holds (loop-hold.cjs).
 */
export async function startBuiltServer (outdir: string, databaseUrl: string, env: Record<string, string> = {}): Promise<BuiltServer> {
  const port = await freePort()
  const holds = join(mkdtempSync(join(tmpdir(), 'loop-hold-')), 'holds')
  const child = spawn(process.execPath, ['--require', fileURLToPath(new URL('loop-hold.cjs', import.meta.url)), `${outdir}/server.js`], {
    env: {
      ...process.env,
      LOOP_HOLD_FILE: holds,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      INIT_ADMIN_API_TOKENS: ADMIN_SECRET,
      PASSWORD_HASH_COST: '12',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await untilReady(port)
  return {
    port,
    pid: child.pid!,
    base: `http://127.0.0.1:${port}`,
    holds,
    async stop () {
      child.kill('SIGTERM')
      await exited
      rmSync(dirname(holds), { recursive: true, force: true })
    },
  }
}

/** A process's resident memory from /proc, in bytes: now (VmRSS) and its highest so far (VmHWM). */
export function memoryOf (pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kB = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024
  return { rss: kB('VmRSS'), peak: kB('VmHWM') }
}

export interface HealthProbes {
  /**
   * Stops probing. Every answer's status; the slowest answer in ms; and the longest the
   * server's main thread ran without giving its event loop a turn meanwhile, in CPU time (what
   * loop-hold.cjs recorded, 0 when no hold reached 20 ms): how long the server itself held
   * /health, whatever else kept the machine busy.
   */
  stop(): Promise<{ count: number; statuses: number[]; slowestMs: number; heldMs: number }>
}

/** The prober's own process: asks until its stdin closes, then prints what it saw. */
const PROBER = `
const { Agent, request } = require('node:http')
const [port, gapMs] = process.argv.slice(1).map(Number)
const agent = new Agent({ keepAlive: true, maxSockets: 1 })
const statuses = []
let slowestMs = 0
let on = true
process.stdin.on('end', () => { on = false }).resume()
const once = () => new Promise((resolve) => {
  const req = request({ host: '127.0.0.1', port, path: '/health', agent, timeout: 30000 }, (res) => {
    res.resume()
    res.on('end', () => resolve(res.statusCode))
  })
  req.on('timeout', () => req.destroy())
  req.on('error', () => resolve(0))
  req.end()
})
;(async () => {
  statuses.push(await once())
  while (on) {
    const started = performance.now()
    statuses.push(await once())
    slowestMs = Math.max(slowestMs, performance.now() - started)
    await new Promise((resolve) => setTimeout(resolve, gapMs))
  }
  process.stdout.write(JSON.stringify({ count: statuses.length, statuses, slowestMs }))
  agent.destroy()
})()
`

/** The longest hold `server` recorded between `from` and `to` (epoch ms; see loop-hold.cjs). */
function longestHold (server: BuiltServer, from: number, to: number): number {
  let text = ''
  try {
    text = readFileSync(server.holds, 'utf8')
  } catch {}
  return text.split('\n').filter(Boolean).map((line) => line.split(' ').map(Number) as [number, number])
    .filter(([at]) => at >= from && at <= to)
    .reduce((longest, [, ms]) => Math.max(longest, ms), 0)
}

/**
 * Asks GET /health of a built server over and over, one at a time on one kept-alive
 * connection, `gapMs` apart, timing each answer (but the first, which opens the connection),
 * until stopped. From a process of its own, so that the test's own work (building bodies,
 * writing them) never delays a probe. A probe without an answer within 30 s counts as status 0.
 * Beside them, the longest hold of the server's event loop meanwhile (loop-hold.cjs).
 */
export function probeHealth (server: BuiltServer, gapMs = 5): HealthProbes {
  const from = Date.now()
  const prober = spawn(process.execPath, ['-e', PROBER, String(server.port), String(gapMs)], { stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  prober.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
  const exited = new Promise<void>((resolve) => prober.once('exit', () => resolve()))
  return {
    async stop () {
      prober.stdin.end()
      await exited
      const probes = JSON.parse(out) as { count: number; statuses: number[]; slowestMs: number }
      return { ...probes, heldMs: longestHold(server, from, Date.now()) }
    },
  }
}

/**
 * A signed-in person of this role, made through the API with the admin token, and a personal
 * access token of theirs (what the least privileged user can get by themselves).
 */
export async function personalAccessToken (base: string, rootRole: 'Admin' | 'Editor' | 'Viewer'): Promise<string> {
  const username = `${rootRole.toLowerCase()}-${Math.random().toString(36).slice(2, 10)}`
  const created = await fetch(`${base}/api/admin/user-admin`, {
    method: 'POST',
    headers: { authorization: ADMIN_SECRET, 'content-type': 'application/json' },
    body: JSON.stringify({ username, rootRole, password: PASSWORD }),
  })
  if (created.status !== 201) throw new Error(`user not created: ${await created.text()}`)
  const sameOrigin = { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' }
  const login = await fetch(`${base}/auth/simple/login`, { method: 'POST', headers: sameOrigin, body: JSON.stringify({ username, password: PASSWORD }) })
  const cookie = sessionCookieOf(login)
  if (login.status !== 200 || cookie === undefined) throw new Error(`login failed: ${login.status}`)
  const pat = await fetch(`${base}/api/admin/user/tokens`, {
    method: 'POST',
    headers: { ...sameOrigin, cookie: `unleash-session=${cookie.value}` },
    body: JSON.stringify({ description: 'attacker', expiresAt: new Date(Date.now() + 3_600_000).toISOString() }),
  })
  if (pat.status !== 201) throw new Error(`token not created: ${await pat.text()}`)
  return ((await pat.json()) as { secret: string }).secret
}
