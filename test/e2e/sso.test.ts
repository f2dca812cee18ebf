/**
 * Single sign-on as people live it, in Chromium: an Admin sets up OpenID Connect on the Single
 * sign-on screen, then someone new signs in through the sign-in screen's button at oidc-provider
 * (OpenID Certified, on loopback), lands where they were going with the role the settings give,
 * and signs out at the provider too. Checked against what the API then stores.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auth, json } from '../helpers/app.js'
import { SIGN_IN_PROBLEMS } from '../../src/vocabulary/oidc.js'
import { type Account, CLIENT_ID, CLIENT_SECRET, startOidcProvider } from '../helpers/oidc.js'
import { expectAccessible, expectClean, launch, openPage, type Server, startServer } from './browser.js'

let server: Server
let browser: Browser
let idp: Awaited<ReturnType<typeof startOidcProvider>>
const accounts = new Map<string, Account>([
  ['grace', { email: 'grace@example.com', email_verified: true, name: 'Grace Hopper' }],
])

beforeAll(async () => {
  server = await startServer()
  idp = await startOidcProvider({ redirectUri: `${server.origin}/auth/oidc/callback`, postLogoutRedirectUri: `${server.origin}/signed-out`, accounts })
  browser = await launch()
})

afterAll(async () => {
  await browser?.close()
  await idp?.close()
  await server?.close()
})

const api = async (url: string) => {
  const res = await server.t.app.inject({ method: 'GET', url, headers: auth() })
  return { status: res.statusCode, body: json(res) }
}

describe('single sign-on', () => {
  it('an Admin turns it on; a new person signs in with the button, lands on the page they opened as an Editor, and signs out at the provider too', async () => {
    // The Admin's settings, on the screen.
    const admin = await openPage(browser, server, { as: { role: 'Admin' } })
    await admin.page.goto(`${server.origin}/`)
    await admin.page.getByRole('link', { name: 'Single sign-on' }).click()
    await admin.page.getByRole('heading', { level: 1, name: 'Single sign-on' }).waitFor()
    await admin.page.getByLabel('Discovery URL').fill(idp.discoverUrl)
    await admin.page.getByLabel('Client ID').fill(CLIENT_ID)
    await admin.page.getByLabel('Client secret').fill(CLIENT_SECRET)
    await admin.page.getByLabel('Sign in with OpenID Connect').check()
    await admin.page.getByLabel('Create people at their first sign-in').check()
    await admin.page.getByLabel('Role of people created at sign-in').selectOption('Editor')
    await admin.page.getByLabel('Sign out at the provider too').check()
    await expectAccessible(admin.page, 'single sign-on settings')
    await admin.page.getByRole('button', { name: 'Save single sign-on settings' }).click()
    await admin.page.getByText('Single sign-on settings saved').waitFor()
    // The secret typed is gone from the screen; the screen says one is stored.
    await expect.poll(() => admin.page.getByLabel('Client secret').inputValue()).toBe('')
    await admin.page.getByText('A secret is stored; leave this empty to keep it').waitFor()
    expect(await admin.page.content()).not.toContain(CLIENT_SECRET)
    const saved = await api('/api/admin/auth/oidc/settings')
    expect(saved.body).toMatchObject({ enabled: true, discoverUrl: idp.discoverUrl, clientId: CLIENT_ID, secret: '********', autoCreate: true, defaultRootRole: 'Editor', enableSingleSignOut: true })
    expectClean(admin)
    await admin.context.close()

    // Someone new opens a project's address, signed out.
    const person = await openPage(browser, server, { alsoOrigins: [idp.base] })
    const { page } = person
    person.allow(401, '/api/admin/')
    await page.goto(`${server.origin}/projects/default`)
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor()
    await expectAccessible(page, 'sign in with single sign-on')
    await page.getByRole('button', { name: 'Sign in with OpenID Connect' }).click()
    // The provider's own login page.
    await page.waitForURL((url) => url.origin === idp.base)
    await page.locator('input[name=login]').fill('grace')
    await page.locator('input[name=password]').fill('any password')
    await page.locator('button[type=submit]').click()
    await page.waitForURL((url) => url.origin === server.origin && url.pathname === '/projects/default')
    // Only openid and email are asked for: the person is known by their email.
    const account = page.locator('summary', { hasText: 'grace@example.com' })
    await expect.poll(() => account.textContent()).toContain('Editor')

    // Stored: a user for that verified email, with the role the settings give.
    const users = await api('/api/admin/user-admin')
    expect(users.body.users).toContainEqual(expect.objectContaining({ email: 'grace@example.com', rootRole: 2 }))

    // Signing out ends the session here and at the provider, then lands on the signed-out page.
    await account.click()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL((url) => url.origin === idp.base)
    await page.locator('button[type=submit], button[name=logout]').first().click()
    await page.getByRole('heading', { level: 1, name: 'You are signed out' }).waitFor()
    const after = await person.context.request.get(`${server.origin}/api/admin/user`)
    expect(after.status()).toBe(401)
    // oidc-provider's development login page asks for a web font, refused as anything leaving
    // the machine is; nothing else went wrong, on our pages or the provider's.
    const theirFont = (entry: string) => entry.includes('https://fonts.googleapis.com/')
    expect(person.trouble.failed.filter((e) => !theirFont(e))).toEqual([])
    expect(person.trouble.offsite.filter((e) => !theirFont(e))).toEqual([])
    expect(person.trouble.errors).toEqual([])
  })

  it('a sign-in that cannot complete lands on the sign-in screen saying why in words, with the way to try again', async () => {
    const person = await openPage(browser, server)
    const { page } = person
    person.allow(401, '/api/admin/')
    // A callback this browser started no login for (a link someone was sent, or a login too old).
    await page.goto(`${server.origin}/auth/oidc/callback?code=made-up&state=made-up`)
    await page.waitForURL((url) => url.pathname === '/login')
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor()
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(SIGN_IN_PROBLEMS.refused)
    await expectAccessible(page, 'sign-in refused')
    // Trying again starts from the beginning, not from the refusal.
    expect(await page.getByRole('button', { name: 'Sign in with OpenID Connect' }).getAttribute('href')).toBe('/auth/oidc/login?redirect=%2F')
    // A reason the server does not give shows nothing: the page says only what the server's list says.
    await page.goto(`${server.origin}/login?sso=%3Cb%3Eyour-account-is-locked%3C%2Fb%3E`)
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor()
    expect(await page.getByRole('alert').count()).toBe(0)
    expectClean(person)
  })
})
