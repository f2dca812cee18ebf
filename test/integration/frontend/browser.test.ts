/**
 * The official browser SDK (unleash-proxy-client's browser bundle) in a real browser: Debian's
 * Chromium, headless, driven by playwright-core. The test serves the page itself, from an origin
 * other than the API's, so every request the SDK makes is a cross-origin one that CORS must allow;
 * a page from an origin not in FRONTEND_ALLOWED_ORIGINS must not be able to read an answer.
 *
 * Needs Chromium: /usr/bin/chromium (`apt-get install chromium`), or CHROMIUM_PATH.
 */
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auth, buildTestApp, createFeature, json, type TestApp, uniqueName } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const features = '/api/admin/projects/default/features'

/** A page server on its own port: that port makes its own origin. */
async function pageServer (sdk: string): Promise<{ server: Server, origin: string }> {
  const server = createServer((req, res) => {
    if (req.url === '/unleash.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(sdk)
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title><script src="/unleash.js"></script>')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

let t: TestApp
let api = ''
let secret = ''
let browser: Browser
const pages: { server: Server, origin: string }[] = []

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the browser test needs Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`)
  }
  // The package's browser bundle (its "browser" entry), beside its CommonJS entry.
  const entry = createRequire(import.meta.url).resolve('unleash-proxy-client')
  const sdk = await readFile(join(dirname(entry), 'main.min.js'), 'utf8')
  pages.push(await pageServer(sdk), await pageServer(sdk))
  t = await buildTestApp({ CLIENT_STATE_CACHE_MS: '0', FRONTEND_ALLOWED_ORIGINS: pages[0]!.origin })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  // "localhost", not the pages' 127.0.0.1: another host as well as another port.
  api = `http://localhost:${(t.app.server.address() as AddressInfo).port}`
  secret = await requests(t).frontendToken()
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root in a container needs --no-sandbox; the rest keeps Chromium off a network it cannot reach.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  for (const { server } of pages) server.close()
  await t?.close()
})

async function open (origin: string): Promise<Page> {
  const page = await browser.newPage()
  await page.goto(origin)
  await page.waitForFunction(() => 'unleash' in globalThis)
  return page
}

/** How many GET /api/frontend requests the server answered 304, from its Prometheus metrics. */
async function notModified () {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
  const line = text.split('\n').find((l) => l.startsWith('http_requests_total') && l.includes('route="/api/frontend"') && l.includes('method="GET"') && l.includes('status="304"'))
  return line ? Number(line.split(' ').at(-1)) : 0
}

describe('unleash-proxy-client in Chromium, from another origin', () => {
  it('isEnabled, getVariant with its payload, updateContext changing the answer, 304 on unchanged polls, metrics moving the lifecycle', async () => {
    const gated = uniqueName('web')
    await createFeature(t.app, 'default', gated)
    await t.app.inject({ method: 'POST', url: `${features}/${gated}/environments/development/strategies`, headers: auth(), payload: { name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['vip'] }] } })
    await t.app.inject({ method: 'PUT', url: `${features}/${gated}/environments/development/variants`, headers: auth(), payload: [{ name: 'gold', weight: 0, payload: { type: 'json', value: '{"discount":20}' } }] })
    await t.app.inject({ method: 'POST', url: `${features}/${gated}/environments/development/on`, headers: auth() })

    const page = await open(pages[0]!.origin)
    const before304 = await notModified()
    const seen = await page.evaluate(async ({ api, secret, gated }) => {
      const { UnleashClient } = (globalThis as any).unleash
      const client = new UnleashClient({ url: `${api}/api/frontend`, clientKey: secret, appName: 'browser-test', refreshInterval: 1, metricsInterval: 1, metricsIntervalInitial: 0.5 })
      ;(globalThis as any).client = client
      await new Promise<void>((resolve, reject) => {
        client.on('ready', resolve)
        client.on('error', reject)
        client.start()
      })
      const anonymous = client.isEnabled(gated)
      await client.updateContext({ userId: 'vip' })
      return { anonymous, vip: client.isEnabled(gated), variant: client.getVariant(gated) }
    }, { api, secret, gated })
    expect(seen.anonymous).toBe(false)
    expect(seen.vip).toBe(true)
    expect(seen.variant).toMatchObject({ name: 'gold', enabled: true, payload: { type: 'json', value: '{"discount":20}' } })

    // The SDK polls every second with the ETag it holds: the unchanged state is answered 304.
    await sleep(2500)
    expect(await notModified()).toBeGreaterThan(before304)

    // Its metrics (sent from the page, cross-origin) reach the server and move the lifecycle.
    const stages = async () => json(await t.app.inject({ method: 'GET', url: `${features}/${gated}/lifecycle`, headers: auth() })).map((s: { stage: string }) => s.stage)
    const deadline = Date.now() + 15_000
    while (!(await stages()).includes('pre-live') && Date.now() < deadline) await sleep(200)
    expect(await stages()).toEqual(['initial', 'pre-live'])
    await page.evaluate(() => (globalThis as any).client.stop())
    await page.close()
  }, 60_000)

  it('an allowed origin reads the answer and its ETag; a page from another origin cannot read it', async () => {
    const request = async (page: Page) => page.evaluate(async ({ api, secret }) => {
      try {
        const res = await fetch(`${api}/api/frontend?userId=u1`, { headers: { authorization: secret, 'unleash-appname': 'browser-test' } })
        return { status: res.status, etag: res.headers.get('etag'), toggles: Array.isArray(((await res.json()) as { toggles?: unknown }).toggles) }
      } catch (error) {
        return { error: String(error) }
      }
    }, { api, secret })

    const allowed = await open(pages[0]!.origin)
    expect(await request(allowed)).toMatchObject({ status: 200, etag: expect.stringMatching(/^(W\/)?"/), toggles: true })
    const denied = await open(pages[1]!.origin)
    expect(await request(denied)).toEqual({ error: expect.stringContaining('Failed to fetch') })
    await allowed.close()
    await denied.close()
  }, 60_000)
})
