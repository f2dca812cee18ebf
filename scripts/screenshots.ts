/**
 * Regenerates docs/screenshots/*.png: builds the server and the UI, starts it on the embedded
 * database in a temporary folder, fills it with a few flags through the API, and photographs
 * the main screens in Debian's Chromium. Run with `npm run screenshots`.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { chromium, type Page } from 'playwright-core'

const SECRET = 'screenshots-admin-secret'
const OUT = resolve('docs/screenshots')

async function freePort (): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

const dist = resolve('dist/screenshots')
execFileSync(process.execPath, ['build.mjs'], { env: { ...process.env, BUILD_OUTDIR: dist }, stdio: 'inherit' })
const data = mkdtempSync(join(tmpdir(), 'screenshots-'))
const port = await freePort()
const origin = `http://127.0.0.1:${port}`
const child = spawn(process.execPath, [join(dist, 'server.js')], {
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: data, INIT_ADMIN_API_TOKENS: SECRET, LOG_LEVEL: 'warn', DATABASE_URL: '' },
  stdio: 'inherit',
})

async function api (method: string, path: string, body?: unknown) {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { authorization: SECRET, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
}

try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${origin}/ready`)).ok) break
    } catch {}
    if (i > 600) throw new Error('the server did not start')
    await sleep(100)
  }
  const flags = [
    ['checkout-redesign', 'The new one-page checkout', 'release'],
    ['dark-mode', 'Dark colours for the whole app', 'release'],
    ['search-ranking-v2', 'Ranks results with the new model', 'experiment'],
    ['payments-kill-switch', 'Turns the payment provider off', 'kill-switch'],
    ['beta-dashboard', 'The dashboard for beta users', 'permission'],
    ['recommendations-cache', 'Caches recommendations for 5 minutes', 'operational'],
  ]
  for (const [name, description, type] of flags) await api('POST', '/api/admin/projects/default/features', { name, description, type })
  const f = '/api/admin/projects/default/features'
  await api('POST', '/api/admin/segments', { name: 'beta-testers', description: 'People who asked for early features', constraints: [{ contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@example.com'], caseInsensitive: true }] })
  await api('POST', `${f}/checkout-redesign/environments/development/strategies`, {
    name: 'flexibleRollout',
    parameters: { rollout: '25', stickiness: 'userId', groupId: 'checkout-redesign' },
    constraints: [{ contextName: 'country', operator: 'IN', values: ['NL', 'BE', 'DE'] }],
  })
  await api('POST', `${f}/checkout-redesign/environments/development/on`)
  await api('POST', `${f}/dark-mode/environments/development/on`)
  await api('POST', `${f}/dark-mode/environments/production/on`)
  await api('PUT', `${f}/checkout-redesign/environments/development/variants`, [
    { name: 'one-page', weight: 0, payload: { type: 'json', value: '{"steps": 1}' } },
    { name: 'two-page', weight: 0, payload: { type: 'json', value: '{"steps": 2}' } },
  ])
  await api('POST', `${f}/beta-dashboard/lifecycle/complete`, { status: 'kept', statusValue: 'dashboard for everyone' })
  await api('POST', '/api/admin/tag-types', { name: 'release', description: 'The release train a flag ships with' })
  await api('POST', '/api/admin/features/checkout-redesign/tags', { type: 'release', value: 'q4' })
  await api('POST', '/api/admin/features/checkout-redesign/tags', { type: 'simple', value: 'payments' })
  await api('POST', '/api/admin/features/dark-mode/tags', { type: 'release', value: 'q4' })
  await api('POST', '/api/admin/user-admin', { username: 'sam', name: 'Sam Editor', password: 'screenshots-Kx9!q-sam', rootRole: 2 })
  await api('POST', '/api/admin/user-admin', { username: 'vic', name: 'Vic Viewer', password: 'screenshots-Kx9!q-vic', rootRole: 3 })
  // An export of two flags, to upload back into the same project: validate warns they will be overwritten.
  const exported = await fetch(`${origin}/api/admin/features-batch/export`, {
    method: 'POST',
    headers: { authorization: SECRET, 'content-type': 'application/json' },
    body: JSON.stringify({ features: ['checkout-redesign', 'dark-mode'], environment: 'development' }),
  })
  const exportFile = Buffer.from(await exported.text())
  const person = { username: 'alex', password: 'screenshots-Kx9!q-password' }
  await api('POST', '/api/admin/user-admin', { ...person, name: 'Alex Admin', rootRole: 1 })

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  const shoot = async (name: string, path: string, options: { width?: number; act?: (page: Page) => Promise<void> } = {}) => {
    const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 860 }, deviceScaleFactor: 1 })
    const login = await context.request.post(`${origin}/auth/simple/login`, { data: person })
    if (!login.ok()) throw new Error(`login refused: ${login.status()}`)
    const page = await context.newPage()
    await page.goto(`${origin}${path}`)
    await page.getByRole('heading', { level: 1 }).waitFor()
    await page.waitForLoadState('networkidle')
    await options.act?.(page)
    await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: options.width !== undefined })
    await context.close()
    console.log(`docs/screenshots/${name}.png`)
  }
  await shoot('login', '/', { act: async (page) => { await page.context().clearCookies(); await page.reload(); await page.getByRole('heading', { name: 'Sign in' }).waitFor() } })
  await shoot('flags', '/projects/default')
  await shoot('flag', '/projects/default/features/checkout-redesign')
  await shoot('strategy', '/projects/default/features/checkout-redesign', {
    act: async (page) => {
      await page.getByRole('region', { name: 'development', exact: true }).getByRole('button', { name: 'Edit' }).click()
      await page.getByRole('dialog').waitFor()
    },
  })
  await shoot('variants', '/projects/default/features/checkout-redesign/variants')
  await shoot('history', '/projects/default/features/checkout-redesign/history')
  await shoot('completed', '/projects/default/features/beta-dashboard')
  await shoot('segments', '/segments')
  await shoot('tags', '/projects/default/features/checkout-redesign', {
    act: async (page) => {
      await page.getByRole('region', { name: 'Tags' }).evaluate((el) => el.scrollIntoView({ block: 'end' }))
    },
  })
  await shoot('import', '/import-export', {
    act: async (page) => {
      const section = page.getByRole('region', { name: 'Import' })
      await section.getByLabel('Export file').setInputFiles({ name: 'export-default-development.json', mimeType: 'application/json', buffer: exportFile })
      await section.getByRole('button', { name: 'Validate' }).click()
      await page.getByRole('region', { name: 'Validation result' }).getByText('will be overwritten').waitFor()
      await page.getByRole('region', { name: 'Validation result' }).scrollIntoViewIfNeeded()
    },
  })
  await shoot('users', '/users')
  await shoot('playground', '/playground', {
    act: async (page) => {
      await page.getByLabel('userId').fill('u-42')
      await page.getByRole('button', { name: 'Evaluate' }).click()
      await page.locator('summary', { hasText: 'checkout-redesign' }).click()
      await page.getByText('country is one of NL, BE, DE: no').waitFor()
      await page.getByRole('heading', { level: 2, name: 'Results in development' }).scrollIntoViewIfNeeded()
    },
  })
  await shoot('flag-phone', '/projects/default/features/dark-mode', { width: 360 })
  await browser.close()
} finally {
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
  rmSync(data, { recursive: true, force: true })
}
