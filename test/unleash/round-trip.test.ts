/**
 * The round trip with real Unleash 8.2: rich state built through Unleash's admin API (links and a
 * stale flag among it) is exported from Unleash and imported here; the exports are equal feature
 * by feature (metadata, strategies in the order SDKs evaluate them, state, variants, tags,
 * dependencies, links) and the official Node SDK reading each server's client API answers the
 * same for hundreds of generated contexts. Exported from here, the file passes Unleash's own
 * validation and imports into a fresh Unleash, which then exports the same and answers the same
 * again. Importing the same file again changes nothing here, and a bad file changes nothing.
 */
import { once } from 'node:events'
import { InMemStorageProvider, Unleash } from 'unleash-client'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { auth, buildTestApp, json, type TestApp } from '../helpers/app.js'
import { createDatabase, dropDatabase } from '../helpers/database.js'
import { databaseFingerprint } from '../helpers/state.js'
import { type RunningUnleash, startUnleash } from '../helpers/unleash.js'

const serverUrl = inject('postgresUrl')
const databases: string[] = []
let source: RunningUnleash
let ours: TestApp
let oursUrl = ''

beforeAll(async () => {
  const url = await createDatabase(serverUrl, 'unleash_source')
  databases.push(url)
  source = await startUnleash({ databaseUrl: url })
  ours = await buildTestApp({ CLIENT_STATE_CACHE_MS: '0' })
  await ours.app.listen({ port: 0, host: '127.0.0.1' })
  oursUrl = `http://127.0.0.1:${(ours.app.server.address() as { port: number }).port}`
})

afterAll(async () => {
  await source?.stop()
  await ours?.close()
  for (const url of databases) await dropDatabase(serverUrl, url)
})

async function call (base: string, headers: Record<string, string>, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return text ? JSON.parse(text) : undefined
}
const inUnleash = (u: RunningUnleash, method: string, path: string, body?: unknown) => call(u.url, u.adminHeaders, method, path, body)
const here = (method: string, path: string, body?: unknown) => call(oursUrl, auth(), method, path, body)

const BETA = { name: 'rt-beta', description: 'new app versions', constraints: [{ contextName: 'appVersion', operator: 'SEMVER_GTE', value: '2.0.0' }] }
const BY_REGION = { name: 'rt-by-region', description: 'custom', parameters: [{ name: 'regions', type: 'list', description: 'where', required: false }] }
const FEATURES = ['rt-rollout', 'rt-numbers', 'rt-dates', 'rt-strings', 'rt-custom', 'rt-child', 'rt-off']

/** What a team has in Unleash: every operator, segments, strategy and environment variants, a custom strategy, a dependency, tags, a context field with legal values, several feature types. */
async function buildRichState (u: RunningUnleash) {
  await inUnleash(u, 'POST', '/api/admin/context', { name: 'plan', description: 'billing plan', stickiness: true, legalValues: [{ value: 'gold', description: 'pays most' }, { value: 'silver' }, { value: 'free' }] })
  const segment = await inUnleash(u, 'POST', '/api/admin/segments', BETA)
  await inUnleash(u, 'POST', '/api/admin/strategies', BY_REGION)
  await inUnleash(u, 'POST', '/api/admin/tag-types', { name: 'team', description: 'owning team' })
  const base = '/api/admin/projects/default/features'
  const types: Record<string, string> = { 'rt-rollout': 'release', 'rt-numbers': 'operational', 'rt-dates': 'experiment', 'rt-strings': 'release', 'rt-custom': 'kill-switch', 'rt-child': 'experiment', 'rt-off': 'permission' }
  for (const name of FEATURES) await inUnleash(u, 'POST', base, { name, type: types[name], description: `${name} from Unleash` })
  const strategy = (feature: string, body: object) => inUnleash(u, 'POST', `${base}/${feature}/environments/development/strategies`, body)
  await strategy('rt-rollout', {
    name: 'flexibleRollout',
    parameters: { rollout: '60', stickiness: 'userId', groupId: 'rt-rollout' },
    constraints: [{ contextName: 'plan', operator: 'IN', values: ['gold', 'silver'] }, { contextName: 'userId', operator: 'NOT_IN', values: ['u-13', 'u-14'] }],
    segments: [segment.id],
    variants: [
      { name: 'green', weight: 700, weightType: 'variable', stickiness: 'userId', payload: { type: 'json', value: '{"shade":"light"}' } },
      { name: 'teal', weight: 300, weightType: 'fix', stickiness: 'userId', payload: { type: 'string', value: 'teal' } },
    ],
  })
  await strategy('rt-rollout', { name: 'default', constraints: [{ contextName: 'plan', operator: 'IN', values: ['free'] }, { contextName: 'sessionId', operator: 'STR_ENDS_WITH', values: ['7', '9'] }], variants: [{ name: 'late', weight: 1000, weightType: 'variable', stickiness: 'default' }] })
  await strategy('rt-numbers', {
    name: 'flexibleRollout',
    parameters: { rollout: '100', stickiness: 'default', groupId: 'rt-numbers' },
    constraints: [
      { contextName: 'score', operator: 'NUM_GT', value: '10' },
      { contextName: 'score', operator: 'NUM_LTE', value: '90' },
      { contextName: 'score', operator: 'NUM_EQ', value: '50', inverted: true },
      { contextName: 'age', operator: 'NUM_GTE', value: '18' },
      { contextName: 'age', operator: 'NUM_LT', value: '65' },
    ],
  })
  await strategy('rt-dates', {
    name: 'default',
    constraints: [
      { contextName: 'signupAt', operator: 'DATE_AFTER', value: '2024-01-01T00:00:00.000Z' },
      { contextName: 'signupAt', operator: 'DATE_BEFORE', value: '2026-01-01T00:00:00.000Z' },
      { contextName: 'appVersion', operator: 'SEMVER_GT', value: '1.0.0' },
      { contextName: 'appVersion', operator: 'SEMVER_LT', value: '3.0.0' },
      { contextName: 'appVersion', operator: 'SEMVER_LTE', value: '2.5.0' },
    ],
  })
  await strategy('rt-dates', { name: 'default', constraints: [{ contextName: 'appVersion', operator: 'SEMVER_EQ', value: '4.0.0' }] })
  await strategy('rt-strings', {
    name: 'flexibleRollout',
    parameters: { rollout: '100', stickiness: 'sessionId', groupId: 'rt-strings' },
    constraints: [
      { contextName: 'email', operator: 'STR_STARTS_WITH', values: ['admin', 'ops'], caseInsensitive: true },
      { contextName: 'email', operator: 'STR_CONTAINS', values: ['@example'] },
      { contextName: 'email', operator: 'REGEX', value: '^[a-z]+[0-9]*@' },
      { contextName: 'appVersion', operator: 'SEMVER_GTE', value: '1.5.0' },
    ],
  })
  await strategy('rt-custom', { name: 'rt-by-region', parameters: { regions: 'eu,us' } })
  await strategy('rt-custom', { name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u-1', 'u-2', 'u-3'] }] })
  await strategy('rt-child', { name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: 'rt-child' } })
  await strategy('rt-off', { name: 'default' })
  await inUnleash(u, 'PUT', `${base}/rt-rollout/environments/development/variants`, [
    { name: 'env-a', weight: 500, weightType: 'variable', stickiness: 'userId', payload: { type: 'number', value: '7' }, overrides: [{ contextName: 'userId', values: ['u-5'] }] },
    { name: 'env-b', weight: 500, weightType: 'variable', stickiness: 'userId' },
  ])
  await inUnleash(u, 'PUT', `${base}/rt-strings/environments/development/variants`, [
    { name: 'plain', weight: 1000, weightType: 'variable', stickiness: 'plan', payload: { type: 'csv', value: 'a,b' } },
  ])
  for (const name of FEATURES.filter((n) => n !== 'rt-off')) await inUnleash(u, 'POST', `${base}/${name}/environments/development/on`)
  await inUnleash(u, 'POST', `${base}/rt-child/dependencies`, { feature: 'rt-rollout', enabled: true, variants: ['green'] })
  await inUnleash(u, 'POST', '/api/admin/features/rt-rollout/tags', { type: 'team', value: 'web' })
  await inUnleash(u, 'POST', '/api/admin/features/rt-custom/tags', { type: 'simple', value: 'ops' })
  await inUnleash(u, 'POST', `${base}/rt-rollout/link`, { url: 'github.com/acme/shop/issues/42', title: 'Rollout plan' })
  await inUnleash(u, 'POST', `${base}/rt-rollout/link`, { url: 'https://www.Example.com/dashboards/rollout/?b=2&a=1' })
  await inUnleash(u, 'POST', `${base}/rt-child/link`, { url: 'https://wiki.example.org/child', title: null })
  await inUnleash(u, 'PATCH', `${base}/rt-off`, [{ op: 'replace', path: '/stale', value: true }])
}

type Export = Record<string, any[]>

/**
 * An export feature by feature, without what differs between two servers by design (ids, the
 * project, sortOrder values): each feature's metadata, its strategies in the order the server
 * evaluates them (`order`: ids in that order), its state and variants, tags, dependencies, links.
 */
function byFeature (data: Export, order: Map<string, string[]>) {
  const segmentName = new Map(data.segments!.map((s) => [s.id, s.name]))
  const position = (feature: string, id: string) => order.get(feature)?.indexOf(id) ?? -1
  return Object.fromEntries(data.features!.map(({ name, project: _project, ...feature }) => [name, {
    ...feature,
    strategies: data.featureStrategies!
      .filter((s) => s.featureName === name)
      .sort((a, b) => position(name, a.id) - position(name, b.id))
      .map(({ id: _id, sortOrder: _sortOrder, segments, ...s }) => ({ ...s, segments: (segments ?? []).map((i: number) => segmentName.get(i)) })),
    environment: data.featureEnvironments!.filter((e) => e.featureName === name).map(({ enabled, variants }) => ({ enabled, variants })),
    tags: data.featureTags!.filter((t) => t.featureName === name).map((t) => `${t.tagType}:${t.tagValue}`).sort(),
    dependencies: data.dependencies!.find((d) => d.feature === name)?.dependencies ?? [],
    links: (data.links!.find((l) => l.feature === name)?.links ?? []).map(({ url, title }: { url: string, title: string | null }) => ({ url, title: title ?? null })),
  }]))
}

/** Each feature's strategy ids in the order the file lists them. */
function fileOrder (data: Export) {
  const order = new Map<string, string[]>()
  for (const s of data.featureStrategies!) order.set(s.featureName, [...(order.get(s.featureName) ?? []), s.id])
  return order
}

/** Each feature's strategy ids in the order the server evaluates them (its admin read, sortOrder first). */
async function evaluationOrder (read: (method: string, path: string) => Promise<any>) {
  const order = new Map<string, string[]>()
  for (const name of FEATURES) {
    const feature = await read('GET', `/api/admin/projects/default/features/${name}`)
    const development = feature.environments.find((e: { name: string }) => e.name === 'development')
    order.set(name, [...development.strategies].sort((a: any, b: any) => a.sortOrder - b.sortOrder).map((s: any) => s.id))
  }
  return order
}

/** What a user of Unleash does before importing an Unleash export: the segment and the custom strategy (Unleash exports neither in full). */
async function prepare (call: (method: string, path: string, body?: unknown) => Promise<unknown>) {
  await call('POST', '/api/admin/segments', BETA)
  await call('POST', '/api/admin/strategies', BY_REGION)
}

/** Hundreds of contexts, the same every run. */
function contexts (count: number) {
  // mulberry32: small, and every bit of it varies.
  let seed = 42
  const next = (n: number) => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return Math.floor((((x ^ (x >>> 14)) >>> 0) / 4294967296) * n)
  }
  const pick = <T>(list: readonly T[]) => list[next(list.length)] as T
  return Array.from({ length: count }, (_, i) => ({
    userId: `u-${next(40)}`,
    sessionId: `s-${next(1000)}`,
    remoteAddress: `10.0.${next(4)}.${next(255)}`,
    properties: {
      plan: pick(['gold', 'silver', 'free', 'none']),
      appVersion: pick(['1.0.0', '1.5.0', '2.0.0', '2.4.9', '2.5.0', '3.0.0', '4.0.0', '2.0.0-rc.1']),
      score: String(next(120)),
      age: String(next(80)),
      signupAt: pick(['2023-06-01T00:00:00Z', '2024-06-01T12:00:00Z', '2025-12-31T23:59:59Z', '2026-02-01T00:00:00Z']),
      email: pick(['admin1@example.com', 'Ops@example.org', 'dev@other.com', 'ADMIN@EXAMPLE.com', 'x@example.net']),
    },
    ...(i % 5 === 0 && { currentTime: new Date(Date.UTC(2025, 0, 1 + next(365))) }),
  }))
}

/** What the official SDK answers, reading a server's client API, for each feature and context. */
async function answersOf (url: string, token: string, list: ReturnType<typeof contexts>) {
  const sdk = new Unleash({ url: `${url}/api`, appName: 'round-trip', customHeaders: { Authorization: token }, disableMetrics: true, refreshInterval: 60_000, storageProvider: new InMemStorageProvider() })
  sdk.on('error', () => {})
  sdk.on('warn', () => {})
  try {
    await once(sdk, 'synchronized')
    return list.map((context) =>
      FEATURES.map((feature) => {
        const variant = sdk.getVariant(feature, context)
        return `${feature}:${sdk.isEnabled(feature, context)}:${variant.name}:${variant.enabled}:${JSON.stringify(variant.payload ?? null)}`
      }).join(' ')
    )
  } finally {
    sdk.destroy()
  }
}

/** Waits until a server's client API serves every feature (Unleash refreshes what it serves on a timer). */
async function servedBy (url: string, token: string) {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${url}/api/client/features`, { headers: { authorization: token } })
    const names = ((await res.json()) as { features: { name: string }[] }).features.map((f) => f.name)
    if (FEATURES.every((f) => names.includes(f))) return
    if (attempt > 100) throw new Error(`${url} serves only ${names.join(', ')}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

const clientTokenHere = async () => (await here('POST', '/api/admin/api-tokens', { tokenName: `sdk-${Date.now()}`, type: 'client', environment: 'development' })).secret as string

describe('the round trip with Unleash 8.2', () => {
  it('Unleash → here → a fresh Unleash: the official SDK answers the same everywhere; again changes nothing; a bad file changes nothing', async () => {
    await buildRichState(source)
    const exported = await inUnleash(source, 'POST', '/api/admin/features-batch/export', { environment: 'development', project: 'default' })
    expect(exported.features.map((f: { name: string }) => f.name).sort()).toEqual([...FEATURES].sort())

    expect(exported.links.map((l: { feature: string }) => l.feature).sort()).toEqual(['rt-child', 'rt-rollout'])

    await prepare(here)
    const validation = await here('POST', '/api/admin/features-batch/validate', { project: 'default', environment: 'development', data: exported })
    // Nothing of Unleash's export is left behind (no "not kept" warning): links are kept now.
    expect(validation.errors).toEqual([])
    expect(validation.warnings).toEqual([{ message: expect.stringMatching(/^The following strategy types will be used in import/), affectedItems: ['rt-by-region'] }])
    await here('POST', '/api/admin/features-batch/import', { project: 'default', environment: 'development', data: exported })
    // Feature by feature, here is what Unleash's file says: strategies in the order it lists them
    // (it carries no sortOrder, and lists them as its table stores them, which is not always the
    // order Unleash evaluates them in: that order is not in the file), links, stale.
    const sourceFeatures = byFeature(exported, fileOrder(exported))
    const ourExportOfImport = await here('POST', '/api/admin/features-batch/export', { environment: 'development', project: 'default' })
    const hereFeatures = byFeature(ourExportOfImport, await evaluationOrder(here))
    expect(hereFeatures).toEqual(sourceFeatures)
    expect(sourceFeatures['rt-off']!.stale).toBe(true)
    expect(sourceFeatures['rt-rollout']!.links).toEqual([
      { url: 'https://github.com/acme/shop/issues/42', title: 'Rollout plan' },
      { url: 'https://example.com/dashboards/rollout?a=1&b=2', title: null },
    ])
    // Every strategy of this export carries an integer sortOrder, in the order SDKs evaluate them.
    for (const s of ourExportOfImport.featureStrategies) expect(Number.isInteger(s.sortOrder)).toBe(true)

    const list = contexts(400)
    await servedBy(source.url, await source.createClientToken())
    const expected = await answersOf(source.url, await source.createClientToken(), list)
    const fromHere = await answersOf(oursUrl, await clientTokenHere(), list)
    // Every feature is on for some contexts and off for others (rt-off for none).
    for (const feature of FEATURES.filter((f) => f !== 'rt-off')) {
      const on = expected.filter((e) => e.includes(`${feature}:true`)).length
      expect(on, feature).toBeGreaterThan(0)
      expect(on, feature).toBeLessThan(list.length)
    }
    expect(new Set(expected).size).toBeGreaterThan(20)
    expect(fromHere).toEqual(expected)

    // The same file again changes nothing; a bad file (a bad element late in it) changes nothing.
    const before = await databaseFingerprint(ours.database.db)
    await here('POST', '/api/admin/features-batch/import', { project: 'default', environment: 'development', data: exported })
    expect(await databaseFingerprint(ours.database.db)).toEqual(before)
    const bad = structuredClone(exported)
    bad.featureStrategies.at(-1).constraints = [{ contextName: 'appVersion', operator: 'SEMVER_EQ', value: 'not-a-version', values: [] }]
    await expect(here('POST', '/api/admin/features-batch/import', { project: 'default', environment: 'development', data: bad })).rejects.toThrow(/400 .*semver/)
    expect(await databaseFingerprint(ours.database.db)).toEqual(before)

    // From here into a fresh Unleash: this server's export as it comes (segments {id, name}, as
    // Unleash's schema requires) passes Unleash's own validation; its import wants a personal
    // access token, and the segments and custom strategy created first, as Unleash's own export does.
    const ourExport = json(await ours.app.inject({ method: 'POST', url: '/api/admin/features-batch/export', headers: auth(), payload: { environment: 'development', project: 'default' } }))
    const url = await createDatabase(serverUrl, 'unleash_target')
    databases.push(url)
    const target = await startUnleash({ databaseUrl: url })
    try {
      await prepare((method, path, body) => inUnleash(target, method, path, body))
      const pat = await target.createPersonalAccessToken()
      const theirValidation = await call(target.url, { authorization: pat }, 'POST', '/api/admin/features-batch/validate', { project: 'default', environment: 'development', data: ourExport })
      expect(theirValidation.errors).toEqual([])
      await call(target.url, { authorization: pat }, 'POST', '/api/admin/features-batch/import', { project: 'default', environment: 'development', data: ourExport })
      const targetExport = await inUnleash(target, 'POST', '/api/admin/features-batch/export', { environment: 'development', project: 'default' })
      expect(byFeature(targetExport, await evaluationOrder((method, path) => inUnleash(target, method, path)))).toEqual(hereFeatures)
      const targetToken = await target.createClientToken()
      await servedBy(target.url, targetToken)
      const inFresh = await answersOf(target.url, targetToken, list)
      expect(inFresh).toEqual(expected)
    } finally {
      await target.stop()
    }
  }, 900_000)
})
