/**
 * The journeys of the people who flip flags, in a real browser, each checked against what the
 * API then stores, with axe-core on every screen they pass and at phone and desktop widths.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auth, createFeature, json, uniqueName } from '../helpers/app.js'
import { apiOf, createPerson, DESKTOP, expectAccessible, expectClean, openPage, PHONE, useBrowserApp } from './browser.js'

const ui = useBrowserApp()

const api = apiOf(() => ui.server)
const feature = (name: string) => api('GET', `/api/admin/projects/default/features/${name}`)
const flagUrl = (name: string) => `${ui.server.origin}/projects/default/features/${name}`

describe('signing in and out', () => {
  it.each([['desktop', DESKTOP], ['a 360 px phone', PHONE]])('on %s: a flag\'s address asks to sign in, Enter signs in and opens it, the menu says who and which role, Sign out ends the session', async (_label, viewport) => {
    const person = await createPerson(ui.server, 'Editor')
    const flag = await createFeature(ui.server.t.app)
    const opened = await openPage(ui.browser, ui.server, { viewport })
    const { page } = opened
    // Signed out, the page asks who is there (401), and the flag read started early is refused too.
    opened.allow(401, '/api/admin/')
    // A wrong password, on purpose: the form says so in an alert.
    opened.allow(401, '/auth/simple/login')
    await page.goto(flagUrl(flag))
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor()
    await expectAccessible(page, 'sign in')
    await page.getByLabel('Username').fill(person.username)
    await page.getByLabel('Password').fill('not the password')
    await page.keyboard.press('Enter')
    await page.getByRole('alert').waitFor()
    await page.getByLabel('Password').fill(person.password)
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { level: 1, name: flag }).waitFor()
    expect(new URL(page.url()).pathname).toBe(`/projects/default/features/${flag}`)
    const account = page.locator('summary', { hasText: person.name })
    await expect.poll(() => account.textContent()).toContain('Editor')
    await account.click()
    await page.getByText(`Signed in as ${person.name} (Editor)`).waitFor()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { level: 1, name: 'You are signed out' }).waitFor()
    await expectAccessible(page, 'signed out')
    // The session is over: the API answers 401 to this browser.
    expect(await page.evaluate(async () => (await fetch('/api/admin/user')).status)).toBe(401)
    expectClean(opened)
    await opened.context.close()
  })
})

describe('signed out', () => {
  it('Sign out in the user menu lands on /signed-out, which offers "Sign in again"; the old session cookie no longer works', async () => {
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Editor' } })
    const { page } = opened
    await page.goto(`${ui.server.origin}/projects`)
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
    const session = (await opened.context.cookies()).find((c) => c.name === 'unleash-session')
    expect(session?.value).toBeTruthy()
    const asCookie = async () => (await ui.server.t.app.inject({ method: 'GET', url: '/api/admin/user', headers: { cookie: `unleash-session=${session!.value}` } })).statusCode
    expect(await asCookie()).toBe(200)

    // The user menu: its summary names the person and role.
    await page.locator('summary', { hasText: 'Editor' }).click()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { level: 1, name: 'You are signed out' }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/signed-out')
    await expect.poll(() => page.title()).toBe('Signed out · Feature flags')
    await expectAccessible(page, 'signed out')
    // The browser dropped the cookie, and the session it named is over on the server too.
    expect((await opened.context.cookies()).some((c) => c.name === 'unleash-session' && c.value !== '')).toBe(false)
    expect(await asCookie()).toBe(401)

    // "Sign in again" leads to the sign-in form (asking who is there is a 401 now, as it should be).
    opened.allow(401, '/api/admin/user')
    await page.getByRole('link', { name: 'Sign in again' }).click()
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor()
    expectClean(opened)
    await opened.context.close()
  })
})

describe.each([
  ['desktop', DESKTOP],
  ['a 360 px phone', PHONE],
])('on %s', (_label, viewport) => {
  it('creates a flag with "New flag", finds it by searching, and opens it by its link', async () => {
    const opened = await openPage(ui.browser, ui.server, { viewport, as: { role: 'Admin' } })
    const { page } = opened
    const name = uniqueName('checkout')
    await page.goto(`${ui.server.origin}/projects/default`)
    // The project's name comes with the projects read, after the page.
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe('Flags of Default · Feature flags')
    await page.getByRole('heading', { level: 1, name: 'Flags' }).waitFor()
    await expectAccessible(page, 'flag list')

    await page.getByRole('button', { name: 'New flag' }).click()
    const dialog = page.getByRole('dialog', { name: 'New flag' })
    await expectAccessible(page, 'new flag dialog')
    // Its Close button shows: the × is not drawn in the dialog's own background colour.
    const [cross, paper] = await dialog.getByRole('button', { name: 'Close' }).evaluate((el) => {
      const style = (e: unknown) => (globalThis as any).getComputedStyle(e)
      return [style(el).color, style(el.closest('article')).backgroundColor] as string[]
    })
    expect(cross).not.toBe(paper)
    await dialog.getByLabel('Name').fill(name)
    await dialog.getByLabel('Description').fill('The new checkout')
    await dialog.getByRole('button', { name: 'Create' }).click()

    // The flag's own page, at its own address.
    await page.getByRole('heading', { level: 1, name }).waitFor()
    expect(new URL(page.url()).pathname).toBe(`/projects/default/features/${name}`)
    expect((await feature(name)).body).toMatchObject({ name, description: 'The new checkout', type: 'release' })

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click()
    await page.getByRole('link', { name: 'Default' }).click()
    await page.getByLabel('Search flags').fill(name.slice(0, 12))
    await page.getByRole('link', { name, exact: true }).click()
    await page.getByRole('heading', { level: 1, name }).waitFor()
    expectClean(opened)
    await opened.context.close()
  })

  it('switches a flag on in development with the keyboard alone: Tab reaches the switch, Space toggles it', async () => {
    const name = await createFeature(ui.server.t.app)
    const opened = await openPage(ui.browser, ui.server, { viewport, as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(flagUrl(name))
    const toggle = page.getByRole('switch', { name: 'Enabled in development' })
    await toggle.waitFor()
    await expectAccessible(page, 'flag page')
    // From the top of the page, Tab until the switch has the focus.
    let reached = false
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab')
      reached = await toggle.evaluate((el) => el === (globalThis as any).document.activeElement)
    }
    expect(reached).toBe(true)
    await page.keyboard.press('Space')
    await expect.poll(async () => (await feature(name)).body.environments.find((e: any) => e.name === 'development').enabled).toBe(true)
    await expect.poll(() => toggle.isChecked()).toBe(true)
    // Production was left alone.
    expect((await feature(name)).body.environments.find((e: any) => e.name === 'production').enabled).toBe(false)
    await page.getByRole('status').filter({ hasText: 'is on in development' }).waitFor()
    expectClean(opened)
    await opened.context.close()
  })
})

describe('with the keyboard alone', () => {
  it('creates a flag: Tab to "New flag", Enter, type the name, Enter, and the flag\'s page opens', async () => {
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    const name = uniqueName('keys')
    await page.goto(`${ui.server.origin}/projects/default`)
    const button = page.getByRole('button', { name: 'New flag' })
    await button.waitFor()
    let reached = false
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab')
      reached = await button.evaluate((el) => el === (globalThis as any).document.activeElement)
    }
    expect(reached).toBe(true)
    // Focus is visible where it is.
    expect(await button.evaluate((el) => (globalThis as any).getComputedStyle(el).outlineStyle)).not.toBe('none')
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'New flag' })
    await expect.poll(() => dialog.getByLabel('Name').evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true)
    await page.keyboard.type(name)
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { level: 1, name }).waitFor()
    expect((await feature(name)).status).toBe(200)
    // Escape closes a dialog and leaves nothing behind.
    await page.getByRole('button', { name: 'Mark completed' }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('dialog', { name: `Mark ${name} completed` }).waitFor()
    await page.keyboard.press('Escape')
    await page.getByRole('dialog').waitFor({ state: 'hidden' })
    expect((await api('GET', `/api/admin/projects/default/features/${name}/lifecycle`)).body.map((s: any) => s.stage)).toEqual(['initial'])
    expectClean(opened)
    await opened.context.close()
  })
})

/** Opens the strategy dialog of one environment and returns it. */
async function addStrategy (page: Page, environment: string) {
  await page.getByRole('region', { name: environment, exact: true }).getByRole('button', { name: 'Add strategy' }).click()
  return page.getByRole('dialog', { name: `Add strategy in ${environment}` })
}

describe('a flag, on desktop', () => {
  it('adds a gradual rollout of 30% with a constraint', async () => {
    const name = await createFeature(ui.server.t.app)
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(flagUrl(name))
    const dialog = await addStrategy(page, 'development')
    await expect.poll(() => dialog.getByLabel('Strategy type').inputValue()).toBe('flexibleRollout')
    await dialog.getByLabel('Strategy type').selectOption({ label: 'Gradual rollout' })
    await dialog.getByLabel('Rollout').fill('30')
    await dialog.getByLabel('Stickiness').selectOption('userId')
    await dialog.getByRole('button', { name: 'Add constraint' }).click()
    await dialog.getByLabel('Context field').fill('userId')
    await dialog.getByLabel('Operator').selectOption({ label: 'is one of' })
    await dialog.getByLabel('Values').fill('alice\nbob')
    await expectAccessible(page, 'strategy dialog')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'hidden' })

    const stored = (await feature(name)).body.environments.find((e: any) => e.name === 'development').strategies
    expect(stored).toEqual([
      expect.objectContaining({
        name: 'flexibleRollout',
        parameters: { rollout: '30', stickiness: 'userId', groupId: name },
        constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice', 'bob'] }],
      }),
    ])
    await page.getByText('Rollout 30% by userId').waitFor()
    await page.getByText('Only when userId is one of alice, bob').waitFor()
    expectClean(opened)
    await opened.context.close()
  })

  it('shows a refused strategy at its field, in words, and stores nothing', async () => {
    const name = await createFeature(ui.server.t.app)
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    opened.allow(400, '/api/admin/projects/default/features/')
    await page.goto(flagUrl(name))
    const dialog = await addStrategy(page, 'development')
    await dialog.getByRole('button', { name: 'Add constraint' }).click()
    await dialog.getByLabel('Context field').fill('age')
    await dialog.getByLabel('Operator').selectOption({ label: 'number greater than' })
    await dialog.getByLabel('Value', { exact: true }).fill('twelve')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.getByRole('alert').first().waitFor()
    expect(await dialog.locator('li.constraint').getByRole('alert').textContent()).toMatch(/number/i)
    await expectAccessible(page, 'strategy dialog with an error')
    expect((await feature(name)).body.environments.find((e: any) => e.name === 'development').strategies).toEqual([])
    expectClean(opened)
    await opened.context.close()
  })

  it('adds variants with "Add variant", "Variant name" and "Save", as a JSON Patch with If-Match', async () => {
    const name = await createFeature(ui.server.t.app)
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(flagUrl(name))
    await page.getByRole('navigation', { name: 'Flag sections' }).getByRole('link', { name: 'Variants' }).click()
    const section = page.getByRole('region', { name: 'Variants in development' })
    await section.getByRole('button', { name: 'Add variant' }).click()
    await section.getByLabel('Variant name').fill('blue')
    await section.getByRole('button', { name: 'Add variant' }).click()
    await section.getByLabel('Variant name').nth(1).fill('green')
    await section.getByLabel('Payload type').nth(1).selectOption({ label: 'JSON' })
    await section.getByLabel('Payload', { exact: true }).fill('{"color": "green"}')
    await section.getByText('Split: blue 50.0%, green 50.0%.').waitFor()
    await expectAccessible(page, 'variants')
    await section.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').filter({ hasText: 'Variants saved in development' }).waitFor()
    const stored = await api('GET', `/api/admin/projects/default/features/${name}/environments/development/variants`)
    expect(stored.body.variants).toEqual([
      { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default' },
      { name: 'green', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"color": "green"}' } },
    ])
    expectClean(opened)
    await opened.context.close()
  })

  it('shows what changed when someone else saved the variants meanwhile, instead of overwriting them', async () => {
    const name = await createFeature(ui.server.t.app)
    await api('PUT', `/api/admin/projects/default/features/${name}/environments/development/variants`, [{ name: 'a', weight: 0 }])
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    opened.allow(412, '/api/admin/projects/default/features/')
    await page.goto(`${flagUrl(name)}/variants`)
    const section = page.getByRole('region', { name: 'Variants in development' })
    await section.getByLabel('Variant name').waitFor()
    // Someone else adds a variant while this page is open.
    await api('PUT', `/api/admin/projects/default/features/${name}/environments/development/variants`, [{ name: 'a', weight: 0 }, { name: 'theirs', weight: 0 }])
    await section.getByRole('button', { name: 'Add variant' }).click()
    await section.getByLabel('Variant name').nth(1).fill('mine')
    await section.getByRole('button', { name: 'Save' }).click()
    const conflict = section.getByRole('alert').filter({ hasText: 'Someone else changed the variants in development' })
    await conflict.waitFor()
    await expect.poll(() => conflict.locator('ins').allTextContents()).toContainEqual(expect.stringContaining('"name": "theirs"'))
    await expectAccessible(page, 'variants conflict')
    let stored = await api('GET', `/api/admin/projects/default/features/${name}/environments/development/variants`)
    expect(stored.body.variants.map((v: any) => v.name)).toEqual(['a', 'theirs'])
    await conflict.getByRole('button', { name: 'Discard my edits and show theirs' }).click()
    await expect.poll(() => section.getByLabel('Variant name').evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value))).toEqual(['a', 'theirs'])
    stored = await api('GET', `/api/admin/projects/default/features/${name}/environments/development/variants`)
    expect(stored.body.variants.map((v: any) => v.name)).toEqual(['a', 'theirs'])
    expectClean(opened)
    await opened.context.close()
  })

  it('marks a flag completed as kept, after choosing "Kept" and confirming', async () => {
    const name = await createFeature(ui.server.t.app)
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(flagUrl(name))
    await page.getByRole('button', { name: 'Mark completed' }).click()
    const dialog = page.getByRole('dialog', { name: `Mark ${name} completed` })
    await dialog.getByRole('radio', { name: /^Kept/ }).check()
    await dialog.getByLabel(/Which variant or version was kept/).fill('blue')
    await expectAccessible(page, 'mark completed dialog')
    await dialog.getByRole('button', { name: 'Confirm' }).click()
    await dialog.waitFor({ state: 'hidden' })
    const stages = (await api('GET', `/api/admin/projects/default/features/${name}/lifecycle`)).body
    expect(stages.at(-1)).toMatchObject({ stage: 'completed', status: 'kept', statusValue: 'blue' })
    await page.getByRole('button', { name: 'Uncomplete' }).waitFor()
    await page.getByText('Kept: blue').waitFor()

    // An SDK still evaluates it in production: the flag page warns that its code is still there.
    const client = await ui.server.t.app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: auth(), payload: { tokenName: uniqueName('sdk'), type: 'client', environment: 'production' } })
    const now = new Date().toISOString()
    const metrics = await ui.server.t.app.inject({
      method: 'POST',
      url: '/api/client/metrics',
      headers: auth(json(client).secret),
      payload: { appName: 'checkout', instanceId: 'i-1', bucket: { start: now, stop: now, toggles: { [name]: { yes: 3, no: 0 } } } },
    })
    expect(metrics.statusCode).toBeLessThan(300)
    await ui.server.t.app.usage.flush()
    await page.reload()
    const warning = page.getByRole('note').filter({ hasText: 'Completed, but SDKs still evaluate this flag.' })
    await warning.getByText(/^production: last evaluated/).waitFor()
    await expectAccessible(page, 'completed flag still evaluated')
    expectClean(opened)
    await opened.context.close()
  })

  it('reads the flag\'s history as sentences, each with its before and after', async () => {
    const name = await createFeature(ui.server.t.app)
    await api('POST', `/api/admin/projects/default/features/${name}/environments/production/on`)
    await api('PUT', `/api/admin/projects/default/features/${name}/environments/production/variants`, [{ name: 'red', weight: 0 }])
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(`${flagUrl(name)}/history`)
    await page.getByRole('heading', { level: 2, name: 'History' }).waitFor()
    const entries = page.getByRole('list').filter({ has: page.getByText('created the flag') })
    await entries.waitFor()
    const sentences = await entries.locator(':scope > li > p').allTextContents()
    expect(sentences).toEqual([
      expect.stringMatching(/ changed the variants of the flag in production\.$/),
      expect.stringMatching(/ switched the flag on in production\.$/),
      expect.stringMatching(/ added a gradual rollout of 100% to the flag in production\.$/),
      expect.stringMatching(/ created the flag as a release flag\.$/),
    ])
    await entries.locator(':scope > li').first().getByText('Show the change').click()
    await entries.locator(':scope > li').first().locator('ins', { hasText: '"name": "red"' }).waitFor()
    await expectAccessible(page, 'history')
    expectClean(opened)
    await opened.context.close()
  })

  it('makes a flag depend on another one, shows it, and removes the dependency', async () => {
    const parent = await createFeature(ui.server.t.app)
    const child = await createFeature(ui.server.t.app)
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(flagUrl(child))
    await page.getByRole('button', { name: 'Add dependency' }).click()
    await page.getByLabel('Parent flag').fill(parent)
    await page.getByLabel('This flag is on only when the parent is').selectOption('on')
    await expectAccessible(page, 'add dependency')
    await page.getByRole('button', { name: 'Add dependency' }).click()
    await page.getByRole('region', { name: 'Dependencies' }).getByText(`On only when ${parent} is on`).waitFor()
    expect((await feature(child)).body.dependencies).toEqual([{ feature: parent, enabled: true, variants: [] }])
    await page.getByRole('link', { name: parent, exact: true }).click()
    await page.getByRole('heading', { level: 1, name: parent }).waitFor()
    await page.getByText('Flags that depend on this one:').waitFor()
    await page.goBack()
    await page.getByRole('button', { name: `Remove dependency on ${parent}` }).click()
    await page.getByText('This flag depends on no other flag.').waitFor()
    expect((await feature(child)).body.dependencies).toEqual([])
    expectClean(opened)
    await opened.context.close()
  })

  it('tags a flag: the tag shows on its page and in the flag list, the Tag filter finds it, and "Remove tag" takes it off', async () => {
    const name = await createFeature(ui.server.t.app)
    const type = uniqueName('release')
    expect((await api('POST', '/api/admin/tag-types', { name: type, description: 'Release train' })).status).toBe(201)
    const tags = async () => (await api('GET', `/api/admin/features/${name}/tags`)).body.tags
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(flagUrl(name))
    const section = page.getByRole('region', { name: 'Tags' })
    await section.getByText('No tags.').waitFor()
    await section.getByLabel('Tag type').selectOption(type)
    await section.getByLabel('Tag value').fill('q4')
    await expectAccessible(page, 'tags of a flag')
    await section.getByRole('button', { name: 'Add tag' }).click()
    await section.getByText(`${type}:q4`, { exact: true }).waitFor()
    expect(await tags()).toEqual([{ type, value: 'q4' }])
    await page.getByRole('status').filter({ hasText: `Tagged ${type}:q4` }).waitFor()
    // An empty value is refused by the form before it reaches the API; a one-letter one by the API, at its field.
    await section.getByLabel('Tag value').fill('x')
    await section.getByLabel('Tag value').evaluate((el) => el.removeAttribute('minlength'))
    opened.allow(400, `/api/admin/features/${name}/tags`)
    await section.getByRole('button', { name: 'Add tag' }).click()
    await expect.poll(() => section.getByLabel('Tag value').getAttribute('aria-invalid')).toBe('true')
    expect(await tags()).toEqual([{ type, value: 'q4' }])

    // The flag list shows the tag in the flag's row, and its Tag filter finds the flag.
    await page.getByRole('link', { name: 'default', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Flags' }).waitFor()
    await page.getByLabel('Tag', { exact: true }).selectOption(`${type}:q4`)
    const rows = page.getByRole('list', { name: 'Flags' }).getByRole('listitem')
    await expect.poll(() => rows.count()).toBe(1)
    await rows.first().getByText(`${type}:q4`).waitFor()
    expect(new URL(page.url()).searchParams.get('tag')).toBe(`${type}:q4`)
    await expectAccessible(page, 'flag list filtered by tag')
    await rows.first().getByRole('link', { name, exact: true }).click()

    await page.getByRole('button', { name: `Remove tag ${type}:q4` }).click()
    await section.getByText('No tags.').waitFor()
    expect(await tags()).toEqual([])
    expectClean(opened)
    await opened.context.close()
  })

  it('gives a strategy a segment and strategy variants', async () => {
    const name = await createFeature(ui.server.t.app)
    const segment = uniqueName('vip')
    const created = await api('POST', '/api/admin/segments', { name: segment, constraints: [{ contextName: 'userId', operator: 'IN', values: ['v1'] }] })
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(flagUrl(name))
    const dialog = await addStrategy(page, 'production')
    await dialog.getByRole('checkbox', { name: segment }).check()
    await dialog.getByRole('button', { name: 'Add variant' }).click()
    await dialog.getByLabel('Variant name').fill('gold')
    await dialog.getByLabel('Weight type').selectOption('fix')
    await dialog.getByLabel('Weight (%)').fill('30')
    await dialog.getByRole('button', { name: 'Add variant' }).click()
    await dialog.getByLabel('Variant name').nth(1).fill('silver')
    await dialog.getByText('Split: gold 30.0%, silver 70.0%.').waitFor()
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'hidden' })
    const strategy = (await feature(name)).body.environments.find((e: any) => e.name === 'production').strategies[0]
    expect(strategy.segments).toEqual([created.body.id])
    expect(strategy.variants.map((v: any) => [v.name, v.weight, v.weightType])).toEqual([['gold', 300, 'fix'], ['silver', 700, 'variable']])
    await page.getByText(`Segment: ${segment}`).waitFor()
    await page.getByText('Variants: gold 30.0%, silver 70.0%').waitFor()
    expectClean(opened)
    await opened.context.close()
  })

  it('edits a flag\'s description, type and impression data', async () => {
    const name = await createFeature(ui.server.t.app)
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(flagUrl(name))
    await page.getByRole('button', { name: 'Edit settings' }).click()
    const dialog = page.getByRole('dialog', { name: `Settings of ${name}` })
    await dialog.getByLabel('Description').fill('Kill switch for the search service')
    await dialog.getByLabel('Type').selectOption({ label: 'Kill switch' })
    await dialog.getByRole('checkbox', { name: 'Impression data' }).check()
    await expectAccessible(page, 'settings dialog')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect((await feature(name)).body).toMatchObject({ description: 'Kill switch for the search service', type: 'kill-switch', impressionData: true })
    await page.getByText('Kill switch for the search service').waitFor()
    expectClean(opened)
    await opened.context.close()
  })

  it('archives a flag after a confirmation and revives it', async () => {
    const name = await createFeature(ui.server.t.app)
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(flagUrl(name))
    await page.getByRole('button', { name: 'Archive' }).click()
    await page.getByRole('dialog', { name: `Archive ${name}?` }).getByRole('button', { name: 'Archive' }).click()
    await page.getByText('This flag is archived').waitFor()
    await page.getByRole('dialog').waitFor({ state: 'hidden' })
    await page.getByRole('button', { name: 'Revive' }).waitFor()
    expect((await feature(name)).body.lifecycle.stage).toBe('archived')
    await expectAccessible(page, 'archived flag')
    await page.getByRole('button', { name: 'Revive' }).click()
    await page.getByRole('button', { name: 'Archive' }).waitFor()
    expect((await feature(name)).body.lifecycle.stage).not.toBe('archived')
    expectClean(opened)
    await opened.context.close()
  })

  it('loads a flag\'s own address on refresh, and every screen has a language and a title of its own, passes axe and makes no failing request', async () => {
    const name = await createFeature(ui.server.t.app)
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    const titles: Record<string, string> = {}
    for (const path of [`/projects/default/features/${name}`, `/projects/default/features/${name}/variants`, `/projects/default/features/${name}/history`, '/projects', '/projects/default', '/history', '/segments', '/context', '/strategies', '/import-export', '/api-tokens', '/webhooks', '/users', '/groups', '/single-sign-on', '/playground', '/projects/default/change-requests', '/projects/default/access', '/profile', '/no-such-screen/x']) {
      const res = await page.goto(`${ui.server.origin}${path}`)
      if (path === '/no-such-screen/x') {
        expect(res?.status()).toBe(404)
        continue
      }
      expect(res?.status()).toBe(200)
      expect(res?.headers()['content-security-policy']).toContain("script-src 'self'")
      await page.getByRole('heading', { level: 1 }).waitFor()
      expect(await page.locator('html').getAttribute('lang')).toBe('en')
      await expect.poll(() => page.title()).not.toBe('Feature flags')
      titles[path] = await page.title()
      // Every read the screen starts has answered (a failing one is in `trouble`) before axe looks.
      await page.waitForLoadState('networkidle')
      await expectAccessible(page, path)
    }
    expect(new Set(Object.values(titles)).size).toBe(Object.keys(titles).length)
    opened.trouble.failed = opened.trouble.failed.filter((f) => !f.endsWith('/no-such-screen/x → 404'))
    expectClean(opened)
    await opened.context.close()
  })
})

describe('import and export', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ui-import-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  /** A project with development, and flags in it: one switched on with a 40% rollout and a tag. */
  const projectWithFlags = async (prefix: string, flags: string[]) => {
    const project = uniqueName(prefix)
    expect((await api('POST', '/api/admin/projects', { id: project, name: project })).status).toBe(201)
    expect((await api('POST', `/api/admin/projects/${project}/environments`, { environment: 'development' })).status).toBe(200)
    for (const name of flags) {
      await createFeature(ui.server.t.app, project, name)
      const base = `/api/admin/projects/${project}/features/${name}/environments/development`
      expect((await api('POST', `${base}/strategies`, { name: 'flexibleRollout', parameters: { rollout: '40', stickiness: 'default', groupId: name } })).status).toBe(200)
      expect((await api('POST', `${base}/on`)).status).toBe(200)
      expect((await api('POST', `/api/admin/features/${name}/tags`, { type: 'simple', value: 'moved' })).status).toBe(201)
    }
    return project
  }

  it('uploads an export: validate\'s errors block the import, its warnings do not, and the imported flags are in the project', async () => {
    const [moving, existing] = [uniqueName('moving'), uniqueName('existing')]
    const source = await projectWithFlags('src', [moving])
    const target = await projectWithFlags('dst', [existing])
    const exported = await api('POST', '/api/admin/features-batch/export', { features: [moving], environment: 'development' })
    expect(exported.status).toBe(200)
    // As it is, the file names a flag of another project: an error.
    const clash = join(dir, 'clash.json')
    await writeFile(clash, JSON.stringify(exported.body))
    // The same flag renamed, beside the target's own flag: importable, with a warning that it is overwritten.
    const fresh = uniqueName('fresh')
    const good = JSON.parse(JSON.stringify(exported.body).replaceAll(`"${moving}"`, `"${fresh}"`))
    good.features.push({ ...good.features[0], name: existing, description: 'Overwritten by the import' })
    good.featureEnvironments.push({ ...good.featureEnvironments[0], name: existing, featureName: existing })
    const goodFile = join(dir, 'good.json')
    await writeFile(goodFile, JSON.stringify(good))

    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(`${ui.server.origin}/import-export`)
    await page.getByRole('heading', { level: 1, name: 'Import and export' }).waitFor()
    const section = page.getByRole('region', { name: 'Import' })
    await section.getByLabel('Into project').selectOption(target)
    await section.getByLabel('Export file').setInputFiles(clash)
    await section.getByRole('button', { name: 'Validate' }).click()
    const result = page.getByRole('region', { name: 'Validation result' })
    await result.getByText(`You cannot import a features that already exist in other projects. You already have the following features defined outside of project ${target}: ${moving}`).waitFor()
    expect(await result.getByRole('button', { name: 'Import' }).isDisabled()).toBe(true)
    await expectAccessible(page, 'import with errors')

    await section.getByLabel('Export file').setInputFiles(goodFile)
    await section.getByRole('button', { name: 'Validate' }).click()
    await result.getByText('The file can be imported.').waitFor()
    await result.getByText(`The following features already exist in this project and will be overwritten: ${existing}`).waitFor()
    await expectAccessible(page, 'import with warnings')
    await result.getByRole('button', { name: 'Import' }).click()
    await result.getByText(`The flags are in ${target}, in development.`).waitFor()

    // The API is the truth: both flags are in the target, on in development; the tags are the file's
    // (it tags the renamed flag, and not the overwritten one, whose tag is gone).
    const list = (await api('GET', `/api/admin/projects/${target}/features`)).body.features
    expect(list.map((f: any) => f.name).sort()).toEqual([existing, fresh].sort())
    for (const f of list) expect(f.environments.map((e: any) => ({ name: e.name, enabled: e.enabled }))).toEqual([{ name: 'development', enabled: true }])
    expect(list.find((f: any) => f.name === fresh).tags).toEqual([{ type: 'simple', value: 'moved' }])
    expect(list.find((f: any) => f.name === existing).tags).toEqual([])
    expect(list.find((f: any) => f.name === existing).description).toBe('Overwritten by the import')
    const strategies = (await api('GET', `/api/admin/projects/${target}/features/${fresh}`)).body.environments[0].strategies
    expect(strategies).toEqual([expect.objectContaining({ name: 'flexibleRollout', parameters: { rollout: '40', stickiness: 'default', groupId: fresh } })])
    // The source project kept its flag.
    expect((await api('GET', `/api/admin/projects/${source}/features`)).body.features.map((f: any) => f.name)).toEqual([moving])
    expectClean(opened)
    await opened.context.close()
  })

  it('downloads an export: the file parses and holds the project\'s flags', async () => {
    const flag = uniqueName('exported')
    const project = await projectWithFlags('exp', [flag])
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(`${ui.server.origin}/import-export`)
    const section = page.getByRole('region', { name: 'Export' })
    await section.getByLabel('Project').selectOption(project)
    await section.getByLabel('Environment').selectOption('development')
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      section.getByRole('button', { name: 'Download the export' }).click(),
    ])
    expect(download.suggestedFilename()).toBe(`export-${project}-development.json`)
    const file = JSON.parse(await readFile(await download.path(), 'utf8'))
    expect(file.features.map((f: any) => f.name)).toEqual([flag])
    expect(file.featureEnvironments).toEqual([expect.objectContaining({ featureName: flag, enabled: true })])
    expect(file.featureTags).toEqual([{ featureName: flag, tagType: 'simple', tagValue: 'moved' }])
    await page.getByRole('status').filter({ hasText: `Exported 1 flag of ${project} in development` }).waitFor()
    await expectAccessible(page, 'export')
    // A project without flags exports none (not every flag of every project).
    const empty = uniqueName('empty')
    expect((await api('POST', '/api/admin/projects', { id: empty, name: empty })).status).toBe(201)
    await page.reload()
    await section.getByLabel('Project').selectOption(empty)
    const [nothing] = await Promise.all([
      page.waitForEvent('download'),
      section.getByRole('button', { name: 'Download the export' }).click(),
    ])
    expect(JSON.parse(await readFile(await nothing.path(), 'utf8')).features).toEqual([])
    expectClean(opened)
    await opened.context.close()
  })
})
