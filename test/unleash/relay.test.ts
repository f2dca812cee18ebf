/**
 * A relay in front of real Unleash 8.2, as a drop-in for Unleash Edge: Unleash has no stream, so
 * the relay polls it with If-None-Match every REFRESH_INTERVAL. The official Node SDK (polling and
 * streaming) behind the relay answers as it does reading Unleash for hundreds of contexts; the
 * frontend API at the relay answers as Unleash's; a token Unleash issued after the relay started
 * is checked with Unleash's POST /edge/validate and served; a change made in Unleash arrives;
 * usage sent to the relay reaches Unleash (the application is registered there).
 */
import { once } from 'node:events'
import { InMemStorageProvider, Unleash } from 'unleash-client'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createDatabase, dropDatabase } from '../helpers/database.js'
import { eventually } from '../helpers/eventually.js'
import { startRelay, type TestRelay } from '../helpers/relay.js'
import { type RunningUnleash, startUnleash } from '../helpers/unleash.js'

const serverUrl = inject('postgresUrl')
let databaseUrl = ''
let unleash: RunningUnleash
let relay: TestRelay | undefined
const sdks: Unleash[] = []

beforeAll(async () => {
  databaseUrl = await createDatabase(serverUrl, 'unleash_relay')
  unleash = await startUnleash({ databaseUrl })
})

afterAll(async () => {
  for (const sdk of sdks) sdk.destroy()
  await relay?.close()
  await unleash?.stop()
  if (databaseUrl) await dropDatabase(serverUrl, databaseUrl)
})

async function inUnleash (method: string, path: string, body?: unknown) {
  const res = await fetch(`${unleash.url}${path}`, { method, headers: unleash.adminHeaders, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return text ? JSON.parse(text) : undefined
}

const FEATURES = ['relay-rollout', 'relay-segment', 'relay-variants', 'relay-off']
const base = '/api/admin/projects/default/features'

/** Flags with a gradual rollout, constraints, a segment, variants with payloads, and one off. */
async function buildState () {
  const segment = await inUnleash('POST', '/api/admin/segments', { name: 'relay-beta', constraints: [{ contextName: 'appVersion', operator: 'SEMVER_GTE', value: '2.0.0' }] })
  for (const name of FEATURES) await inUnleash('POST', base, { name, type: 'release' })
  const strategy = (feature: string, body: object) => inUnleash('POST', `${base}/${feature}/environments/development/strategies`, body)
  await strategy('relay-rollout', { name: 'flexibleRollout', parameters: { rollout: '40', stickiness: 'userId', groupId: 'relay-rollout' }, constraints: [{ contextName: 'userId', operator: 'NOT_IN', values: ['user-3'] }] })
  await strategy('relay-segment', { name: 'default', parameters: {}, segments: [segment.id] })
  await strategy('relay-variants', {
    name: 'flexibleRollout',
    parameters: { rollout: '100', stickiness: 'default', groupId: 'relay-variants' },
    variants: [
      { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"color":"blue"}' } },
      { name: 'green', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'green' } },
    ],
  })
  await strategy('relay-off', { name: 'default', parameters: {} })
  for (const name of FEATURES.filter((f) => f !== 'relay-off')) await inUnleash('POST', `${base}/${name}/environments/development/on`)
}

/** Until Unleash's client API serves every feature (it refreshes what it serves on a timer). */
async function servedBy (token: string) {
  await eventually(async () => {
    const res = await fetch(`${unleash.url}/api/client/features`, { headers: { authorization: token } })
    const names = ((await res.json()) as { features: { name: string, enabled: boolean }[] }).features.filter((f) => f.enabled).map((f) => f.name)
    return FEATURES.filter((f) => f !== 'relay-off').every((f) => names.includes(f))
  }, 'Unleash serves every feature', 30_000)
}

const contexts = (n: number) => Array.from({ length: n }, (_, i) => ({
  userId: `user-${i}`,
  sessionId: `session-${i % 7}`,
  ...(i % 3 === 0 && { appVersion: i % 2 === 0 ? '2.1.0' : '1.9.0' }),
}))

function sdkOn (url: string, token: string, mode: 'polling' | 'streaming', metrics = false, appName = 'relay-behind-unleash') {
  const sdk = new Unleash({
    url: `${url}/api/`,
    appName,
    customHeaders: { Authorization: token },
    refreshInterval: 500,
    metricsInterval: 200,
    disableMetrics: !metrics,
    skipInstanceCountWarning: true,
    storageProvider: new InMemStorageProvider(),
    ...(mode === 'streaming' && { experimentalMode: { type: 'streaming' as const } }),
  })
  sdk.on('error', () => {})
  sdk.on('warn', () => {})
  sdks.push(sdk)
  return sdk
}

const answers = (sdk: Unleash, list: ReturnType<typeof contexts>) => list.map((context) => FEATURES.map((feature) => {
  const variant = sdk.getVariant(feature, context)
  return `${feature}:${sdk.isEnabled(feature, context)}:${variant.name}:${variant.enabled}:${JSON.stringify(variant.payload ?? null)}`
}).join(' '))

const frontendAnswer = async (url: string, token: string, query: string) => {
  const res = await fetch(`${url}/api/frontend?${query}`, { headers: { authorization: token } })
  expect(res.status).toBe(200)
  const body = await res.json() as { toggles: { name: string, enabled: boolean, variant: unknown }[] }
  return body.toggles.map(({ name, enabled, variant }) => ({ name, enabled, variant })).sort((a, b) => a.name.localeCompare(b.name))
}

describe('a relay in front of Unleash 8.2 (the drop-in for Unleash Edge)', () => {
  it('polls Unleash, answers as Unleash for SDKs and browsers, checks new tokens with it, passes changes and usage on', async () => {
    await buildState()
    const client = await unleash.createClientToken()
    const frontend = await unleash.createFrontendToken()
    await servedBy(client)
    relay = await startRelay(unleash.url, { TOKENS: `${client},${frontend}`, REFRESH_INTERVAL: '1' })
    const ready = await (await fetch(`${relay.url}/ready`)).json() as { upstream: { state: string, streaming: boolean } }
    expect(ready.upstream).toMatchObject({ state: 'connected', streaming: false })

    // The Node SDK: reading Unleash, and behind the relay (polling and streaming).
    const list = contexts(300)
    const direct = sdkOn(unleash.url, client, 'polling')
    const polling = sdkOn(relay.url, client, 'polling')
    const streaming = sdkOn(relay.url, client, 'streaming')
    await Promise.all([once(direct, 'synchronized'), once(polling, 'synchronized'), once(streaming, 'synchronized')])
    const expected = answers(direct, list)
    // Rollout, segment and variant each split the contexts: 2 × 2 × 2 answers.
    expect(new Set(expected).size).toBe(8)
    expect(expected.some((a) => a.includes('relay-segment:true'))).toBe(true)
    expect(expected.some((a) => a.includes('relay-segment:false'))).toBe(true)
    expect(answers(polling, list)).toEqual(expected)
    expect(answers(streaming, list)).toEqual(expected)

    // ETag and 304 at the relay.
    const first = await fetch(`${relay.url}/api/client/features`, { headers: { authorization: client } })
    await first.text()
    const etag = first.headers.get('etag')
    expect(etag).toBeTruthy()
    expect((await fetch(`${relay.url}/api/client/features`, { headers: { authorization: client, 'if-none-match': etag! } })).status).toBe(304)

    // The frontend API, served from the client token's flags (Unleash hands a frontend token none).
    // Unleash's own frontend API refreshes what it serves on a timer: wait until it serves the flags.
    await eventually(async () => (await frontendAnswer(unleash.url, frontend, 'sessionId=only')).some((t) => t.name === 'relay-variants'),
      'Unleash\'s frontend API serves the flags', 30_000)
    for (const query of ['userId=user-1', 'userId=user-2&appVersion=2.5.0', 'userId=user-3&sessionId=s', 'sessionId=only']) {
      expect(await frontendAnswer(relay.url, frontend, query), query).toEqual(await frontendAnswer(unleash.url, frontend, query))
    }

    // A token issued after the relay started: checked with Unleash's /edge/validate, then served.
    const later = await unleash.createClientToken()
    const laterAnswer = await fetch(`${relay.url}/api/client/features`, { headers: { authorization: later } })
    expect(laterAnswer.status).toBe(200)
    expect(((await laterAnswer.json()) as { features: { name: string }[] }).features.map((f) => f.name).sort()).toEqual([...FEATURES].sort())
    expect((await fetch(`${relay.url}/api/client/features`, { headers: { authorization: 'default:development.made-up' } })).status).toBe(401)

    // A change made in Unleash reaches the SDKs behind the relay.
    await inUnleash('POST', `${base}/relay-off/environments/development/on`)
    await eventually(async () => polling.isEnabled('relay-off') && streaming.isEnabled('relay-off'), 'the change made in Unleash reaches the SDKs behind the relay', 30_000)

    // Usage sent to the relay reaches Unleash: the application is registered there.
    const reporter = sdkOn(relay.url, client, 'polling', true, 'relay-usage-app')
    await once(reporter, 'synchronized')
    for (let i = 0; i < 20; i++) reporter.isEnabled('relay-rollout', { userId: `u${i}` })
    await eventually(async () => {
      const apps = await inUnleash('GET', '/api/admin/metrics/applications') as { applications: { appName: string }[] }
      return apps.applications.some((a) => a.appName === 'relay-usage-app')
    }, 'Unleash lists the application that reported to the relay', 60_000)
  }, 300_000)
})
