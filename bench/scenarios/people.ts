import { randomBytes } from 'node:crypto'
import { call } from '../lib/api.js'
import { load, median, type Row, type Target } from '../lib/measure.js'
import type { UnleashTarget } from '../lib/unleash.js'
import { CONNECTIONS, SECRET, WARM_UP_SECONDS } from '../lib/settings.js'

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
export async function peopleScenarios (server: Target, pid: number, unleash?: UnleashTarget): Promise<Row[]> {
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
