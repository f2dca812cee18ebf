/**
 * The flag list of a project with 5,000 flags. What a person waits for is measured and
 * reported (first rows on screen after navigation, the slowest keystroke while searching, long
 * tasks while typing); only what does not depend on the machine's speed is asserted: the rows
 * in the page stay few, and every keystroke's result is right.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auth } from '../helpers/app.js'
import { expectAccessible, expectClean, launch, openPage, type Server, startServer } from './browser.js'

const COUNT = 5000
const PROJECT = 'big'
let server: Server
let browser: Browser
const names = Array.from({ length: COUNT }, (_, i) => `flag-${String(i + 1).padStart(5, '0')}`)

beforeAll(async () => {
  server = await startServer()
  const inject = (method: 'POST', url: string, payload?: object) => server.t.app.inject({ method, url, headers: auth(), payload })
  await inject('POST', '/api/admin/projects', { id: PROJECT, name: 'Big project' })
  for (const environment of ['development', 'production']) await inject('POST', `/api/admin/projects/${PROJECT}/environments`, { environment })
  // Created through the API, eight at a time; every tenth one is on in production.
  const queue = [...names]
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let name = queue.shift(); name; name = queue.shift()) {
      const res = await inject('POST', `/api/admin/projects/${PROJECT}/features`, { name, type: name.endsWith('7') ? 'experiment' : 'release' })
      if (res.statusCode !== 201) throw new Error(res.body)
      if (name.endsWith('0')) await inject('POST', `/api/admin/projects/${PROJECT}/features/${name}/environments/production/on`)
    }
  }))
  browser = await launch()
}, 600_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe(`a project with ${COUNT} flags`, () => {
  it('renders the list with few rows in the page, filters as each key is typed, and reports the times', async () => {
    // The list reads feature search a page at a time: its first page, read three times (the last is what a warm server takes).
    const firstPage = `/api/admin/search/features?project=IS:${PROJECT}&sortBy=name&sortOrder=asc&offset=0&limit=100`
    let apiMs = 0
    let listed = await server.t.app.inject({ method: 'GET', url: firstPage, headers: auth() })
    for (let i = 0; i < 3; i++) {
      const apiStarted = performance.now()
      listed = await server.t.app.inject({ method: 'GET', url: firstPage, headers: auth() })
      apiMs = Math.round(performance.now() - apiStarted)
    }
    expect(JSON.parse(listed.body)).toMatchObject({ total: COUNT, features: expect.any(Array) })
    expect(JSON.parse(listed.body).features).toHaveLength(100)
    const opened = await openPage(browser, server, { as: { role: 'Admin' } })
    const { page } = opened
    const started = Date.now()
    await page.goto(`${server.origin}/projects/${PROJECT}`)
    await page.waitForFunction(() => (globalThis as any).document.querySelector('ul[aria-label="Flags"] > li') !== null, undefined, { polling: 'raf', timeout: 60_000 })
    const firstRowsMs = await page.evaluate(() => performance.now())
    // When the script and the list answer had arrived, for the report.
    const arrived = await page.evaluate(() => {
      const entries = performance.getEntriesByType('resource') as unknown as { name: string, responseEnd: number, requestStart: number, responseStart: number }[]
      const at = (part: string) => Math.round(entries.find((e) => e.name.includes(part))?.responseEnd ?? -1)
      const list = entries.find((e) => e.name.includes('/search/features'))
      return { script: at('/assets/app-'), list: at('/search/features'), listRequested: Math.round(list?.requestStart ?? -1), listFirstByte: Math.round(list?.responseStart ?? -1) }
    })
    const fetched = await page.evaluate(async (url) => {
      const started = performance.now()
      const res = await fetch(url)
      const firstByte = performance.now() - started
      await res.json()
      return { firstByte: Math.round(firstByte), total: Math.round(performance.now() - started) }
    }, firstPage)
    const wallMs = Date.now() - started
    await page.getByText(`${COUNT} flags`, { exact: true }).waitFor()
    const rows = page.locator('ul[aria-label="Flags"] > li')
    expect(await rows.count()).toBeLessThan(60)
    expect(await rows.first().getAttribute('aria-setsize')).toBe(String(COUNT))
    await expectAccessible(page, `flag list of ${COUNT}`)
    // Scrolled to its end, the list reads the pages it has not read yet, and shows the last flag.
    await page.evaluate(() => (globalThis as any).window.scrollTo(0, (globalThis as any).document.body.scrollHeight))
    await page.getByRole('link', { name: names.at(-1)!, exact: true }).waitFor({ timeout: 60_000 })
    expect(await rows.count()).toBeLessThan(60)
    await page.evaluate(() => (globalThis as any).window.scrollTo(0, 0))

    // Every event handled while typing, and every task over 50 ms, as the browser measured them.
    await page.evaluate(() => {
      const g = globalThis as any
      g.slowest = 0
      g.longTasks = []
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) g.slowest = Math.max(g.slowest, e.duration)
      }).observe({ type: 'event', durationThreshold: 16, buffered: false } as any)
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) g.longTasks.push(Math.round(e.duration))
      }).observe({ type: 'longtask', buffered: false } as any)
    })
    const search = page.getByLabel('Search flags')
    await search.click()
    const typed = 'flag-0042'
    for (let i = 1; i <= typed.length; i++) {
      await page.keyboard.type(typed[i - 1]!, { delay: 30 })
      const expected = names.filter((n) => n.includes(typed.slice(0, i))).length
      await page.getByText(expected === COUNT ? `${COUNT} flags` : `Showing ${expected} of ${COUNT} flags`, { exact: true }).waitFor()
    }
    await page.getByRole('link', { name: 'flag-00420', exact: true }).waitFor()
    const typing = await page.evaluate(() => ({ slowest: Math.round((globalThis as any).slowest), longTasks: (globalThis as any).longTasks as number[] }))

    // Filters combine: experiments (names ending in 7) that are on in production (ending in 0): none.
    await search.fill('')
    await page.getByLabel('Type').selectOption('experiment')
    await page.getByText(`Showing ${COUNT / 10} of ${COUNT} flags`, { exact: true }).waitFor()
    await page.getByLabel('State', { exact: true }).selectOption('production:on')
    await page.getByText('No flag matches these filters.').waitFor()
    // And live in the address: a reload shows the same filtered list.
    await page.reload()
    await page.getByText('No flag matches these filters.').waitFor()
    // The State filter's choices come with the environments, which may arrive after the list.
    await expect.poll(() => page.getByLabel('State', { exact: true }).inputValue(), { timeout: 10_000 }).toBe('production:on')

    console.log(`UI at ${COUNT} flags: the first page of the search ${Math.round(listed.body.length / 1024)} kB in ${apiMs} ms; first rows ${Math.round(firstRowsMs)} ms after navigation (${wallMs} ms as the test saw it; the script had arrived at ${arrived.script} ms; the list was asked for at ${arrived.listRequested} ms, began to arrive at ${arrived.listFirstByte} ms and had arrived at ${arrived.list} ms; asked again from the page it took ${fetched.total} ms); slowest keystroke ${typing.slowest} ms; long tasks while typing: ${typing.longTasks.length ? typing.longTasks.join(', ') + ' ms' : 'none'}`)
    expectClean(opened)
    await opened.context.close()
  })
})
