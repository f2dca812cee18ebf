/**
 * A flag's links (to an issue, a dashboard) on its page, in Chromium: an Editor adds one and
 * removes it, an address that is not http(s) is refused at its field with nothing stored, and a
 * Viewer sees the links without the means to change them. Checked against what the API stores.
 */
import { describe, expect, it } from 'vitest'
import { auth, createFeature, json } from '../helpers/app.js'
import { expectAccessible, expectClean, openPage, useBrowserApp } from './browser.js'

const ui = useBrowserApp()

const links = async (name: string) =>
  json(await ui.server.t.app.inject({ method: 'GET', url: `/api/admin/projects/default/features/${name}`, headers: auth() })).links as { url: string; title: string | null }[]

describe('a flag\'s links', () => {
  it('an Editor adds a link with a title, follows its name, and removes it; a javascript: address is refused with nothing stored', async () => {
    const flag = await createFeature(ui.server.t.app)
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Editor' } })
    const { page } = opened
    opened.allow(400, `/api/admin/projects/default/features/${flag}/link`)
    await page.goto(`${ui.server.origin}/projects/default/features/${flag}`)
    const section = page.getByRole('region', { name: 'Links' })
    await section.getByText('No links.').waitFor()
    await section.getByLabel('Link address').fill('javascript:alert(1)')
    await section.getByRole('button', { name: 'Add link' }).click()
    await expect.poll(() => section.getByLabel('Link address').getAttribute('aria-invalid')).toBe('true')
    expect(await links(flag)).toEqual([])
    await section.getByLabel('Link address').fill('github.com/org/repo/issues/1')
    await section.getByLabel('Link title').fill('The launch issue')
    await section.getByRole('button', { name: 'Add link' }).click()
    const link = section.getByRole('link', { name: 'The launch issue' })
    await link.waitFor()
    expect(await link.getAttribute('href')).toBe('https://github.com/org/repo/issues/1')
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer')
    expect(await links(flag)).toEqual([expect.objectContaining({ url: 'https://github.com/org/repo/issues/1', title: 'The launch issue' })])
    await expectAccessible(page, 'a flag with a link')
    await section.getByRole('button', { name: 'Remove link The launch issue' }).click()
    await section.getByText('No links.').waitFor()
    expect(await links(flag)).toEqual([])
    expectClean(opened)
  })

  it('a Viewer sees the links, with no Add link and no Remove', async () => {
    const flag = await createFeature(ui.server.t.app)
    const added = await ui.server.t.app.inject({ method: 'POST', url: `/api/admin/projects/default/features/${flag}/link`, headers: auth(), payload: { url: 'https://example.com/dashboard' } })
    expect(added.statusCode).toBe(204)
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Viewer' } })
    const { page } = opened
    await page.goto(`${ui.server.origin}/projects/default/features/${flag}`)
    const section = page.getByRole('region', { name: 'Links' })
    await section.getByRole('link', { name: 'https://example.com/dashboard' }).waitFor()
    expect(await section.getByRole('button').count()).toBe(0)
    expect(await section.getByLabel('Link address').count()).toBe(0)
    expectClean(opened)
  })
})
