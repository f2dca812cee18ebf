/**
 * The relay judged by real clients and by the upstream itself: every case of the client
 * specification answered by the official Node SDK (polling, polling deltas, streaming) through a
 * relay as by the SDK polling the server; seeded random flag sets written to the server and
 * every answer the relay gives (client features in every form, delta, frontend API, OFREP) equal
 * to the server's for random contexts; unleash-proxy-client and the OpenFeature OFREP provider
 * against a relay, answering as against the server, and a change reaching each.
 */
import { once } from 'node:events'
import { OFREPProvider } from '@openfeature/ofrep-provider'
import { OpenFeature } from '@openfeature/server-sdk'
import fc from 'fast-check'
import { InMemStorageProvider, Unleash } from 'unleash-client'
import { UnleashClient } from 'unleash-proxy-client'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { auth, createFeature, uniqueName, useTestApp } from '../../helpers/app.js'
import { runCases, specFiles, startSdk, withSpecState, writeState } from '../../helpers/client-spec.js'
import { type FlagSet, flagSet, requestContexts } from '../../helpers/frontend-arbitraries.js'
import { listen } from '../../helpers/people.js'
import { eventually } from '../../helpers/eventually.js'
import { startRelay, type TestRelay } from '../../helpers/relay.js'
import { requests } from '../../helpers/requests.js'

const SEED = Number(process.env.RELAY_DIFF_SEED ?? 42_2026)
const SETS = Number(process.env.RELAY_DIFF_SETS ?? 8)
const CONTEXTS = 25

afterEach(() => {
  vi.restoreAllMocks()
})

const text = async (url: string, init: RequestInit = {}) => {
  const res = await fetch(url, init)
  return { status: res.status, etag: res.headers.get('etag'), body: await res.text() }
}

describe('the client specification through a relay', () => {
  let cases = 0
  for (const file of specFiles()) {
    it(file, async () => {
      await withSpecState(file, async ({ spec, sdk, written, base, secret }) => {
        const expected = runCases(file, spec, sdk, written)
        const relay = await startRelay(base, { TOKENS: secret })
        const sdks: Unleash[] = []
        try {
          for (const spec of [{}, { 'unleash-client-spec': '4.1.0' }] as Record<string, string>[]) {
            const [up, down] = await Promise.all([text(`${base}/api/client/features`, { headers: { authorization: secret, ...spec } }), text(`${relay.url}/api/client/features`, { headers: { authorization: secret, ...spec } })])
            expect(down.body).toBe(up.body)
          }
          for (const mode of [{ type: 'polling', format: 'full' }, { type: 'polling', format: 'delta' }, { type: 'streaming' }] as const) {
            const through = await startSdk(relay.url, secret, mode)
            sdks.push(through)
            if (mode.type === 'streaming') expect((through as unknown as { repository: { getMode(): string } }).repository.getMode()).toBe('streaming')
            expect(runCases(file, spec, through, written)).toEqual(expected)
          }
          cases += expected.length
        } finally {
          for (const s of sdks) s.destroy()
          await relay.close()
        }
      })
    }, 60_000)
  }

  it('covered every case of the specification', () => {
    expect(cases).toBe(279)
  })
})

describe('random flag sets (seeded): every answer of the relay equals the server\'s', () => {
  const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })
  const { clientToken, frontendToken } = requests(t)
  let base = ''
  let relay: TestRelay
  let client = ''
  let frontend = ''
  beforeAll(async () => {
    base = await listen(t)
    client = await clientToken()
    frontend = await frontendToken()
    relay = await startRelay(base, { TOKENS: `${client},${frontend}` })
  })
  afterAll(() => relay?.close())

  /** The set with its names made unique (several sets share the database). */
  const renamed = (set: FlagSet, prefix: string): FlagSet => ({
    segments: set.segments.map((s) => ({ ...s, name: `${prefix}-${s.name}` })),
    features: set.features.map((f) => ({ ...f, name: `${prefix}-${f.name}`, dependencies: f.dependencies.map((d) => ({ ...d, feature: `${prefix}-${d.feature}` })) })),
  })

  /** The set's segments, each as the server takes it: one it refuses (a REGEX constraint inverted…) without constraints. */
  const storable = async (set: FlagSet): Promise<FlagSet> => {
    const segments = []
    for (const segment of set.segments) {
      const res = await t.app.inject({ method: 'POST', url: '/api/admin/segments', headers: auth(), payload: { name: uniqueName('probe'), constraints: segment.constraints } })
      if (res.statusCode === 201) await t.app.inject({ method: 'DELETE', url: `/api/admin/segments/${res.json().id}`, headers: auth() })
      segments.push(res.statusCode === 201 ? segment : { ...segment, constraints: [] })
    }
    return { ...set, segments }
  }

  it(`${SETS} sets × ${CONTEXTS} contexts (seed ${SEED})`, async () => {
    const samples = fc.sample(fc.tuple(flagSet(10), requestContexts(CONTEXTS)), { seed: SEED, numRuns: SETS })
    let compared = 0
    for (const [index, [set, contexts]] of samples.entries()) {
      const prefix = `s${index}-${uniqueName('d')}`
      const written = renamed(await storable(set), prefix)
      await writeState(t.app, { features: written.features, segments: written.segments })
      const last = written.features.at(-1)!.name
      // The relay has caught up once it serves what the server serves.
      await eventually(async () => {
        const [up, down] = await Promise.all([text(`${base}/api/client/features`, { headers: { authorization: client } }), text(`${relay.url}/api/client/features`, { headers: { authorization: client } })])
        return up.body.includes(last) && down.body === up.body
      }, `the relay serves set ${index}`)
      const same = async (path: string, init: RequestInit = {}) => {
        const [up, down] = await Promise.all([text(`${base}${path}`, init), text(`${relay.url}${path}`, init)])
        expect({ path, status: down.status, body: down.body }).toEqual({ path, status: up.status, body: up.body })
        compared++
        return down
      }
      const asClient = { headers: { authorization: client } }
      for (const spec of ['4.1.0', '5.2.0']) {
        for (const query of ['', `?namePrefix=${prefix}`, '?project=default', '?project=nothing-here']) {
          await same(`/api/client/features${query}`, { headers: { authorization: client, 'unleash-client-spec': spec } })
        }
      }
      await same('/api/client/delta', asClient)
      await same(`/api/client/delta?namePrefix=${prefix}`, asClient)
      for (const { fields, draw } of contexts) {
        // Where an answer draws on Math.random, both sides draw the same number.
        vi.spyOn(Math, 'random').mockReturnValue(draw)
        const query = new URLSearchParams(fields).toString()
        await same(`/api/frontend?${query}`, { headers: { authorization: frontend } })
        const ofrep = { method: 'POST', headers: { authorization: `Bearer ${frontend}`, 'content-type': 'application/json' }, body: JSON.stringify({ context: { ...fields, targetingKey: fields.userId } }) }
        await same('/ofrep/v1/evaluate/flags', ofrep)
        await same(`/ofrep/v1/evaluate/flags/${encodeURIComponent(written.features[0]!.name)}`, ofrep)
        vi.restoreAllMocks()
      }
    }
    // Per set: 10 client-API and delta answers, and 3 answers per context (at least one).
    expect(compared).toBeGreaterThanOrEqual(SETS * 13)
  }, 180_000)
})

describe('official clients against a relay', () => {
  const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })
  const { clientToken, frontendToken, admin } = requests(t)
  let base = ''
  let relay: TestRelay
  let client = ''
  let frontend = ''
  const stops: (() => unknown)[] = []
  beforeAll(async () => {
    base = await listen(t)
    client = await clientToken()
    frontend = await frontendToken()
    relay = await startRelay(base, { TOKENS: `${client},${frontend}` })
  })
  afterAll(async () => {
    for (const stop of stops) await stop()
    await relay?.close()
  })

  const features = '/api/admin/projects/default/features'
  /** Until the relay serves what the server serves. */
  const inStep = () => eventually(async () => {
    const [up, down] = await Promise.all([text(`${base}/api/client/features`, { headers: { authorization: client } }), text(`${relay.url}/api/client/features`, { headers: { authorization: client } })])
    return down.body === up.body
  }, 'the relay serves what the server serves')

  async function gatedFeature () {
    const name = uniqueName('gated')
    await createFeature(t.app, 'default', name)
    await admin.post(`${features}/${name}/environments/development/strategies`, { name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: name }, constraints: [{ contextName: 'userId', operator: 'IN', values: ['vip'] }] })
    await t.app.inject({ method: 'PUT', url: `${features}/${name}/environments/development/variants`, headers: auth(), payload: [{ name: 'gold', weight: 1000, payload: { type: 'json', value: '{"tier":1}' } }] })
    await admin.post(`${features}/${name}/environments/development/on`)
    await inStep()
    return name
  }

  function nodeSdk (url: string, mode: 'polling' | 'streaming') {
    const sdk = new Unleash({
      url: `${url}/api/`,
      appName: uniqueName('relay-sdk'),
      customHeaders: { Authorization: client },
      refreshInterval: 200,
      disableMetrics: true,
      skipInstanceCountWarning: true,
      storageProvider: new InMemStorageProvider(),
      ...(mode === 'streaming' && { experimentalMode: { type: 'streaming' as const } }),
    })
    sdk.on('error', () => {})
    stops.push(() => sdk.destroy())
    return sdk
  }

  it('the Node SDK, polling and streaming: the same answers through the relay as from the server, and a change arrives', async () => {
    const feature = await gatedFeature()
    const direct = nodeSdk(base, 'polling')
    const polling = nodeSdk(relay.url, 'polling')
    const streaming = nodeSdk(relay.url, 'streaming')
    await Promise.all([once(direct, 'synchronized'), once(polling, 'synchronized'), once(streaming, 'synchronized')])
    const definition = (sdk: Unleash) => JSON.stringify(sdk.getFeatureToggleDefinition(feature))
    await eventually(async () => definition(direct) !== undefined && definition(polling) === definition(direct) && definition(streaming) === definition(direct), 'the SDKs hold the feature as the server has it')
    for (const userId of ['vip', 'someone', 'user-1', '']) {
      const context = { userId }
      const expected = [direct.isEnabled(feature, context), direct.getVariant(feature, context)]
      expect([polling.isEnabled(feature, context), polling.getVariant(feature, context)]).toEqual(expected)
      expect([streaming.isEnabled(feature, context), streaming.getVariant(feature, context)]).toEqual(expected)
    }
    expect(streaming.isEnabled(feature, { userId: 'vip' })).toBe(true)
    expect((streaming as unknown as { repository: { getMode(): string } }).repository.getMode()).toBe('streaming')
    await admin.post(`${features}/${feature}/environments/development/off`)
    await eventually(async () => !streaming.isEnabled(feature, { userId: 'vip' }) && !polling.isEnabled(feature, { userId: 'vip' }), 'the change reaches both SDKs')
  })

  it('unleash-proxy-client: the same toggles and variants through the relay, 304 on unchanged polls, and a change arrives', async () => {
    const feature = await gatedFeature()
    const start = async (url: string) => {
      const c = new UnleashClient({ url: `${url}/api/frontend`, clientKey: frontend, appName: 'relay-browser', refreshInterval: 1, disableMetrics: true })
      c.on('error', () => {})
      stops.push(() => c.stop())
      const ready = new Promise<void>((resolve) => c.on('ready', () => resolve()))
      await c.start()
      await ready
      await c.updateContext({ userId: 'vip' })
      return c
    }
    const [direct, through] = [await start(base), await start(relay.url)]
    expect(through.isEnabled(feature)).toBe(true)
    expect(through.getVariant(feature)).toEqual(direct.getVariant(feature))
    expect(through.getAllToggles()).toEqual(direct.getAllToggles())
    await eventually(async () => (await text(`${relay.url}/metrics`)).body.split('\n').some((l) => l.startsWith('http_requests_total') && l.includes('route="/api/frontend"') && l.includes('status="304"')), 'an unchanged poll is 304', 5000)
    await admin.post(`${features}/${feature}/environments/development/off`)
    await eventually(async () => !through.isEnabled(feature), 'the change reaches the browser SDK')
  })

  it('the OpenFeature OFREP provider: the same values through the relay as from the server', async () => {
    const feature = await gatedFeature()
    const evaluate = async (url: string) => {
      await OpenFeature.setProviderAndWait(new OFREPProvider({ baseUrl: url, headers: [['Authorization', `Bearer ${frontend}`]] }))
      const of = OpenFeature.getClient()
      const values = [
        await of.getObjectValue(feature, {}, { targetingKey: 'vip' }),
        await of.getObjectValue(feature, {}, { targetingKey: 'other' }),
        await of.getBooleanDetails('no-such-flag', true, { targetingKey: 'vip' }),
      ]
      await OpenFeature.close()
      return values.map((v) => (typeof v === 'object' && v !== null && 'flagKey' in v ? { value: v.value, errorCode: v.errorCode, reason: v.reason } : v))
    }
    const [direct, through] = [await evaluate(base), await evaluate(relay.url)]
    expect(through).toEqual(direct)
    expect(through[0]).toEqual({ tier: 1 })
  })
})
