/**
 * The screens around the flags (segments, strategies, API tokens, webhooks and their
 * deliveries, history) and what a Viewer is offered, in a real browser; each change checked
 * through the API.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auth, createFeature, json, uniqueName } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { startReceiver } from '../helpers/receiver.js'
import { apiOf, expectAccessible, expectClean, launch, openPage, PHONE, type Server, startServer } from './browser.js'

let server: Server
let browser: Browser
let receiver: Awaited<ReturnType<typeof startReceiver>>
let failing = true

beforeAll(async () => {
  // A receiver on loopback that refuses until told otherwise: one attempt, then the delivery is dead.
  receiver = await startReceiver(() => (failing ? 500 : 200))
  server = await startServer({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_MS: '50', WEBHOOK_MAX_ATTEMPTS: '1', WEBHOOK_RETRY_BASE_MS: '50' })
  browser = await launch()
})

afterAll(async () => {
  await browser?.close()
  await server?.close()
  await receiver?.close()
})

const api = apiOf(() => server)

describe('segments', () => {
  it('creates a segment with a constraint, shows it as a sentence, and deletes it after a confirmation', async () => {
    const opened = await openPage(browser, server, { as: { role: 'Admin' } })
    const { page } = opened
    const name = uniqueName('beta')
    await page.goto(`${server.origin}/segments`)
    await page.getByRole('button', { name: 'New segment' }).click()
    const dialog = page.getByRole('dialog', { name: 'New segment' })
    await dialog.getByLabel('Name').fill(name)
    await dialog.getByRole('button', { name: 'Add constraint' }).click()
    await dialog.getByLabel('Context field').fill('email')
    await dialog.getByLabel('Operator').selectOption({ label: 'ends with' })
    await dialog.getByLabel('Values').fill('@example.com\n@example.org')
    await dialog.getByRole('checkbox', { name: 'Case-insensitive' }).check()
    await expectAccessible(page, 'segment dialog')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'hidden' })
    const stored = (await api('GET', '/api/admin/segments')).body.segments.find((s: any) => s.name === name)
    expect(stored.constraints).toEqual([{ contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@example.com', '@example.org'], caseInsensitive: true }])
    await page.getByRole('row', { name: new RegExp(name) }).getByText('email ends with @example.com, @example.org (ignoring case)').waitFor()
    await expectAccessible(page, 'segments')

    await page.getByRole('button', { name: `Delete ${name}` }).click()
    await page.getByRole('dialog', { name: `Delete segment ${name}?` }).getByText('No strategy uses it.').waitFor()
    await page.getByRole('dialog', { name: `Delete segment ${name}?` }).getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('row', { name: new RegExp(name) }).waitFor({ state: 'detached' })
    expect((await api('GET', '/api/admin/segments')).body.segments.some((s: any) => s.name === name)).toBe(false)
    expectClean(opened)
    await opened.context.close()
  })
})

describe('strategies', () => {
  it('defines a custom strategy with a parameter, then gives a flag that strategy with a value', async () => {
    const opened = await openPage(browser, server, { as: { role: 'Admin' } })
    const { page } = opened
    const strategy = uniqueName('region')
    await page.goto(`${server.origin}/strategies`)
    await page.getByRole('button', { name: 'New strategy' }).click()
    const dialog = page.getByRole('dialog', { name: 'New strategy' })
    await dialog.getByLabel('Name').fill(strategy)
    await dialog.getByRole('button', { name: 'Add parameter' }).click()
    await dialog.getByLabel('Parameter name').fill('regions')
    await dialog.getByLabel('Parameter type').selectOption('list')
    await dialog.getByRole('checkbox', { name: 'Required' }).check()
    await expectAccessible(page, 'strategy definition dialog')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect((await api('GET', `/api/admin/strategies/${strategy}`)).body.parameters).toEqual([expect.objectContaining({ name: 'regions', type: 'list', required: true })])
    await expectAccessible(page, 'strategies')

    const flag = await createFeature(server.t.app)
    await page.goto(`${server.origin}/projects/default/features/${flag}`)
    await page.getByRole('region', { name: 'production', exact: true }).getByRole('button', { name: 'Add strategy' }).click()
    const add = page.getByRole('dialog', { name: 'Add strategy in production' })
    await add.getByLabel('Strategy type').selectOption(strategy)
    await add.getByLabel('regions').fill('eu,us')
    await add.getByRole('button', { name: 'Save' }).click()
    await add.waitFor({ state: 'hidden' })
    const env = (await api('GET', `/api/admin/projects/default/features/${flag}`)).body.environments.find((e: any) => e.name === 'production')
    expect(env.strategies).toEqual([expect.objectContaining({ name: strategy, parameters: { regions: 'eu,us' } })])
    expectClean(opened)
    await opened.context.close()
  })
})

describe('API tokens', () => {
  it('creates a client token whose secret is shown once with a copy button, and which then works', async () => {
    const opened = await openPage(browser, server, { as: { role: 'Admin' } })
    const { page, context } = opened
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin })
    const name = uniqueName('sdk')
    await page.goto(`${server.origin}/api-tokens`)
    await page.getByRole('button', { name: 'New API token' }).click()
    const dialog = page.getByRole('dialog', { name: 'New API token' })
    await dialog.getByLabel('Token name').fill(name)
    await dialog.getByLabel('Type').selectOption('client')
    await dialog.getByLabel('Environment').selectOption('production')
    await dialog.getByRole('button', { name: 'Create' }).click()
    const secret = await dialog.getByRole('textbox', { name: /The secret of/ }).inputValue()
    await dialog.getByRole('button', { name: 'Copy' }).click()
    await dialog.getByText('Copied to the clipboard.').waitFor()
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(secret)
    await expectAccessible(page, 'new token with its secret')
    await dialog.getByRole('button', { name: 'Done' }).click()

    expect((await api('GET', '/api/client/features', undefined, secret)).status).toBe(200)
    await page.getByRole('row', { name: new RegExp(name) }).waitFor()
    // The list never shows a secret.
    expect(await page.content()).not.toContain(secret)
    await expectAccessible(page, 'API tokens')
    expectClean(opened)
    await opened.context.close()
  })
})

describe('webhooks', () => {
  it('creates a webhook, shows its dead delivery with the attempt, and redelivers it', async () => {
    const opened = await openPage(browser, server, { as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(`${server.origin}/webhooks`)
    await page.getByRole('button', { name: 'New webhook' }).click()
    const dialog = page.getByRole('dialog', { name: 'New webhook' })
    await dialog.getByLabel('URL').fill(receiver.url)
    await dialog.getByLabel('Description').fill('Chat notifications')
    await dialog.getByRole('checkbox', { name: 'feature-environment-enabled' }).uncheck()
    await dialog.getByRole('checkbox', { name: 'feature-environment-disabled' }).uncheck()
    await dialog.getByRole('checkbox', { name: 'feature-created' }).check()
    await expectAccessible(page, 'webhook dialog')
    await dialog.getByRole('button', { name: 'Save' }).click()
    const secret = await dialog.getByRole('textbox', { name: /signing secret/ }).inputValue()
    expect(secret).toMatch(/^whsec_/)
    receiver.secrets.push(secret)
    await dialog.getByRole('button', { name: 'Done' }).click()

    const flag = await createFeature(server.t.app)
    await eventually(async () => receiver.received.find((r) => r.body.includes(flag)))
    await page.getByRole('link', { name: 'Chat notifications' }).click()
    await page.getByRole('heading', { level: 1, name: 'Chat notifications' }).waitFor()
    const row = page.getByRole('row', { name: /feature-created/ })
    // The screen follows a pending delivery by itself until it is finished.
    await row.getByText('Gave up').waitFor({ timeout: 15_000 })
    await row.getByText('1 attempt').click()
    await row.getByText('HTTP 500').waitFor()
    await expectAccessible(page, 'webhook deliveries')

    failing = false
    await row.getByRole('button', { name: /Redeliver/ }).click()
    await row.getByText('Delivered').waitFor({ timeout: 15_000 })
    const delivered = receiver.received.filter((r) => r.body.includes(flag))
    expect(delivered.length).toBe(2)
    expect(delivered[1]!.verifiedWith).toEqual([secret])
    expectClean(opened)
    await opened.context.close()
  })
})

describe('history', () => {
  it('lists what happened everywhere as sentences, filtered by what happened', async () => {
    const flag = await createFeature(server.t.app)
    await api('POST', `/api/admin/projects/default/features/${flag}/environments/development/on`)
    const opened = await openPage(browser, server, { as: { role: 'Admin' }, viewport: PHONE })
    const { page } = opened
    await page.goto(`${server.origin}/history`)
    await page.getByText(new RegExp(`switched ${flag} on in development\\.`)).waitFor()
    await expectAccessible(page, 'history')
    await page.getByLabel('What happened').selectOption('feature-created')
    await page.getByText(new RegExp(`created flag ${flag} as a release flag\\.`)).waitFor()
    await page.getByText(new RegExp(`switched ${flag} on`)).waitFor({ state: 'detached' })
    // Each entry leads to its flag (an archived one too, which no list shows).
    await page.getByRole('link', { name: `Open ${flag}` }).click()
    await page.getByRole('heading', { level: 1, name: flag }).waitFor()
    expectClean(opened)
    await opened.context.close()
  })
})

describe('a Viewer', () => {
  it('is offered nothing that changes a flag, and no admin screen', async () => {
    const flag = await createFeature(server.t.app)
    expect((await api('POST', `/api/admin/features/${flag}/tags`, { type: 'simple', value: 'q4' })).status).toBe(201)
    const opened = await openPage(browser, server, { as: { role: 'Viewer' } })
    const { page } = opened
    await page.goto(`${server.origin}/projects/default`)
    await page.getByRole('link', { name: flag }).waitFor()
    expect(await page.getByRole('button', { name: 'New flag' }).count()).toBe(0)
    await page.getByRole('link', { name: flag }).click()
    await page.getByRole('heading', { level: 1, name: flag }).waitFor()
    expect(await page.getByRole('switch', { name: 'Enabled in development' }).isDisabled()).toBe(true)
    // The flag's tags are shown, but not the controls that change them.
    await page.getByRole('region', { name: 'Tags' }).getByText('simple:q4', { exact: true }).waitFor()
    for (const name of ['Add strategy', 'Mark completed', 'Archive', 'Add dependency', 'Add tag', 'Remove tag simple:q4']) {
      expect(await page.getByRole('button', { name }).count(), name).toBe(0)
    }
    expect(await page.getByLabel('Tag value').count()).toBe(0)
    const nav = page.getByRole('navigation', { name: 'Main' })
    for (const name of ['API tokens', 'Webhooks', 'Users', 'Import/export']) expect(await nav.getByRole('link', { name }).count(), name).toBe(0)
    // What the screen does not offer, the API refuses anyway.
    opened.allow(403, '/api/admin/projects/')
    const refused = await page.evaluate(async (url) => (await fetch(url, { method: 'POST' })).status, `/api/admin/projects/default/features/${flag}/environments/development/on`)
    expect(refused).toBe(403)
    expect(json(await server.t.app.inject({ method: 'GET', url: `/api/admin/projects/default/features/${flag}`, headers: auth() })).environments.every((e: any) => !e.enabled)).toBe(true)
    await page.goto(`${server.origin}/api-tokens`)
    await page.getByRole('heading', { level: 1, name: 'Not for your role' }).waitFor()
    await expectAccessible(page, 'not allowed')
    expectClean(opened)
    await opened.context.close()
  })
})
