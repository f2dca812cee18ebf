/**
 * The playground in a real browser: a person asks why a flag is off for a user, and reads the
 * constraint that fails; with the keyboard alone, and axe-core on the screen with its answers.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auth, uniqueName } from '../helpers/app.js'
import { DESKTOP, expectAccessible, expectClean, launch, openPage, PHONE, type Server, startServer } from './browser.js'

let server: Server
let browser: Browser
const checkout = uniqueName('checkout')

const api = async (method: 'POST' | 'PUT', url: string, payload: object) => {
  const res = await server.t.app.inject({ method, url, headers: auth(), payload })
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300)
}

beforeAll(async () => {
  server = await startServer()
  browser = await launch()
  const base = '/api/admin/projects/default/features'
  await api('POST', '/api/admin/context', { name: 'country', description: 'Where the user is', legalValues: [{ value: 'NL' }, { value: 'BE' }, { value: 'US' }] })
  await api('POST', base, { name: checkout })
  await api('POST', `${base}/${checkout}/environments/development/strategies`, {
    name: 'flexibleRollout',
    title: 'Benelux',
    parameters: { rollout: '100', stickiness: 'default', groupId: checkout },
    constraints: [{ contextName: 'country', operator: 'IN', values: ['NL', 'BE'] }],
  })
  await api('POST', `${base}/${checkout}/environments/development/on`, {})
})

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe('the playground', () => {
  it.each([['desktop', DESKTOP], ['a 360 px phone', PHONE]])('on %s: why is a flag off for a user? The failing constraint, in words', async (_label, viewport) => {
    const opened = await openPage(browser, server, { viewport, as: { role: 'Viewer' } })
    const { page } = opened
    await page.goto(`${server.origin}/projects`)
    // The playground is in the navigation (on a phone, the links wrap).
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Playground' }).click()
    await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor()
    await expect.poll(() => page.getByLabel('Environment').inputValue()).toBe('development')
    await expectAccessible(page, 'playground')

    await page.getByLabel('userId').fill('user-42')
    // country is a context field with legal values: it can be added and is suggested.
    await page.getByLabel('Add a context field').selectOption('country')
    await page.getByRole('button', { name: 'Add field' }).click()
    await page.getByLabel('country').fill('US')
    await page.getByRole('button', { name: 'Evaluate' }).click()

    await page.getByRole('heading', { level: 2, name: 'Results in development' }).waitFor()
    await page.getByLabel('Find a flag').fill(checkout)
    const answer = page.locator('summary', { hasText: checkout })
    await expect.poll(() => answer.textContent()).toContain('Off: no strategy matched')
    await answer.click()
    await page.getByText('Gradual rollout 100% “Benelux”: did not match').waitFor()
    await page.getByText('country is one of NL, BE: no (country is US)').waitFor()
    await expectAccessible(page, 'playground with its answers')

    // The same user in the Netherlands: on, and why.
    await page.getByLabel('country', { exact: true }).fill('NL')
    await page.getByRole('button', { name: 'Evaluate' }).click()
    await expect.poll(() => answer.textContent()).toContain('On: Gradual rollout 100% “Benelux” matched')
    await page.getByText('country is one of NL, BE: yes (country is NL)').waitFor()
    expectClean(opened)
    await opened.context.close()
  })

  it('with the keyboard alone: fill the context, Enter evaluates, Enter opens an answer', async () => {
    const opened = await openPage(browser, server, { as: { role: 'Editor' } })
    const { page } = opened
    await page.goto(`${server.origin}/playground`)
    await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor()
    const userId = page.getByLabel('userId')
    let reached = false
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab')
      reached = await userId.evaluate((el) => el === (globalThis as any).document.activeElement)
    }
    expect(reached).toBe(true)
    await page.keyboard.type('user-7')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { level: 2, name: 'Results in development' }).waitFor()
    const summary = page.locator('summary', { hasText: checkout })
    await summary.focus()
    await page.keyboard.press('Enter')
    await page.getByText('country is one of NL, BE: no (country is not set)').waitFor()
    expectClean(opened)
    await opened.context.close()
  })
})
