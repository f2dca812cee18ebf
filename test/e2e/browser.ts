/**
 * The admin UI in Debian's Chromium (headless, driven by playwright-core) against the real app
 * listening on 127.0.0.1, on its own PostgreSQL database. Every page the tests open records
 * console errors, uncaught exceptions, failed requests, error answers and any request that
 * would leave the machine; `expectClean` asserts there were none.
 *
 * Needs Chromium: /usr/bin/chromium (`apt-get install chromium`), or CHROMIUM_PATH.
 */
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, onTestFailed } from 'vitest'
import { auth, buildTestApp, json, type TestApp, uniqueName } from '../helpers/app.js'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export interface Server {
  t: TestApp
  origin: string
  close(): Promise<void>
}

/** The real app with the UI this run built, listening on a free port. */
export async function startServer (env: Record<string, string> = {}): Promise<Server> {
  const t = await buildTestApp(env, { uiDir: inject('uiDir') })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  return { t, origin, close: () => t.close() }
}

/**
 * A listening server and a Chromium for a test file: started before its tests, closed after
 * them (the browser first). `server` and `browser` are there once beforeAll has run.
 */
export function useBrowserApp (): { server: Server; browser: Browser } {
  const ui = {} as { server: Server; browser: Browser }
  beforeAll(async () => {
    ui.server = await startServer()
    ui.browser = await launch()
  })
  afterAll(async () => {
    await ui.browser?.close()
    await ui.server?.close()
  })
  return ui
}

export async function launch (): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the browser tests need Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`)
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root in a container needs --no-sandbox; the rest keeps Chromium off a network it cannot reach.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}

/** What went wrong on a page, as the tests saw it. */
export interface Trouble {
  console: string[]
  failed: string[]
  errors: string[]
  offsite: string[]
}

export interface OpenPage {
  page: Page
  context: BrowserContext
  trouble: Trouble
  /** Answers ≥ 400 the test provokes on purpose (method and path prefix). */
  allow(status: number, path: string): void
}

export const DESKTOP = { width: 1280, height: 900 }
export const PHONE = { width: 360, height: 780 }

export type Role = 'Admin' | 'Editor' | 'Viewer'

/** A person with this root role, made through the API; returns what signs them in. */
export async function createPerson (server: Server, role: Role) {
  const username = uniqueName(role.toLowerCase())
  const password = `${uniqueName('pw')}-Kx9!q`
  const rootRole = { Admin: 1, Editor: 2, Viewer: 3 }[role]
  const res = await server.t.app.inject({ method: 'POST', url: '/api/admin/user-admin', headers: auth(), payload: { username, name: `${role} ${username.slice(-4)}`, password, rootRole } })
  if (res.statusCode !== 201) throw new Error(`user not created: ${res.body}`)
  return { username, password, name: json(res).name as string }
}

/**
 * A fresh browser context on the server; with `as`, a new person of that role, signed in
 * through the login route with the context's own cookies (the login form has its own journey).
 */
export async function openPage (browser: Browser, server: Server, options: { viewport?: { width: number; height: number }; as?: { role: Role }; alsoOrigins?: string[] } = {}): Promise<OpenPage> {
  const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, serviceWorkers: 'block' })
  if (options.as) {
    const person = await createPerson(server, options.as.role)
    const login = await context.request.post(`${server.origin}/auth/simple/login`, { data: { username: person.username, password: person.password } })
    if (login.status() !== 200) throw new Error(`login refused: ${login.status()} ${await login.text()}`)
  }
  const trouble: Trouble = { console: [], failed: [], errors: [], offsite: [] }
  const allowed: { status: number; path: string }[] = []
  // Nothing may leave the machine: any request to another origin (but a test's own identity
  // provider on loopback, `alsoOrigins`) is refused and noted.
  const origins = new Set([server.origin, ...(options.alsoOrigins ?? [])])
  await context.route((url) => !origins.has(url.origin), (route) => {
    trouble.offsite.push(route.request().url())
    return route.abort()
  })
  const page = await context.newPage()
  page.on('console', (m) => {
    if (m.type() === 'error') trouble.console.push(m.text())
  })
  page.on('pageerror', (e) => trouble.errors.push(e.message))
  page.on('requestfailed', (r) => {
    // Requests still in flight when the test navigates away are cancelled, not failed.
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') trouble.failed.push(`${r.method()} ${r.url()} ${r.failure()?.errorText ?? ''}`)
  })
  page.on('response', (r) => {
    const path = new URL(r.url()).pathname
    if (r.status() >= 400 && !allowed.some((a) => a.status === r.status() && path.startsWith(a.path))) {
      trouble.failed.push(`${r.request().method()} ${path} → ${r.status()}`)
    }
  })
  // When the test fails (a wait that timed out says only what it waited for), what this page
  // showed and met is printed beside the failure: its address, what it last announced and
  // alerted, and its trouble so far. (A page opened outside a test, in beforeAll, has no test.)
  const onFailure = async () => {
    if (page.isClosed()) return
    const said = await page.locator('[role=status], [role=alert]').allInnerTexts().catch(() => [])
    console.error(`page at ${page.url()}: said ${JSON.stringify(said.filter((s) => s.trim() !== ''))}; trouble ${JSON.stringify(trouble)}`)
  }
  try { onTestFailed(onFailure) } catch {}
  return { page, context, trouble, allow: (status, path) => allowed.push({ status, path }) }
}

/**
 * The API called in process (no socket) as the admin token, or with `secret`: its status, and its
 * body read as JSON (undefined when empty). How a browser test judges what is stored. `server` is
 * asked for at each call (it is started in beforeAll).
 */
export const apiOf = (server: () => Server) =>
  async (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, secret?: string) => {
    const res = await server().t.app.inject({ method, url, headers: auth(secret), ...(payload === undefined ? {} : { payload: payload as object }) })
    return { status: res.statusCode, body: res.body === '' ? undefined : json(res) }
  }

/** No console error, no uncaught exception, no failed request, nothing sent elsewhere. */
export function expectClean ({ trouble }: OpenPage) {
  // A refused answer is also logged by Chromium as a console error; those are in `failed`.
  const console = trouble.console.filter((c) => !/Failed to load resource: the server responded with a status of/.test(c))
  expect({ ...trouble, console }).toEqual({ console: [], failed: [], errors: [], offsite: [] })
}

let axeSource: string | undefined

/**
 * axe-core, run in the page, on what the page shows now: no serious or critical violation.
 * The script is evaluated through the DevTools protocol, so the page's CSP still forbids inline scripts.
 */
export async function expectAccessible (page: Page, screen: string) {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource)
  // Judge the screen as it settles, not halfway through a colour transition (a button that has
  // just appeared under the pointer or the focus fades to its colours); endless ones (a busy
  // spinner) are not waited for.
  await page.evaluate(() => Promise.all((globalThis as any).document.getAnimations()
    .filter((a: any) => a.effect?.getComputedTiming().iterations !== Infinity)
    .map((a: any) => a.finished.catch(() => undefined))))
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] })
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')) }))
  }) as { id: string; impact: string; help: string; nodes: string[] }[]
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect(serious, `axe on ${screen}`).toEqual([])
}
