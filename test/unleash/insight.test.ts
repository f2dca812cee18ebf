/**
 * Feature search and usage series, side by side with real Unleash 8.2: a rich state is built in
 * Unleash, exported and imported here, and marked alike on both (stale, archived, completed);
 * then dozens of searches must answer alike, and the same SDK reports sent to both must give the
 * same hourly series and summaries. What differs on purpose is normalised and named: when things
 * happened (the same order, not the same milliseconds), Unleash's tag colours.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { setTimeout as sleep } from 'node:timers/promises'
import { auth, buildTestApp, createToken, json, type TestApp } from '../helpers/app.js'
import { createDatabase, dropDatabase } from '../helpers/database.js'
import { type RunningUnleash, startUnleash } from '../helpers/unleash.js'

const serverUrl = inject('postgresUrl')
let databaseUrl = ''
let unleash: RunningUnleash
let ours: TestApp

async function inUnleash (method: string, path: string, body?: unknown, headers = unleash.adminHeaders) {
  const res = await fetch(`${unleash.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`Unleash ${method} ${path}: ${res.status} ${text}`)
  return text ? JSON.parse(text) : undefined
}
async function here (method: string, path: string, body?: unknown, secret?: string) {
  const res = await ours.app.inject({ method: method as 'GET', url: path, headers: auth(secret), ...(body === undefined ? {} : { payload: body as object }) })
  if (res.statusCode >= 300) throw new Error(`ours ${method} ${path}: ${res.statusCode} ${res.body}`)
  return res.body ? json(res) : undefined
}
/** The same write on both servers. */
const both = async (method: string, path: string, body?: unknown) => {
  await inUnleash(method, path, body)
  await here(method, path, body)
}

const TYPES = ['release', 'experiment', 'operational', 'kill-switch', 'permission']
const NAMES = Array.from({ length: 30 }, (_, i) => `ins-${['alpha', 'beta', 'gamma', 'delta', 'omega'][i % 5]}-${String(i).padStart(2, '0')}`)

/** A team's flags in Unleash: types, descriptions, tags, a segment, strategies, variants, a dependency, flags on and off. */
async function buildState () {
  await inUnleash('POST', '/api/admin/tag-types', { name: 'team', description: 'owning team' })
  const segment = await inUnleash('POST', '/api/admin/segments', { name: 'beta-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1', 'u2'] }] })
  const base = '/api/admin/projects/default/features'
  for (const [i, name] of NAMES.entries()) {
    const description = i % 4 === 0 ? `Checkout step ${i}` : i % 7 === 0 ? 'search results page' : undefined
    await inUnleash('POST', base, { name, type: TYPES[i % TYPES.length], ...(description && { description }) })
    if (i % 3 === 0) await inUnleash('POST', `/api/admin/features/${name}/tags`, { type: 'simple', value: 'red' })
    if (i % 5 === 0) await inUnleash('POST', `/api/admin/features/${name}/tags`, { type: 'simple', value: 'blue' })
    if (i % 4 === 1) await inUnleash('POST', `/api/admin/features/${name}/tags`, { type: 'team', value: 'core' })
    if (i % 6 === 2) {
      await inUnleash('POST', `${base}/${name}/environments/production/strategies`, { name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: name }, segments: [segment.id] })
    }
    if (i % 8 === 3) await inUnleash('POST', `${base}/${name}/environments/development/strategies`, { name: 'default', disabled: true })
    if (i % 2 === 0) await inUnleash('POST', `${base}/${name}/environments/development/on`)
    if (i % 3 === 1) await inUnleash('POST', `${base}/${name}/environments/production/on`)
    if (i % 9 === 4) {
      await inUnleash('PUT', `${base}/${name}/environments/development/variants`, [
        { name: 'a', weight: 500, weightType: 'variable', stickiness: 'default' },
        { name: 'b', weight: 500, weightType: 'variable', stickiness: 'default' },
      ])
    }
  }
  await inUnleash('POST', `${base}/${NAMES[11]}/dependencies`, { feature: NAMES[10], enabled: true })
}

beforeAll(async () => {
  databaseUrl = await createDatabase(serverUrl, 'unleash_insight')
  unleash = await startUnleash({ databaseUrl })
  ours = await buildTestApp({ CLIENT_STATE_CACHE_MS: '0' })
  await buildState()
  // What an Unleash export does not carry in full, made here first (as a user does).
  await here('POST', '/api/admin/tag-types', { name: 'team', description: 'owning team' })
  await here('POST', '/api/admin/segments', { name: 'beta-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1', 'u2'] }] })
  for (const environment of ['development', 'production']) {
    const exported = await inUnleash('POST', '/api/admin/features-batch/export', { environment, project: 'default' })
    await here('POST', '/api/admin/features-batch/import', { project: 'default', environment, data: exported })
  }
  // Marked alike on both: stale flags, archived flags, a completed flag.
  await both('POST', '/api/admin/projects/default/stale', { features: [NAMES[2], NAMES[7], NAMES[12]], stale: true })
  for (const name of [NAMES[5], NAMES[17]]) await both('DELETE', `/api/admin/projects/default/features/${name}`)
  await both('POST', `/api/admin/projects/default/features/${NAMES[9]}/lifecycle/complete`, { status: 'kept' })
  // Created at the same moments: Unleash's creation times copied here, so that orders and date filters meet the same values.
  const theirs = await inUnleash('GET', '/api/admin/search/features?limit=100')
  const archived = await inUnleash('GET', '/api/admin/search/features?limit=100&archived=IS:true')
  for (const f of [...theirs.features, ...archived.features]) {
    await ours.database.db.updateTable('features').set({ created_at: new Date(f.createdAt) } as never).where('name', '=', f.name).execute()
  }
}, 600_000)

afterAll(async () => {
  await unleash?.stop()
  await ours?.close()
  if (databaseUrl) await dropDatabase(serverUrl, databaseUrl)
})

/** A search answer as both must give it. */
function normalise (answer: { features: any[]; total: number }) {
  return {
    total: answer.total,
    features: answer.features.map((f) => ({
      name: f.name,
      type: f.type,
      description: f.description,
      project: f.project,
      stale: f.stale,
      favorite: f.favorite,
      impressionData: f.impressionData,
      createdAt: f.createdAt,
      archived: f.archivedAt !== null,
      dependencyType: f.dependencyType,
      segments: f.segments,
      createdBy: f.createdBy,
      // Unleash's simple tags have a colour, ours none: the tags themselves, in any order.
      tags: (f.tags ?? []).map((t: any) => `${t.type}:${t.value}`).sort(),
      lifecycle: f.lifecycle && { stage: f.lifecycle.stage, status: f.lifecycle.status },
      environments: f.environments.map((e: any) => ({
        name: e.name,
        enabled: e.enabled,
        type: e.type,
        sortOrder: e.sortOrder,
        variantCount: e.variantCount,
        hasStrategies: e.hasStrategies,
        hasEnabledStrategies: e.hasEnabledStrategies,
        yes: e.yes,
        no: e.no,
        seen: e.lastSeenAt !== null,
      })),
    })),
  }
}

const QUERIES = [
  '', 'limit=100', 'sortBy=name', 'sortBy=name&sortOrder=desc', 'sortBy=type', 'sortBy=type&sortOrder=desc', 'sortOrder=desc',
  'sortBy=environment:production', 'sortBy=environment:production&sortOrder=desc', 'sortBy=environment:development&limit=100', 'sortBy=stale&limit=100',
  'sortBy=lastSeenAt', 'query=checkout', 'query=CHECK,search&limit=100', 'query=ins-a', 'query=%20,%20',
  'type=IS:experiment', 'type=IS_NOT:release&limit=100', 'type=IS_ANY_OF:release,permission', 'type=IS_NONE_OF:release,permission&limit=100',
  'tag=INCLUDE:simple:red', 'tag=INCLUDE_ANY_OF:simple:red,team:core', 'tag=INCLUDE_ALL_OF:simple:red,simple:blue', 'tag=DO_NOT_INCLUDE:simple:red',
  'tag=EXCLUDE_IF_ANY_OF:simple:red,team:core', 'tag=EXCLUDE_ALL:simple:red,simple:blue&limit=100',
  'segment=INCLUDE:beta-users', 'segment=DO_NOT_INCLUDE:beta-users&limit=100',
  'state=IS:stale', 'state=IS:active&limit=100', 'state=IS_NOT:stale&sortBy=name', 'state=IS_ANY_OF:stale,potentially-stale',
  'lifecycle=IS:completed', 'lifecycle=IS_NOT:completed&limit=100', 'lifecycle=IS:archived', 'archived=IS:true', 'lifecycle=IS_ANY_OF:initial,archived&limit=100',
  'status=production:enabled&status=development:disabled', 'status=development:enabled&status=development:disabled&limit=100',
  'createdAt=IS_BEFORE:2000-01-01', 'createdAt=IS_ON_OR_AFTER:2000-01-01&sortBy=name', 'createdBy=IS:-42&limit=3',
  'limit=5', 'limit=5&offset=5', 'offset=25', 'limit=200',
  'project=IS:default&type=IS:release&sortBy=name&sortOrder=desc&limit=7&offset=2',
]

describe('feature search, side by side with Unleash 8.2', () => {
  it(`${QUERIES.length} searches answer alike`, async () => {
    const differences: string[] = []
    for (const query of QUERIES) {
      const theirs = normalise(await inUnleash('GET', `/api/admin/search/features?${query}`))
      const mine = normalise(await here('GET', `/api/admin/search/features?${query}`))
      if (JSON.stringify(theirs) !== JSON.stringify(mine)) {
        differences.push(`${query || '(none)'}:\n  Unleash: ${JSON.stringify(theirs).slice(0, 1500)}\n  ours:    ${JSON.stringify(mine).slice(0, 1500)}`)
      }
    }
    expect(differences).toEqual([])
  })

  it('refuses alike what a parameter\'s pattern does not allow', async () => {
    for (const query of ['type=IS_BEFORE:x', 'tag=IS:simple:a', 'createdAt=IS:2020-01-01', 'sortOrder=up', 'archived=true']) {
      const theirs = await fetch(`${unleash.url}/api/admin/search/features?${query}`, { headers: unleash.adminHeaders })
      await theirs.text()
      const mine = await ours.app.inject({ method: 'GET', url: `/api/admin/search/features?${query}`, headers: auth() })
      expect([query, mine.statusCode]).toEqual([query, theirs.status])
    }
  })
})

describe('usage series, side by side with Unleash 8.2', () => {
  const HOUR = 3_600_000
  const reports = [
    { environment: 'development', appName: 'web', hoursAgo: 3, toggles: { [NAMES[0]!]: { yes: 5, no: 1, variants: { a: 3, b: 2 } }, [NAMES[1]!]: { yes: 0, no: 4 } } },
    { environment: 'development', appName: 'web', hoursAgo: 0, toggles: { [NAMES[0]!]: { yes: 2, no: 2 } } },
    { environment: 'development', appName: 'api', hoursAgo: 1, toggles: { [NAMES[0]!]: { yes: 7, no: 0 } } },
    { environment: 'production', appName: 'api', hoursAgo: 0, toggles: { [NAMES[0]!]: { yes: 1, no: 9 }, [NAMES[1]!]: { yes: 3, no: 3 } } },
  ]

  beforeAll(async () => {
    const secrets = {
      unleash: { development: await unleash.createClientToken({ environment: 'development' }), production: await unleash.createClientToken({ environment: 'production' }) },
      ours: { development: await createToken(ours.app, { type: 'client', environment: 'development' }), production: await createToken(ours.app, { type: 'client', environment: 'production' }) },
    }
    for (const r of reports) {
      const stop = new Date(Date.now() - r.hoursAgo * HOUR).toISOString()
      const body = { appName: r.appName, instanceId: `${r.appName}-1`, bucket: { start: stop, stop, toggles: r.toggles } }
      const env = r.environment as 'development' | 'production'
      await inUnleash('POST', '/api/client/metrics', body, { authorization: secrets.unleash[env], 'content-type': 'application/json' })
      await here('POST', '/api/client/metrics', body, secrets.ours[env])
    }
    await ours.app.usage.flush()
    // Unleash writes what was reported every 5 s, when flags were last seen every 30 s.
    const deadline = Date.now() + 90_000
    for (;;) {
      const seen = await inUnleash('GET', `/api/admin/search/features?query=${NAMES[0]}`)
      const raw = await inUnleash('GET', `/api/admin/client-metrics/features/${NAMES[1]}/raw`)
      if (raw.data.length > 0 && seen.features[0]?.environments.every((e: any) => e.lastSeenAt !== null)) break
      if (Date.now() > deadline) throw new Error('Unleash did not write the usage reports within 90 s')
      await sleep(1000)
    }
  }, 180_000)

  const order = (rows: any[]) => [...rows].sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.environment.localeCompare(b.environment) || (a.appName ?? '').localeCompare(b.appName ?? ''))

  it('the same reports give the same hourly series, for several windows, and the same summaries', async () => {
    for (const name of [NAMES[0]!, NAMES[1]!, NAMES[2]!, 'ins-no-such-flag']) {
      for (const query of ['', '?hoursBack=1', '?hoursBack=4', '?hoursBack=48', '?hoursBack=0', '?hoursBack=abc']) {
        const theirs = await inUnleash('GET', `/api/admin/client-metrics/features/${name}/raw${query}`)
        const mine = await here('GET', `/api/admin/client-metrics/features/${name}/raw${query}`)
        expect({ name, query, ...mine, data: order(mine.data) }).toEqual({ name, query, ...theirs, data: order(theirs.data) })
      }
      const theirs = await inUnleash('GET', `/api/admin/client-metrics/features/${name}`)
      const mine = await here('GET', `/api/admin/client-metrics/features/${name}`)
      const byEnvironment = (s: any) => ({ ...s, lastHourUsage: [...s.lastHourUsage].sort((a: any, b: any) => a.environment.localeCompare(b.environment)) })
      expect(byEnvironment(mine)).toEqual(byEnvironment(theirs))
    }
  })

  // When a flag was last seen differs by seconds (Unleash stamps it when it writes, every 30 s;
  // this server when the report arrives): which flags were seen, and where, is compared.
  it('searches see the same last hour and the same flags seen', async () => {
    for (const query of [`query=${NAMES[0]}`, `query=${NAMES[1]}`, 'sortBy=name&lastSeenAt=IS_ON_OR_AFTER:2000-01-01&limit=100', 'lastSeenAt=IS_BEFORE:2000-01-01']) {
      const theirs = normalise(await inUnleash('GET', `/api/admin/search/features?${query}`))
      const mine = normalise(await here('GET', `/api/admin/search/features?${query}`))
      expect({ query, ...mine }).toEqual({ query, ...theirs })
    }
  })
})
