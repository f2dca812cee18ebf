import { randomBytes } from 'node:crypto'
import { CUSTOM_STRATEGY, playgroundContext, playgroundExport, SEGMENTS, seededRandom } from '../../test/helpers/playground-state.js'
import { archive, call } from '../lib/api.js'
import type { Bench } from '../lib/bench.js'
import { load, type Row, type Target } from '../lib/measure.js'

/** Flags of the playground scenario (BENCH_PLAYGROUND_FLAGS). */
export const PLAYGROUND_FLAGS = Number(process.env.BENCH_PLAYGROUND_FLAGS ?? 1000)
const CONNECTIONS = 4
/** Features per import request: Unleash refuses bodies over 100 kB. */
const CHUNK = 25

/** Creates what an import of the state needs first (both servers import segments and strategies by name); already there is fine. */
async function prepare (target: Target) {
  for (const [path, body] of [['/api/admin/strategies', CUSTOM_STRATEGY], ...SEGMENTS.map((s) => ['/api/admin/segments', s] as const)] as const) {
    await call(target, 'POST', path, body).catch((error: Error) => {
      if (!/: (409|400) /.test(error.message)) throw error
    })
  }
}

/** The state of test/helpers/playground-state.ts with PLAYGROUND_FLAGS flags, imported in parts; their names. */
async function importState (target: Target, importHeaders: Record<string, string>, prefix: string) {
  const data = playgroundExport(41, PLAYGROUND_FLAGS, 'development', { prefix })
  const importer = { ...target, headers: importHeaders }
  for (let start = 0; start < data.features.length; start += CHUNK) {
    const names = new Set(data.features.slice(start, start + CHUNK).map((f) => f.name))
    const part = {
      ...data,
      features: data.features.filter((f) => names.has(f.name)),
      featureStrategies: data.featureStrategies.filter((s) => names.has(s.featureName)),
      featureEnvironments: data.featureEnvironments.filter((e) => names.has(e.featureName)),
      dependencies: data.dependencies.filter((d) => names.has(d.feature)),
    }
    await call(importer, 'POST', '/api/admin/features-batch/import', { project: 'default', environment: 'development', data: part })
  }
  return data.features.map((f) => f.name)
}

/**
 * The playground over PLAYGROUND_FLAGS flags of the rich state the differential test compares
 * (every operator, segments, dependencies, variants, disabled strategies): each request a new
 * context; and the advanced playground with 2 × 5 combinations (10 contexts) per request. The
 * flags are archived afterwards, so that later parts do not see them.
 */
export async function playgroundScenarios (target: Target, pid: number | undefined, importHeaders: Record<string, string>, label = ''): Promise<Row[]> {
  const prefix = `pg-${randomBytes(3).toString('hex')}`
  await prepare(target)
  const names = await importState(target, importHeaders, prefix)
  const r = seededRandom(7)
  const contexts = Array.from({ length: 1000 }, () => playgroundContext(r))
  const body = (i: number) => JSON.stringify({ environment: 'development', projects: ['default'], context: contexts[i % contexts.length] })
  // 2 users × 5 sessions: 10 contexts per request.
  const advanced = (i: number) =>
    JSON.stringify({ environments: ['development'], projects: ['default'], context: { ...contexts[i % contexts.length], userId: `u-${i % 40},u-${(i + 1) % 40}`, sessionId: 's-1,s-2,s-3,s-4,s-5' } })
  // The answer covers every flag (and no other): what the rows measure.
  const first = await fetch(`${target.base}/api/admin/playground`, { method: 'POST', headers: target.headers, body: body(0) })
  const answer = (await first.json()) as { features: { name: string }[] }
  const ours = answer.features.filter((f) => f.name.startsWith(`${prefix}-`)).length
  if (ours !== PLAYGROUND_FLAGS) throw new Error(`the playground answered ${ours} of the ${PLAYGROUND_FLAGS} flags (${answer.features.length} in all)`)
  const size = Math.round(JSON.stringify(answer).length / 1024)
  const rows = [
    await load(target, `${label}POST /api/admin/playground, ${answer.features.length} flags (${size} kB), a new context each, ${CONNECTIONS} conn`, CONNECTIONS, (i) => ({ path: '/api/admin/playground', method: 'POST', body: body(i) }), pid, [200]),
    await load(target, `${label}POST /api/admin/playground/advanced, ${answer.features.length} flags × 10 contexts, ${CONNECTIONS} conn`, CONNECTIONS, (i) => ({ path: '/api/admin/playground/advanced', method: 'POST', body: advanced(i) }), pid, [200]),
  ]
  // Children before their parents (a parent others depend on cannot be archived).
  await archive(target, [...names].reverse())
  return rows
}

/** Ours, then Unleash's beside it when it runs with a personal access token (its import needs one). */
export async function playgroundPart ({ target, pid, unleash }: Bench): Promise<Row[]> {
  const rows = await playgroundScenarios(target, pid, target.headers)
  if (unleash?.pat) {
    try {
      rows.push(...(await playgroundScenarios(unleash, unleash.pid, { ...unleash.headers, authorization: unleash.pat }, 'Unleash: ')))
    } catch (error) {
      console.log(`Unleash, playground: ${(error as Error).message.slice(0, 1000)}`)
    }
  }
  return rows
}
