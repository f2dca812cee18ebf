import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { rmSync, writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from '../../test/helpers/postgres.js'
import { call, inParallel } from '../lib/api.js'
import type { Bench } from '../lib/bench.js'
import { load, type Row, type Target } from '../lib/measure.js'
import { stopServer } from '../lib/server.js'
import { CLIENT_CONNECTIONS, PAYLOAD, SECONDS, WARM_UP_SECONDS } from '../lib/settings.js'

/** Flag counts of the frontend scenarios (BENCH_FRONTEND_SIZES). */
export const FRONTEND_SIZES = (process.env.BENCH_FRONTEND_SIZES ?? '100,1000,5000').split(',').map(Number)
const USERS = 10_000

/**
 * The strategies of flag `i` of the realistic mix: half plain on, a fifth gradual rollouts, a
 * tenth IN constraints, a tenth two strategies with string and number constraints, a tenth 50 %
 * with strategy variants and payloads.
 */
export function mixStrategies (name: string, i: number): object[] {
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
export async function frontendScenarios (server: Target, count: number, options: { pid?: number; label?: string; project?: string; ofrep?: boolean }): Promise<{ rows: Row[]; body: string }> {
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
export async function staticFloor (body: string, count: number): Promise<Row> {
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

/** At each of FRONTEND_SIZES: ours, the static floor with our answer, then Unleash's beside it when it runs. */
export async function frontendPart ({ target, pid, unleash }: Bench): Promise<Row[]> {
  const frontend: Row[] = []
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
  return frontend
}
