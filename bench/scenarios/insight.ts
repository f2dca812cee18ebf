/**
 * Insight: feature search at 10,000 flags (BENCH_SEARCH_FLAGS) and a flag's usage read back, 48
 * hours (what Unleash 8.2 keeps and answers) and 30 days (ours keeps 30 days), each beside Unleash
 * when it runs. The flags are imported (as a team moving in would), a tenth of them tagged and a
 * tenth switched on; the usage is reported by SDKs, one bucket per hour of the window.
 */
import { randomBytes } from 'node:crypto'
import { call, inParallel } from '../lib/api.js'
import type { Bench } from '../lib/bench.js'
import { load, type Row, type Target } from '../lib/measure.js'

export const SEARCH_FLAGS = Number(process.env.BENCH_SEARCH_FLAGS ?? 10_000)
const CONNECTIONS = 10
const HOUR = 3_600_000

/** The flags of one import request: every tenth tagged simple:red, every tenth (others) on in development. */
function flags (prefix: string, from: number, to: number) {
  const names = Array.from({ length: to - from }, (_, i) => `${prefix}-${String(from + i).padStart(5, '0')}`)
  return {
    features: names.map((name, i) => ({ name, type: (from + i) % 5 === 0 ? 'experiment' : 'release', description: (from + i) % 100 === 0 ? `checkout step ${from + i}` : null })),
    featureStrategies: [],
    featureEnvironments: names.map((name, i) => ({ name, featureName: name, environment: 'development', enabled: (from + i) % 10 === 3 })),
    featureTags: names.filter((_, i) => (from + i) % 10 === 0).map((featureName) => ({ featureName, tagType: 'simple', tagValue: 'red' })),
    contextFields: [],
    segments: [],
    tagTypes: [],
  }
}

/** Imports SEARCH_FLAGS flags, in requests the server takes (Unleash refuses bodies over 100 kB: 50 flags a request). */
async function importFlags (target: Target, prefix: string, perRequest: number) {
  const starts = Array.from({ length: Math.ceil(SEARCH_FLAGS / perRequest) }, (_, i) => i * perRequest)
  // One after another: an import locks what it writes.
  await inParallel(starts, 1, async (start) => {
    await call(target, 'POST', '/api/admin/features-batch/import', { project: 'default', environment: 'development', data: flags(prefix, start, Math.min(SEARCH_FLAGS, start + perRequest)) })
  })
}

/** Reports one flag's usage from 4 applications in 2 environments, one bucket per hour of the last `hours`. */
async function reportUsage (target: Target, clientToken: (environment: string) => Promise<string>, feature: string, hours: number) {
  const senders: { secret: string; appName: string }[] = []
  for (const environment of ['development', 'production']) {
    for (const appName of ['web', 'ios', 'android', 'api']) senders.push({ secret: await clientToken(environment), appName })
  }
  const now = Date.now()
  const reports = senders.flatMap((s) => Array.from({ length: hours }, (_, h) => ({ ...s, hoursAgo: h })))
  await inParallel(reports, 8, async ({ secret, appName, hoursAgo }) => {
    const stop = new Date(now - hoursAgo * HOUR).toISOString()
    const res = await fetch(`${target.base}/api/client/metrics`, {
      method: 'POST',
      headers: { authorization: secret, 'content-type': 'application/json' },
      body: JSON.stringify({ appName, instanceId: `${appName}-1`, bucket: { start: stop, stop, toggles: { [feature]: { yes: 10 + hoursAgo, no: hoursAgo % 7, variants: { a: 5, b: 5 } } } } }),
    })
    if (res.status !== 202) throw new Error(`metrics: ${res.status} ${await res.text()}`)
  })
}

const tokenMaker = (target: Target, type: 'client' | 'backend') => async (environment: string) => {
  const res = await fetch(`${target.base}/api/admin/api-tokens`, {
    method: 'POST',
    headers: target.headers,
    body: JSON.stringify({ tokenName: `bench-${randomBytes(4).toString('hex')}`, type, environment, ...(type === 'backend' && { projects: ['*'] }) }),
  })
  const body = await res.json() as { secret?: string }
  if (!body.secret) throw new Error(`token: ${res.status} ${JSON.stringify(body)}`)
  return body.secret
}

/** Searches at SEARCH_FLAGS flags, and a flag's usage read for 48 hours and 30 days; Unleash beside. */
export async function insightPart (b: Bench): Promise<Row[]> {
  const prefix = `s${randomBytes(2).toString('hex')}`
  await importFlags(b.target, prefix, 1000)
  const unleash = b.unleash
  const theirs = unleash && { base: unleash.base, headers: { ...unleash.headers, ...(unleash.pat && { authorization: unleash.pat }) } }
  if (unleash && theirs) await importFlags(theirs, prefix, 50)
  const searches = [
    ['the first page (oldest first)', ''],
    ['a name or description, any of two', `query=${prefix}-0042,checkout`],
    ['a type, by name descending, page 100', 'type=IS:release&sortBy=name&sortOrder=desc&offset=5000'],
    ['on in development, by that environment', 'status=development:enabled&status=production:enabled&sortBy=environment:development'],
    ['a tag, not stale, newest first', 'tag=INCLUDE:simple:red&state=IS:active&sortOrder=desc'],
  ] as const
  const rows: Row[] = []
  const read = (path: string) => () => ({ method: 'GET' as const, path })
  for (const [label, query] of searches) {
    const path = `/api/admin/search/features?${query}`
    rows.push(await load(b.target, `search at ${SEARCH_FLAGS} flags: ${label}, ${CONNECTIONS} conn`, CONNECTIONS, read(path), b.pid, [200]))
    if (unleash) rows.push(await load(unleash, `Unleash: search at ${SEARCH_FLAGS} flags: ${label}, ${CONNECTIONS} conn`, CONNECTIONS, read(path), unleash.pid, [200]))
  }

  const feature = `${prefix}-00001`
  await reportUsage(b.target, tokenMaker(b.target, 'client'), feature, 720)
  // What the SDKs reported is written at the next flush (USAGE_FLUSH_MS, 5 s by default).
  await new Promise((resolve) => setTimeout(resolve, 6000))
  if (unleash) await reportUsage(unleash, tokenMaker(unleash, 'backend'), feature, 48)
  if (unleash) await new Promise((resolve) => setTimeout(resolve, 6000))
  const raw = (hours: number) => read(`/api/admin/client-metrics/features/${feature}/raw?hoursBack=${hours}`)
  rows.push(await load(b.target, `a flag's usage, 48 hours (4 applications × 2 environments: 384 rows), ${CONNECTIONS} conn`, CONNECTIONS, raw(48), b.pid, [200]))
  if (unleash) rows.push(await load(unleash, `Unleash: a flag's usage, 48 hours (4 applications × 2 environments: 384 rows), ${CONNECTIONS} conn`, CONNECTIONS, raw(48), unleash.pid, [200]))
  rows.push(await load(b.target, `a flag's usage, 30 days (4 applications × 2 environments: 5,760 rows), ${CONNECTIONS} conn`, CONNECTIONS, raw(720), b.pid, [200]))
  return rows
}
