import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { freePort } from './postgres.js'
import { ensureUnleash, UNLEASH_VERSION } from './unleash-install.js'

const ENTRY = fileURLToPath(new URL('./unleash-entry.mjs', import.meta.url))
/** A fresh database is migrated on start (a few hundred migrations): give it time. */
const START_TIMEOUT_MS = 180_000
const STOP_TIMEOUT_MS = 15_000

export interface StartUnleashOptions {
  /** An empty database of the caller's own (or one this Unleash used before): Unleash migrates it. */
  databaseUrl: string
  /** Default: a free port. */
  port?: number
  /** More environment for Unleash (LOG_LEVEL, UNLEASH_* settings…); wins over the helper's. */
  env?: Record<string, string>
  /** Keep the log file after stop() (it is always kept when the start fails). */
  keepLog?: boolean
  /** Progress lines (the install, the start). */
  log?: (line: string) => void
}

export interface TokenScope {
  /** Default `development`. */
  environment?: string
  /** Default every project (`*`). */
  projects?: string[]
}

export interface RunningUnleash {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string
  /** An admin API token for every project and environment (Unleash's INIT_ADMIN_API_TOKENS). */
  adminToken: string
  /** Headers for admin API calls with adminToken (authorization, JSON content type). */
  adminHeaders: Record<string, string>
  /** The first admin, created by Unleash on its first start. */
  admin: { username: string, password: string }
  /** Unleash's own Node process (for CPU time and memory from /proc). */
  pid: number
  /** Everything Unleash printed. */
  logFile: string
  /** Milliseconds from spawn to the first healthy /health. */
  startupMs: number
  /** A backend (client) token, through POST /api/admin/api-tokens. */
  createClientToken(scope?: TokenScope): Promise<string>
  /** A frontend token, through POST /api/admin/api-tokens. */
  createFrontendToken(scope?: TokenScope): Promise<string>
  /** Logs in as the first admin: the `unleash-session=…` cookie, for a Cookie header. */
  login(): Promise<string>
  /** Logs in and creates a personal access token of the first admin (features-batch import wants one). */
  createPersonalAccessToken(): Promise<string>
  /** The last lines of the log, to print when something fails. */
  logTail(lines?: number): string
  /** Stops Unleash (SIGTERM, then SIGKILL after 15 s) and waits until it has exited. */
  stop(): Promise<void>
}

/**
 * Starts unleash-server (installed into the cache on first use) as a child process on its own
 * Node 22, on the given database, and waits until it answers /health. Rate limits are raised out
 * of reach, environment variants and the frontend API are on, and nothing is sent anywhere.
 */
export async function startUnleash (options: StartUnleashOptions): Promise<RunningUnleash> {
  const install = await ensureUnleash(options.log)
  const port = options.port ?? (await freePort())
  const url = `http://127.0.0.1:${port}`
  const adminToken = `*:*.${randomBytes(16).toString('hex')}`
  const admin = { username: 'admin', password: `Admin-${randomBytes(9).toString('base64url')}-1` }
  const logDir = mkdtempSync(join(tmpdir(), 'ffapi-unleash-'))
  const logFile = join(logDir, 'unleash.log')
  const logFd = openSync(logFile, 'a')

  const started = performance.now()
  const child = spawn(install.node, [ENTRY], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      UNLEASH_INSTALL_DIR: install.dir,
      DATABASE_URL: options.databaseUrl,
      // The URL says whether to use TLS (sslmode); Unleash would otherwise ask for it.
      DATABASE_SSL: 'false',
      HTTP_PORT: String(port),
      UNLEASH_URL: url,
      INIT_ADMIN_API_TOKENS: adminToken,
      UNLEASH_DEFAULT_ADMIN_USERNAME: admin.username,
      UNLEASH_DEFAULT_ADMIN_PASSWORD: admin.password,
      SEND_TELEMETRY: 'false',
      CHECK_VERSION: 'false',
      LOG_LEVEL: 'info',
      ...options.env,
    },
    // stdin stays open: the entry script exits when it closes (this process is gone).
    stdio: ['pipe', logFd, logFd],
  })
  closeSync(logFd)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const logTail = (lines = 40) => {
    try {
      return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
    } catch {
      return ''
    }
  }

  try {
    await waitHealthy(url, child)
  } catch (error) {
    await kill(child, exited)
    throw new Error(`Unleash ${UNLEASH_VERSION} did not start (${(error as Error).message}); its log, ${logFile}:\n${logTail()}`)
  }
  const startupMs = Math.round(performance.now() - started)
  const adminHeaders = { authorization: adminToken, 'content-type': 'application/json' }

  const createToken = async (type: 'backend' | 'frontend', scope: TokenScope = {}) => {
    const answer = await call(url, 'POST', '/api/admin/api-tokens', adminHeaders, {
      tokenName: `${type}-${randomBytes(4).toString('hex')}`,
      type,
      environment: scope.environment ?? 'development',
      projects: scope.projects ?? ['*'],
    })
    return (answer as { secret: string }).secret
  }
  const login = async () => {
    const res = await fetch(`${url}/auth/simple/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(admin),
    })
    await res.text()
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('unleash-session='))
    if (res.status !== 200 || !cookie) throw new Error(`Unleash login as ${admin.username}: ${res.status}, no session cookie`)
    return cookie.split(';')[0] as string
  }

  return {
    url,
    adminToken,
    adminHeaders,
    admin,
    pid: child.pid as number,
    logFile,
    startupMs,
    createClientToken: (scope) => createToken('backend', scope),
    createFrontendToken: (scope) => createToken('frontend', scope),
    login,
    createPersonalAccessToken: async () => {
      const cookie = await login()
      const expiresAt = new Date(Date.now() + 365 * 24 * 3600 * 1000).toISOString()
      const answer = await call(url, 'POST', '/api/admin/user/tokens', { cookie, 'content-type': 'application/json' }, {
        description: `pat-${randomBytes(4).toString('hex')}`,
        expiresAt,
      })
      return (answer as { secret: string }).secret
    },
    logTail,
    stop: async () => {
      await kill(child, exited)
      if (!options.keepLog) rmSync(logDir, { recursive: true, force: true })
    },
  }
}

/** One admin API call that must succeed: its JSON answer (or undefined when it has none). */
async function call (base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  if (!res.ok) throw new Error(`Unleash ${method} ${path}: ${res.status} ${text.slice(0, 500)}`)
  return text ? JSON.parse(text) as unknown : undefined
}

async function waitHealthy (url: string, child: ChildProcess) {
  const deadline = Date.now() + START_TIMEOUT_MS
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`it exited with ${child.exitCode ?? child.signalCode}`)
    }
    try {
      const res = await fetch(`${url}/health`)
      await res.text()
      if (res.status === 200) return
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`no healthy /health within ${START_TIMEOUT_MS / 1000} s`)
    await sleep(100)
  }
}

async function kill (child: ChildProcess, exited: Promise<void>) {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
  await exited
  clearTimeout(timer)
}
