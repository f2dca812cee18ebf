/**
 * The links an Admin hands on, opened in Chromium by someone not signed in: an invitation to
 * set a first password, a reset link (used once), and a sign-up link that makes an account.
 * Each ends with the person signing in with what they chose.
 */
import { describe, expect, it } from 'vitest'
import { uniqueName } from '../helpers/app.js'
import { apiOf, expectAccessible, expectClean, type OpenPage, openPage, useBrowserApp } from './browser.js'

const ui = useBrowserApp()

const api = apiOf(() => ui.server)

/** Signs in through the sign-in screen the "Sign in" link leads to; true when the app opens. */
async function signInWith (opened: OpenPage, username: string, password: string) {
  const { page } = opened
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor()
  await page.getByLabel('Username').fill(username)
  await page.getByLabel('Password').fill(password)
  await page.keyboard.press('Enter')
  await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
}

describe('links handed on by an Admin', () => {
  it('an invitation sets a first password (typed twice), then the person signs in with it', async () => {
    const email = `${uniqueName('new')}@example.com`
    const created = await api('POST', '/api/admin/user-admin', { email, name: 'Newcomer', rootRole: 3 })
    expect(created.status).toBe(201)
    const link = new URL(created.body.inviteLink)
    const opened = await openPage(ui.browser, ui.server)
    opened.allow(401, '/api/admin/')
    const { page } = opened
    await page.goto(`${ui.server.origin}${link.pathname}${link.search}`)
    await page.getByRole('heading', { level: 1, name: 'Welcome: set your password' }).waitFor()
    await page.getByText('For Newcomer.').waitFor()
    await expectAccessible(page, 'set a first password')
    const password = 'a-long-Newcomer-pass-42!'
    await page.getByLabel('New password', { exact: true }).fill(password)
    await page.getByLabel('New password again').fill(`${password}x`)
    await page.getByRole('button', { name: 'Set password' }).click()
    await page.getByText('The two passwords differ').waitFor()
    await page.getByLabel('New password again').fill(password)
    await page.getByRole('button', { name: 'Set password' }).click()
    await page.getByText('Your password is set.').waitFor()
    await signInWith(opened, email, password)
    expectClean(opened)
  })

  it('a reset link works once: the second time it says so, and the password stays the one set', async () => {
    const username = uniqueName('reset')
    const first = 'the-first-Password-123!'
    expect((await api('POST', '/api/admin/user-admin', { username, password: first, rootRole: 3 })).status).toBe(201)
    const reset = await api('POST', '/api/admin/user-admin/reset-password', { id: username })
    expect(reset.status).toBe(200)
    const link = new URL(reset.body.resetPasswordUrl)
    const opened = await openPage(ui.browser, ui.server)
    opened.allow(401, '/api/admin/')
    opened.allow(401, '/auth/reset/validate')
    opened.allow(400, '/auth/reset/password')
    const { page } = opened
    await page.goto(`${ui.server.origin}${link.pathname}${link.search}`)
    await page.getByRole('heading', { level: 1, name: 'Set a new password' }).waitFor()
    // A password the rules refuse is refused at the field, with the rule.
    await page.getByLabel('New password', { exact: true }).fill('short')
    await page.getByLabel('New password again').fill('short')
    await page.getByRole('button', { name: 'Set password' }).click()
    await expect.poll(() => page.getByLabel('New password', { exact: true }).getAttribute('aria-invalid')).toBe('true')
    const second = 'the-second-Password-456!'
    await page.getByLabel('New password', { exact: true }).fill(second)
    await page.getByLabel('New password again').fill(second)
    await page.getByRole('button', { name: 'Set password' }).click()
    await page.getByText('Your password is set.').waitFor()
    // The same link again: it does not work, and nothing changes.
    await page.goto(`${ui.server.origin}${link.pathname}${link.search}`)
    await page.getByText('This link does not work any more.').waitFor()
    await expectAccessible(page, 'a used link')
    await signInWith(opened, username, second)
    expectClean(opened)
  })

  it('a sign-up link makes an account with the link\'s role', async () => {
    const token = await api('POST', '/api/admin/invite-link/tokens', { name: uniqueName('signup'), expiresAt: new Date(Date.now() + 86_400_000).toISOString() })
    expect(token.status).toBe(201)
    const link = new URL(token.body.url)
    const opened = await openPage(ui.browser, ui.server)
    opened.allow(401, '/api/admin/')
    const { page } = opened
    await page.goto(`${ui.server.origin}${link.pathname}${link.search}`)
    await page.getByRole('heading', { level: 1, name: 'Create your account' }).waitFor()
    await expectAccessible(page, 'sign up')
    const email = `${uniqueName('joined')}@example.com`
    const password = 'a-Joiner-password-789!'
    await page.getByLabel('Name').fill('Joiner')
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.getByText('Your account is ready.').waitFor()
    const users = await api('GET', '/api/admin/user-admin')
    expect(users.body.users).toContainEqual(expect.objectContaining({ email, name: 'Joiner', rootRole: 3 }))
    await signInWith(opened, email, password)
    expectClean(opened)
  })
})
