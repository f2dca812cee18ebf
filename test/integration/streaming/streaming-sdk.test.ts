/**
 * The official Node SDK (unleash-client 6.12.1) in streaming mode against a listening server:
 * changes through the admin API arrive as its `changed` event; 429 sends it to polling; two
 * instances on one database behind a proxy, one closed: the SDK reconnects to the other with
 * its Last-Event-ID and misses no change.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import net from 'node:net'
import { InMemStorageProvider, Unleash } from 'unleash-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App, buildApp } from '../../../src/app.js'
import { createDatabase, type DatabaseHandle } from '../../../src/db/database.js'
import { auth, createFeature, testConfig, uniqueName, useTestApp } from '../../helpers/app.js'
import { freePort } from '../../helpers/postgres.js'
import { requests } from '../../helpers/requests.js'
import { untilReady } from '../../helpers/server.js'

const t = useTestApp({ STREAMING_MAX_CONNECTIONS_PER_TOKEN: '1' })
let base = ''
const sdks: Unleash[] = []

beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
})
afterAll(() => {
  for (const sdk of sdks) sdk.destroy()
})

const { clientToken } = requests(t)

function streamingSdk (url: string, secret: string) {
  const sdk = new Unleash({
    url: `${url}/api/`,
    appName: uniqueName('streaming-sdk'),
    customHeaders: { Authorization: secret },
    refreshInterval: 200,
    disableMetrics: true,
    skipInstanceCountWarning: true,
    storageProvider: new InMemStorageProvider(),
    experimentalMode: { type: 'streaming' },
  })
  sdk.on('error', () => {})
  sdk.on('warn', () => {})
  sdks.push(sdk)
  return sdk
}

/** The SDK's current fetching mode (its repository knows it; the SDK does not say). */
const modeOf = (sdk: Unleash) => (sdk as unknown as { repository: { getMode(): string } }).repository.getMode()

const toggle = (app: App, feature: string, state: 'on' | 'off') =>
  app.inject({ method: 'POST', url: `/api/admin/projects/default/features/${feature}/environments/development/${state}`, headers: auth() })

/** Resolves when `check` holds after one of the SDK's `changed` events (or already). */
function untilChanged (sdk: Unleash, check: () => boolean, timeoutMs = 15_000) {
  return new Promise<void>((resolve, reject) => {
    if (check()) {
      resolve()
      return
    }
    const timer = setTimeout(() => {
      sdk.off('changed', listener)
      reject(new Error(`the SDK did not see the change within ${timeoutMs} ms`))
    }, timeoutMs)
    const listener = () => {
      if (!check()) return
      clearTimeout(timer)
      sdk.off('changed', listener)
      resolve()
    }
    sdk.on('changed', listener)
  })
}

describe('unleash-client in streaming mode', () => {
  it('a change through the admin API arrives as the SDK\'s changed event, without polling', async () => {
    const feature = await createFeature(t.app)
    const sdk = streamingSdk(base, await clientToken())
    await once(sdk, 'synchronized')
    expect(sdk.isEnabled(feature)).toBe(false)
    const changed = once(sdk, 'changed')
    expect((await toggle(t.app, feature, 'on')).statusCode).toBe(200)
    await changed
    expect(sdk.isEnabled(feature)).toBe(true)
    const strategy = await t.app.inject({
      method: 'POST',
      url: `/api/admin/projects/default/features/${feature}/environments/development/strategies`,
      headers: auth(),
      payload: { name: 'flexibleRollout', parameters: { rollout: '0', stickiness: 'default', groupId: feature } },
    })
    expect(strategy.statusCode).toBe(200)
    await untilChanged(sdk, () => sdk.getFeatureToggleDefinition(feature)?.strategies?.some((s) => s.name === 'flexibleRollout') === true)
    expect(modeOf(sdk)).toBe('streaming')
  })

  it('past the token\'s stream cap the SDK is answered 429 and polls instead', async () => {
    const secret = await clientToken()
    const first = streamingSdk(base, secret)
    await once(first, 'synchronized')
    const second = streamingSdk(base, secret)
    await once(second, 'synchronized')
    expect(modeOf(first)).toBe('streaming')
    expect(modeOf(second)).toBe('polling')
    const feature = await createFeature(t.app)
    await toggle(t.app, feature, 'on')
    await untilChanged(second, () => second.isEnabled(feature))
    await untilChanged(first, () => first.isEnabled(feature))
  })
})

describe('two instances on one database behind a proxy', () => {
  let other: { app: App; database: DatabaseHandle; closed: boolean }
  let target = 0
  const sockets = new Set<net.Socket>()
  const proxy = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1')
    sockets.add(client)
    const drop = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
    }
    client.pipe(upstream).pipe(client)
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
  })

  beforeAll(async () => {
    const config = testConfig(t.databaseUrl, { STREAMING_MAX_CONNECTIONS_PER_TOKEN: '1' })
    const database = await createDatabase(config)
    other = { app: await buildApp(config, { database }), database, closed: false }
    await other.app.listen({ port: 0, host: '127.0.0.1' })
    target = (other.app.server.address() as { port: number }).port
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  })
  afterAll(async () => {
    proxy.close()
    for (const s of sockets) s.destroy()
    if (!other.closed) await other.app.close()
    await other.database.db.destroy()
  })

  it('the instance holding the stream closes: the SDK reconnects to the other with its Last-Event-ID and misses no change', async () => {
    const url = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`
    const [kept, switched] = [await createFeature(t.app), await createFeature(t.app)]
    const sdk = streamingSdk(url, await clientToken())
    const before = t.app.streams.size
    await once(sdk, 'synchronized')
    expect(other.app.streams.size).toBe(1)
    expect(t.app.streams.size).toBe(before)
    const hydrations = t.app.streams.stats.hydrations
    // From now on the proxy sends new connections to the first instance; the second closes
    // (ending its streams, as on SIGTERM), and changes are made while the SDK is away.
    target = (t.app.server.address() as { port: number }).port
    const closing = other.app.close()
    other.closed = true
    await toggle(t.app, switched, 'on')
    const archived = await t.app.inject({ method: 'DELETE', url: `/api/admin/projects/default/features/${kept}`, headers: auth() })
    expect(archived.statusCode).toBe(202)
    const created = await createFeature(t.app)
    await closing
    await untilChanged(sdk, () => sdk.isEnabled(switched) && sdk.getFeatureToggleDefinition(kept) === undefined && sdk.getFeatureToggleDefinition(created) !== undefined)
    expect(t.app.streams.size).toBe(before + 1)
    // It came back with its Last-Event-ID and was sent the changes it missed, not a hydration
    // (or nothing yet, when another test's transaction held them back for a moment: then they
    // came as updates).
    expect(t.app.streams.stats.hydrations).toBe(hydrations)
    // And it keeps streaming from there.
    await toggle(t.app, created, 'on')
    await untilChanged(sdk, () => sdk.isEnabled(created))
  })

  it('kill -9 of the instance holding the stream: the SDK reconnects to the other and misses no change', async () => {
    const port = await freePort()
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { ...process.env, DATABASE_URL: t.databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    const exited = once(child, 'exit')
    try {
      await untilReady(port)
      target = port
      const url = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`
      const feature = await createFeature(t.app)
      const sdk = streamingSdk(url, await clientToken())
      const before = t.app.streams.size
      await once(sdk, 'synchronized')
      expect(t.app.streams.size).toBe(before)
      const hydrations = t.app.streams.stats.hydrations
      target = (t.app.server.address() as { port: number }).port
      child.kill('SIGKILL')
      await exited
      await toggle(t.app, feature, 'on')
      await untilChanged(sdk, () => sdk.isEnabled(feature))
      expect(t.app.streams.size).toBe(before + 1)
      expect(t.app.streams.stats.hydrations).toBe(hydrations)
    } finally {
      child.kill('SIGKILL')
    }
  }, 60_000)
})
