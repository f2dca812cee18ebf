/**
 * Usage insight in a real browser: a person opens a flag and reads how often SDKs evaluated it
 * (a chart per environment and the same in words), and finds the stale and potentially stale
 * flags of a project with the flag list's Stale filter, which asks feature search.
 */
import { describe, expect, it } from 'vitest'
import { auth, createToken, json, uniqueName } from '../helpers/app.js'
import { expectAccessible, expectClean, openPage, useBrowserApp } from './browser.js'

const ui = useBrowserApp()

const HOUR = 3_600_000
const DAY = 24 * HOUR
const api = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, secret?: string) => {
  const res = await ui.server.t.app.inject({ method, url, headers: secret ? { authorization: secret } : auth(), ...(payload ? { payload } : {}) })
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.body === '' ? undefined : json(res)
}
async function project () {
  const id = uniqueName('p')
  await api('POST', '/api/admin/projects', { id, name: id })
  for (const environment of ['development', 'production']) await api('POST', `/api/admin/projects/${id}/environments`, { environment })
  return id
}
const createFlag = async (projectId: string, name: string, type = 'release') => api('POST', `/api/admin/projects/${projectId}/features`, { name, type })
/** Counts an SDK reports, its bucket stopping `hoursAgo` hours ago; written at once. */
async function report (secret: string, appName: string, toggles: Record<string, object>, hoursAgo: number) {
  const stop = new Date(Date.now() - hoursAgo * HOUR).toISOString()
  await api('POST', '/api/client/metrics', { appName, instanceId: `${appName}-1`, bucket: { start: stop, stop, toggles } }, secret)
  await ui.server.t.app.usage.flush()
}

describe('a flag\'s usage', () => {
  it('shows yes and no per hour in each environment that evaluated it, with the applications, over 48 hours, 7 or 30 days', async () => {
    const p = await project()
    const flag = uniqueName('checkout')
    await createFlag(p, flag)
    const [dev, prod] = [await createToken(ui.server.t.app, { type: 'client', environment: 'development', projects: [p] }), await createToken(ui.server.t.app, { type: 'client', environment: 'production', projects: [p] })]
    const [web, mobile] = [uniqueName('web'), uniqueName('mobile')]
    await report(dev, web, { [flag]: { yes: 3, no: 1 } }, 1)
    await report(prod, web, { [flag]: { yes: 1200, no: 34 } }, 5)
    await report(prod, mobile, { [flag]: { yes: 0, no: 6 } }, 0)
    // Ten days ago: only in the 30 days.
    await report(dev, web, { [flag]: { yes: 50, no: 0 } }, 240)

    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Viewer' } })
    const { page } = opened
    await page.goto(`${ui.server.origin}/projects/${p}/features/${flag}`)
    const usage = page.getByRole('region', { name: 'Usage' })
    await usage.getByText(`development: 3 yes and 1 no in the last 48 hours, by ${web}`, { exact: true }).waitFor()
    await usage.getByText(`production: 1,200 yes and 40 no in the last 48 hours, by ${[web, mobile].sort().join(', ')}`, { exact: true }).waitFor()
    // Each chart is a picture named by what it shows, drawn on a canvas.
    const charts = usage.getByRole('img')
    await expect.poll(() => charts.count()).toBe(2)
    expect(await charts.first().getAttribute('aria-label')).toBe('Evaluations per hour in development, last 48 hours: yes and no')
    expect(await usage.locator('canvas').count()).toBe(2)
    const box = await usage.locator('canvas').first().boundingBox()
    expect(box!.width).toBeGreaterThan(150)
    await expectAccessible(page, 'flag usage')

    await usage.getByLabel('Period').selectOption({ label: 'Last 30 days' })
    await usage.getByText(`development: 53 yes and 1 no in the last 30 days, by ${web}`, { exact: true }).waitFor()
    await usage.getByLabel('Period').selectOption({ label: 'Last 7 days' })
    await usage.getByText(`development: 3 yes and 1 no in the last 7 days, by ${web}`, { exact: true }).waitFor()
    expectClean(opened)
    await opened.context.close()
  })

  it('says so when no SDK evaluated the flag', async () => {
    const p = await project()
    const flag = uniqueName('unused')
    await createFlag(p, flag)
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Viewer' } })
    const { page } = opened
    await page.goto(`${ui.server.origin}/projects/${p}/features/${flag}`)
    await page.getByRole('region', { name: 'Usage' }).getByText('No SDK reported evaluating this flag in the last 48 hours.').waitFor()
    expectClean(opened)
    await opened.context.close()
  })
})

describe('stale flags', () => {
  it('are marked on the flag\'s page, and the Stale filter of the flag list finds them, and the potentially stale ones', async () => {
    const p = await project()
    const [fresh, old, marked] = [uniqueName('fresh'), uniqueName('old'), uniqueName('marked')]
    for (const name of [fresh, old, marked]) await createFlag(p, name)
    // A release flag is expected to live 40 days: this one is 60 days old.
    await ui.server.t.database.db.updateTable('features').set({ created_at: new Date(Date.now() - 60 * DAY) } as never).where('name', '=', old).execute()

    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Editor' } })
    const { page } = opened
    await page.goto(`${ui.server.origin}/projects/${p}/features/${old}`)
    await page.getByRole('heading', { level: 1, name: old }).waitFor()
    await page.getByText('Potentially stale', { exact: true }).waitFor()

    await page.goto(`${ui.server.origin}/projects/${p}/features/${marked}`)
    await page.getByRole('heading', { level: 1, name: marked }).waitFor()
    await page.getByRole('button', { name: 'Mark as stale' }).click()
    await page.getByRole('status').filter({ hasText: `${marked} marked stale` }).waitFor()
    await page.getByText('Stale', { exact: true }).waitFor()
    expect((await api('GET', `/api/admin/projects/${p}/features/${marked}`)).stale).toBe(true)
    await expectAccessible(page, 'a stale flag')

    await page.goto(`${ui.server.origin}/projects/${p}`)
    await page.getByText('3 flags', { exact: true }).waitFor()
    const rows = page.getByRole('list', { name: 'Flags' }).getByRole('listitem')
    const listed = async () => (await rows.getByRole('link').allTextContents()).sort()
    await page.getByLabel('Stale', { exact: true }).selectOption('stale')
    await page.getByText('Showing 1 of 3 flags', { exact: true }).waitFor()
    expect(await listed()).toEqual([marked])
    await rows.first().getByText('Stale', { exact: true }).waitFor()
    expect(new URL(page.url()).searchParams.get('stale')).toBe('stale')
    await expectAccessible(page, 'flag list of stale flags')

    await page.getByLabel('Stale', { exact: true }).selectOption('potentially-stale')
    await expect.poll(listed).toEqual([old])
    await rows.first().getByText('Potentially stale', { exact: true }).waitFor()
    await page.getByLabel('Stale', { exact: true }).selectOption('active')
    await expect.poll(listed).toEqual([fresh, old].sort())
    // The filter lives in the address: a reload asks the same search.
    await page.reload()
    await page.getByText('Showing 2 of 3 flags', { exact: true }).waitFor()
    expect(await page.getByLabel('Stale', { exact: true }).inputValue()).toBe('active')

    // Marked as not stale again, the flag leaves the stale ones.
    await page.goto(`${ui.server.origin}/projects/${p}/features/${marked}`)
    await page.getByRole('button', { name: 'Mark as not stale' }).click()
    await page.getByRole('status').filter({ hasText: `${marked} no longer marked stale` }).waitFor()
    expect((await api('GET', `/api/admin/projects/${p}/features/${marked}`)).stale).toBe(false)
    expectClean(opened)
    await opened.context.close()
  })
})
