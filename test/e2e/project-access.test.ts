/**
 * A project's Access screen in Chromium: an Admin opens it from the project's page, gives a
 * Viewer and a group the Member role there, sees both, and removes the group; the API judges
 * what is stored after each step. The Viewer, whose switch was disabled and whose write was
 * refused before, then switches a flag of that project on. An Editor is not offered the screen.
 */
import { describe, expect, it } from 'vitest'
import { createFeature, uniqueName } from '../helpers/app.js'
import { apiOf, createPerson, expectAccessible, expectClean, openPage, useBrowserApp } from './browser.js'

const ui = useBrowserApp()

const api = apiOf(() => ui.server)

const userId = async (username: string) => (await api('GET', '/api/admin/user-admin')).body.users.find((u: any) => u.username === username).id as number

/** Who holds which roles in the project, as the API stores it. */
const stored = async (project: string) => {
  const { body } = await api('GET', `/api/admin/projects/${project}/access`)
  return { users: body.users.map((u: any) => [u.id, u.roles]), groups: body.groups.map((g: any) => [g.id, g.roles]) }
}

const enabledIn = async (project: string, flag: string, environment: string) =>
  (await api('GET', `/api/admin/projects/${project}/features/${flag}`)).body.environments.find((e: any) => e.name === environment).enabled as boolean

describe('project access', () => {
  it('an Admin gives a Viewer and a group the Member role in a project and removes the group; the Viewer then switches its flags', async () => {
    const project = uniqueName('shop')
    expect((await api('POST', '/api/admin/projects', { id: project, name: project })).status).toBe(201)
    for (const environment of ['development', 'production']) expect((await api('POST', `/api/admin/projects/${project}/environments`, { environment })).status).toBe(200)
    const flag = await createFeature(ui.server.t.app, project)
    const viewer = await createPerson(ui.server, 'Viewer')
    const viewerId = await userId(viewer.username)
    const someone = await createPerson(ui.server, 'Viewer')
    const groupName = uniqueName('checkout-team')
    const created = await api('POST', '/api/admin/groups', { name: groupName, mappingsSSO: ['okta-checkout'], users: [{ user: { id: await userId(someone.username) } }] })
    expect(created.status).toBe(201)
    const groupId = created.body.id as number

    // Before any role here, the Viewer's switch is disabled and the API refuses the write.
    const own = await openPage(ui.browser, ui.server)
    const login = await own.context.request.post(`${ui.server.origin}/auth/simple/login`, { data: { username: viewer.username, password: viewer.password } })
    expect(login.status()).toBe(200)
    await own.page.goto(`${ui.server.origin}/projects/${project}/features/${flag}`)
    const toggle = own.page.getByRole('switch', { name: 'Enabled in development' })
    await toggle.waitFor()
    expect(await toggle.isDisabled()).toBe(true)
    own.allow(403, `/api/admin/projects/${project}/`)
    const refused = await own.page.evaluate(async (url) => (await fetch(url, { method: 'POST' })).status, `/api/admin/projects/${project}/features/${flag}/environments/development/on`)
    expect(refused).toBe(403)
    expect(await enabledIn(project, flag, 'development')).toBe(false)

    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    const { page } = opened
    await page.goto(`${ui.server.origin}/projects/${project}`)
    await page.getByRole('link', { name: 'Access', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: `Access to ${project}` }).waitFor()
    expect(await page.title()).toBe(`Access to ${project} · Feature flags`)
    expect(new URL(page.url()).pathname).toBe(`/projects/${project}/access`)
    await page.getByText('Nobody has a role of their own in this project.').waitFor()
    await page.getByText('No group has a role in this project.').waitFor()
    await page.getByText('a Viewer who is a Member here switches this project’s flags').waitFor()
    await expectAccessible(page, 'project access')

    // A person deleted while the dialog is open: the refusal is shown in it, nothing is stored.
    const gone = await createPerson(ui.server, 'Viewer')
    const goneId = await userId(gone.username)
    await page.getByRole('button', { name: 'Add access' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add access' })
    await dialog.getByLabel('Person').selectOption({ label: `${gone.name} (${gone.username}), Viewer` })
    expect((await api('DELETE', `/api/admin/user-admin/${goneId}`)).status).toBe(200)
    opened.allow(404, `/api/admin/projects/${project}/users/${goneId}/roles`)
    await dialog.getByRole('button', { name: 'Add access' }).click()
    await dialog.getByRole('alert').getByText(`User ${goneId} does not exist`).waitFor()
    expect(await stored(project)).toEqual({ users: [], groups: [] })
    await expectAccessible(page, 'add access dialog with a refusal')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })

    // A person: the Viewer.
    await page.getByRole('button', { name: 'Add access' }).click()
    expect(await dialog.getByLabel('Role in this project').inputValue()).toBe('5')
    await dialog.getByLabel('Person').selectOption({ label: `${viewer.name} (${viewer.username}), Viewer` })
    await expectAccessible(page, 'add access dialog')
    await dialog.getByRole('button', { name: 'Add access' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByRole('status').getByText(`${viewer.name} is now Member in ${project}`).waitFor()
    expect(await stored(project)).toEqual({ users: [[viewerId, [5]]], groups: [] })
    const people = page.getByRole('region', { name: 'People' })
    const personRow = people.getByRole('row', { name: new RegExp(viewer.username) })
    for (const cell of [viewer.username, 'Member']) await personRow.getByRole('cell', { name: cell, exact: true }).waitFor()

    // A group; the Viewer, a Member already, is not offered again.
    await page.getByRole('button', { name: 'Add access' }).click()
    await dialog.getByText('1 person is already Member here and not listed.').waitFor()
    expect(await dialog.getByLabel('Person').locator('option', { hasText: viewer.username }).count()).toBe(0)
    await dialog.getByLabel('Give a role to').selectOption({ label: 'A group' })
    await dialog.getByLabel('Group').selectOption({ label: `${groupName} (1 member)` })
    await dialog.getByRole('button', { name: 'Add access' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByRole('status').getByText(`${groupName} is now Member in ${project}`).waitFor()
    expect(await stored(project)).toEqual({ users: [[viewerId, [5]]], groups: [[groupId, [5]]] })
    const groupRow = page.getByRole('region', { name: 'Groups' }).getByRole('row', { name: new RegExp(groupName) })
    for (const cell of ['1 member', 'okta-checkout', 'Member']) await groupRow.getByRole('cell', { name: cell, exact: true }).waitFor()
    await expectAccessible(page, 'project access with a person and a group')

    // Removing the group asks first, saying what its members lose.
    await page.getByRole('button', { name: `Remove ${groupName}` }).click()
    const confirm = page.getByRole('dialog', { name: `Remove group ${groupName} from ${project}?` })
    await confirm.getByText(`Its members lose the Member role this group gives them in ${project} at their next request`).waitFor()
    await confirm.getByRole('button', { name: 'Remove' }).click()
    await groupRow.waitFor({ state: 'detached' })
    await page.getByRole('status').getByText(`${groupName} no longer has a role in ${project}`).waitFor()
    expect(await stored(project)).toEqual({ users: [[viewerId, [5]]], groups: [] })
    await personRow.waitFor()
    expectClean(opened)
    await opened.context.close()

    // The Viewer, a Member now, switches the flag on in development from their own page.
    await own.page.reload()
    await expect.poll(() => toggle.isDisabled()).toBe(false)
    await toggle.click()
    await own.page.getByRole('status').filter({ hasText: `${flag} is on in development` }).waitFor()
    expect(await enabledIn(project, flag, 'development')).toBe(true)
    expect(await enabledIn(project, flag, 'production')).toBe(false)
    expectClean(own)
    await own.context.close()
  })

  it('is not offered to an Editor, who gets the not-allowed screen at its address', async () => {
    const opened = await openPage(ui.browser, ui.server, { as: { role: 'Editor' } })
    const { page } = opened
    await page.goto(`${ui.server.origin}/projects/default`)
    await page.getByRole('heading', { level: 1, name: 'Flags' }).waitFor()
    await page.getByRole('link', { name: 'Change requests' }).waitFor()
    expect(await page.getByRole('link', { name: 'Access', exact: true }).count()).toBe(0)
    await page.goto(`${ui.server.origin}/projects/default/access`)
    await page.getByRole('heading', { level: 1, name: 'Not for your role' }).waitFor()
    expect(await page.getByRole('button', { name: 'Add access' }).count()).toBe(0)
    await expectAccessible(page, 'project access, not allowed')
    expectClean(opened)
    await opened.context.close()
  })
})
