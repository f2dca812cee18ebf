/**
 * A relay whose upstream dies: kill -9 of the server behind it (a child process): SDKs behind the
 * relay keep their answers, /ready says the upstream is unreachable (and a metric); the relay
 * restarted while the upstream is away starts from BACKUP_FOLDER (its TOKENS and a token it had
 * checked before, nothing else); the upstream back, a change made meanwhile and a new one arrive.
 */
import { once } from 'node:events'
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { InMemStorageProvider, Unleash } from 'unleash-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFeature, uniqueName, useTestApp } from '../../helpers/app.js'
import { freePort } from '../../helpers/postgres.js'
import { eventually } from '../../helpers/eventually.js'
import { spawnServer, startRelay, type TestRelay } from '../../helpers/relay.js'
import { requests } from '../../helpers/requests.js'

const t = useTestApp()
const { clientToken, frontendToken, admin } = requests(t)
let folder = ''
let port = 0
let upstream: Awaited<ReturnType<typeof spawnServer>> | undefined
const relays: TestRelay[] = []
const sdks: Unleash[] = []

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'relay-backup-'))
  port = await freePort()
  upstream = await spawnServer(t.databaseUrl, port)
})
afterAll(async () => {
  for (const sdk of sdks) sdk.destroy()
  for (const r of relays) await r.close()
  await upstream?.kill()
  await rm(folder, { recursive: true, force: true })
})

const get = async (base: string, path: string, secret: string) => {
  const res = await fetch(`${base}${path}`, { headers: { authorization: secret } })
  return { status: res.status, text: await res.text() }
}
const on = (feature: string) => admin.post(`/api/admin/projects/default/features/${feature}/environments/development/on`)

function sdkOn (url: string, secret: string, streaming: boolean) {
  const sdk = new Unleash({
    url: `${url}/api/`,
    appName: uniqueName('resilient'),
    customHeaders: { Authorization: secret },
    refreshInterval: 200,
    disableMetrics: true,
    skipInstanceCountWarning: true,
    storageProvider: new InMemStorageProvider(),
    ...(streaming && { experimentalMode: { type: 'streaming' as const } }),
  })
  sdk.on('error', () => {})
  sdk.on('warn', () => {})
  sdks.push(sdk)
  return sdk
}

describe('the upstream killed (kill -9), the relay restarted from its backup, the upstream back', () => {
  it('keeps answering, restarts from BACKUP_FOLDER, and catches up', async () => {
    const client = await clientToken()
    const later = await clientToken('production')
    const frontend = await frontendToken()
    const feature = await createFeature(t.app)
    await on(feature)
    const url = `http://127.0.0.1:${port}`
    const first = await startRelay(url, { TOKENS: `${client},${frontend}`, BACKUP_FOLDER: folder })
    relays.push(first)
    // A token checked with the upstream on first use: the backup keeps its hash.
    expect((await get(first.url, '/api/client/features', later)).status).toBe(200)
    const streaming = sdkOn(first.url, client, true)
    const polling = sdkOn(first.url, client, false)
    await Promise.all([once(streaming, 'synchronized'), once(polling, 'synchronized')])
    await eventually(async () => streaming.isEnabled(feature) && polling.isEnabled(feature), 'the SDKs see the feature on')
    const before = await get(first.url, '/api/client/features', client)
    const frontBefore = await get(first.url, '/api/frontend?userId=1', frontend)
    expect(frontBefore.text).toContain(feature)
    // The backup holds the scopes and the tokens' hashes, never a secret.
    await eventually(async () => (await readdir(folder)).filter((f) => f.startsWith('relay-scope-')).length === 2, 'the scopes are written')
    // Each file as renamed into place (a `.tmp` one being written then can be gone by its read).
    for (const file of (await readdir(folder)).filter((f) => !f.endsWith('.tmp'))) {
      const content = await readFile(join(folder, file), 'utf8')
      for (const secret of [client, later, frontend]) expect(content).not.toContain(secret)
      expect((await stat(join(folder, file))).mode & 0o077).toBe(0)
    }

    await upstream!.kill()
    upstream = undefined
    await eventually(async () => (await (await fetch(`${first.url}/ready`)).json() as any).upstream?.state === 'unreachable', 'the relay says the upstream is unreachable')
    const ready = await (await fetch(`${first.url}/ready`)).json() as any
    expect(ready.detail).toMatch(/cannot be reached since .*serving the last state received/)
    expect(await (await fetch(`${first.url}/metrics`)).text()).toContain('relay_upstream_up 0')
    // Everything behind the relay keeps its answers.
    expect(await get(first.url, '/api/client/features', client)).toEqual(before)
    expect(await get(first.url, '/api/frontend?userId=1', frontend)).toEqual(frontBefore)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect([streaming.isEnabled(feature), polling.isEnabled(feature)]).toEqual([true, true])
    // A token it never saw cannot be checked: 503, not 401 (it may be valid).
    const unseen = await clientToken()
    expect((await get(first.url, '/api/client/features', unseen)).status).toBe(503)

    // Restarted while the upstream is away: ready from the backup.
    await first.close()
    relays.splice(relays.indexOf(first), 1)
    const second = await startRelay(url, { TOKENS: `${client},${frontend}`, BACKUP_FOLDER: folder }, { port: Number(new URL(first.url).port) })
    relays.push(second)
    expect((await get(second.url, '/api/client/features', client)).text).toBe(before.text)
    expect(await get(second.url, '/api/frontend?userId=1', frontend)).toEqual(frontBefore)
    expect((await get(second.url, '/api/client/features', later)).status).toBe(200)
    expect((await get(second.url, '/api/client/features', unseen)).status).toBe(503)
    expect((await (await fetch(`${second.url}/ready`)).json() as any).upstream.state).toBe('unreachable')

    // A change made while the upstream is away, then the upstream back: it arrives, and so does a new one.
    await admin.post(`/api/admin/projects/default/features/${feature}/environments/development/off`)
    upstream = await spawnServer(t.databaseUrl, port)
    await eventually(async () => !streaming.isEnabled(feature) && !polling.isEnabled(feature), 'the change made while the upstream was away arrives', 20_000)
    const fresh = await createFeature(t.app)
    await on(fresh)
    await eventually(async () => streaming.isEnabled(fresh) && polling.isEnabled(fresh), 'a new change arrives', 20_000)
    expect((await (await fetch(`${second.url}/ready`)).json() as any).upstream.state).toBe('connected')
    expect((await get(second.url, '/api/client/features', unseen)).status).toBe(200)
  }, 120_000)
})
