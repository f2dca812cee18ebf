/**
 * The Groups screen in Chromium: an Admin makes a group (a root role, the identity provider's
 * group names, a member), changes it and deletes it, the server's refusals shown at the field
 * they concern; an Editor is not offered the screen. The API judges what is stored after each
 * step, nothing after a refusal.
 */
import type { Locator, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { uniqueName } from '../helpers/app.js'
import { apiOf, createPerson, expectAccessible, expectClean, openPage, useBrowserApp } from './browser.js'

const ui = useBrowserApp()

const api = apiOf(() => ui.server)

const storedGroups = async () => (await api('GET', '/api/admin/groups')).body.groups as any[]

/** What the API stores of a group, as the screen sets it. */
const stored = async (name: string) => {
  const group = (await storedGroups()).find((g) => g.name === name)
  return group && { description: group.description, rootRole: group.rootRole, mappingsSSO: group.mappingsSSO, members: group.users.map((m: any) => m.user.id) }
}

/** The messages shown at a field: what its control's accessible description points to. */
async function messagesAt (page: Page, control: Locator) {
  const ids = ((await control.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean)
  const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).innerText()))
  return texts.join(' ')
}

describe('groups', () => {
  it('an Admin creates a group with a role, SSO groups and a member, changes it and deletes it; refusals show at the name and store nothing', async () => {
    const member = await createPerson(ui.server, 'Viewer')
    const memberId = (await api('GET', '/api/admin/user-admin')).body.users.find((u: any) => u.username === member.username).id
    const taken = uniqueName('taken')
    expect((await api('POST', '/api/admin/groups', { name: taken })).status).toBe(201)

    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(`${ui.server.origin}/projects`)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Groups' }).click()
    await page.getByRole('heading', { level: 1, name: 'Groups' }).waitFor()
    expect(await page.title()).toBe('Groups · Feature flags')
    await page.getByRole('row', { name: new RegExp(taken) }).waitFor()
    // The hint says group syncing is off (single sign-on is not set up), and leads to where it is turned on.
    await page.getByText('Group syncing is off in').waitFor()
    await page.getByRole('link', { name: 'Single sign-on' }).last().waitFor()
    await expectAccessible(page, 'groups')

    await page.getByRole('button', { name: 'New group' }).click()
    const dialog = page.getByRole('dialog', { name: 'New group' })
    const name = dialog.getByLabel('Name', { exact: true })
    // The dialog opens at its first field.
    await expect.poll(() => name.evaluate((e) => e === (globalThis as any).document.activeElement)).toBe(true)
    await dialog.getByLabel('Description').fill('The engineers')
    await dialog.getByLabel('Root role').selectOption('Editor')
    await dialog.getByLabel('SSO group name').fill('okta-eng')
    await dialog.getByRole('button', { name: 'Add SSO group' }).click()
    // Enter adds the name typed (it does not send the form).
    await dialog.getByLabel('SSO group name').fill('okta-ops')
    await dialog.getByLabel('SSO group name').press('Enter')
    await dialog.getByRole('button', { name: 'Remove SSO group okta-ops' }).waitFor()
    expect(await dialog.getByLabel('SSO group name').inputValue()).toBe('')
    await dialog.getByLabel('Find people').fill(member.username)
    expect(await dialog.getByRole('checkbox').count()).toBe(1)
    await dialog.getByRole('checkbox', { name: new RegExp(member.username) }).check()
    await dialog.getByText(`1 member: ${member.name}.`).waitFor()
    await expectAccessible(page, 'new group dialog')

    // Refused twice, by the schema (too long) and by the name taken: each message at the name, nothing stored.
    opened.allow(400, '/api/admin/groups')
    opened.allow(409, '/api/admin/groups')
    const before = await storedGroups()
    await name.fill('g'.repeat(101))
    await dialog.getByRole('button', { name: 'Save' }).click()
    await expect.poll(() => messagesAt(page, name)).toMatch(/100 characters/)
    expect(await name.getAttribute('aria-invalid')).toBe('true')
    await dialog.getByRole('alert').getByText('Please correct the marked fields.').waitFor()
    expect(await storedGroups()).toEqual(before)
    await name.fill(taken)
    await dialog.getByRole('button', { name: 'Save' }).click()
    await expect.poll(() => messagesAt(page, name)).toBe('Group name already exists')
    await dialog.getByRole('alert').getByText('Please correct the marked fields.').waitFor()
    expect(await storedGroups()).toEqual(before)
    await expectAccessible(page, 'new group dialog with a refusal')

    const group = uniqueName('engineers')
    await name.fill(group)
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByRole('status').getByText(`Group ${group} created`).waitFor()
    expect(await stored(group)).toEqual({ description: 'The engineers', rootRole: 2, mappingsSSO: ['okta-eng', 'okta-ops'], members: [memberId] })
    const row = page.getByRole('row', { name: new RegExp(group) })
    for (const cell of ['The engineers', 'Editor', 'okta-eng, okta-ops', '1 member']) await row.getByRole('cell', { name: cell, exact: true }).waitFor()

    await page.getByRole('button', { name: `Edit ${group}` }).click()
    const edit = page.getByRole('dialog', { name: `Edit group ${group}` })
    expect(await edit.getByLabel('Name', { exact: true }).inputValue()).toBe(group)
    expect(await edit.getByLabel('Root role').inputValue()).toBe('2')
    expect(await edit.getByRole('checkbox', { name: new RegExp(member.username) }).isChecked()).toBe(true)
    await edit.getByLabel('Root role').selectOption('Viewer')
    await edit.getByRole('button', { name: 'Remove SSO group okta-ops' }).click()
    // The focus goes where the next name is typed, not to the page.
    await expect.poll(() => edit.getByLabel('SSO group name').evaluate((e) => e === (globalThis as any).document.activeElement)).toBe(true)
    await edit.getByRole('button', { name: 'Save' }).click()
    await edit.waitFor({ state: 'hidden' })
    await page.getByRole('status').getByText(`Group ${group} saved`).waitFor()
    expect(await stored(group)).toEqual({ description: 'The engineers', rootRole: 3, mappingsSSO: ['okta-eng'], members: [memberId] })
    await row.getByRole('cell', { name: 'Viewer', exact: true }).waitFor()
    await row.getByRole('cell', { name: 'okta-eng', exact: true }).waitFor()

    await page.getByRole('button', { name: `Delete ${group}` }).click()
    const confirm = page.getByRole('dialog', { name: `Delete group ${group}?` })
    await confirm.getByText('Its member loses the roles it gives at their next request.').waitFor()
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await row.waitFor({ state: 'detached' })
    await page.getByRole('status').getByText(`Group ${group} deleted`).waitFor()
    expect(await stored(group)).toBeUndefined()
    expect((await storedGroups()).map((g) => g.name)).toEqual([taken])
    expectClean(opened)
    await opened.context.close()
  })

  it('loads by its address and is not offered to an Editor, who gets the not-allowed screen', async () => {
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Editor' } })
    const { page } = opened
    await page.goto(`${ui.server.origin}/groups`)
    await page.getByRole('heading', { level: 1, name: 'Not for your role' }).waitFor()
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Groups' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'New group' }).count()).toBe(0)
    await expectAccessible(page, 'groups, not allowed')
    expectClean(opened)
    await opened.context.close()
  })
})
