/**
 * Every ID token the server must refuse, each from a provider that forges exactly that token
 * (jose on loopback): wrong audience, expired, bad nonce, wrong issuer, another client's (azp),
 * issued in the future, alg none, an HMAC keyed with the public key, another algorithm than the
 * configured one, an unknown key, a tampered signature, no or an unverified email, another
 * email domain. Keys rotate: the provider's keys are fetched again for a key not seen, at most
 * once a minute. A provider that does not answer is a 502, never a 500. Each refusal opens no
 * session and creates no user.
 */
import * as jose from 'jose'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { auth, buildTestApp, expectProblem, type TestApp, useTestApp } from '../../helpers/app.js'
import { pruneLogins } from '../../../src/sso/login-pruner.js'
import { CookieBrowser, type ForgedToken, startForgingProvider, toCallback } from '../../helpers/oidc.js'
import { listen } from '../../helpers/people.js'

const t = useTestApp()
let base = ''
let idp: Awaited<ReturnType<typeof startForgingProvider>>

beforeAll(async () => {
  base = await listen(t)
  idp = await startForgingProvider()
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/auth/oidc/settings',
    headers: auth(),
    payload: { enabled: true, discoverUrl: idp.discoverUrl, clientId: idp.clientId, secret: idp.clientSecret, autoCreate: true, emailDomains: 'example.com, example.org', enablePkce: true },
  })
  expect(res.statusCode, res.body).toBe(200)
})
afterAll(() => idp?.close())
afterEach(() => {
  idp.state.next = {}
})

const count = async (table: 'sessions' | 'users') =>
  Number((await t.database.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n)

/** A sign-in whose provider answers the token `forged`; returns the callback's answer. */
async function attempt (forged: ForgedToken = {}) {
  idp.state.next = forged
  const browser = new CookieBrowser()
  const callback = await toCallback(browser, base, 'any')
  return browser.request(callback)
}

/** A refusal: its status, name and a detail matching `why`; no session, no user. */
async function refused (forged: ForgedToken, why: RegExp, status = 401, name = 'SignInError') {
  const before = [await count('sessions'), await count('users')]
  const res = await attempt(forged)
  const body = await res.json() as any
  expect(res.status, JSON.stringify(body)).toBe(status)
  expect(body.name).toBe(name)
  expect(body.detail).toMatch(why)
  expect(res.headers.getSetCookie()).not.toContainEqual(expect.stringMatching(/^unleash-session=[\w-]/))
  expect([await count('sessions'), await count('users')]).toEqual(before)
  return body
}

const now = () => Math.floor(Date.now() / 1000)

describe('an ID token that passes every check', () => {
  it('signs the person in, with the name the token gives', async () => {
    const res = await attempt({ claims: { email: 'turing@example.org', name: 'Alan Turing' } })
    expect(res.status).toBe(302)
    const user = await t.database.db.selectFrom('users').select(['email', 'name']).where('email', '=', 'turing@example.org').executeTakeFirstOrThrow()
    expect(user).toEqual({ email: 'turing@example.org', name: 'Alan Turing' })
    // PKCE: the provider got a challenge, and the verifier matched it at the token endpoint.
    expect(idp.state.authorizations.at(-1)!.get('code_challenge_method')).toBe('S256')
  })

  it('within the clock skew (expired 10 s ago, issued 10 s ahead) is accepted', async () => {
    expect((await attempt({ claims: { exp: now() - 10 } })).status).toBe(302)
    expect((await attempt({ claims: { iat: now() + 10 } })).status).toBe(302)
  })
})

describe('an ID token is refused when', () => {
  it('its audience is another client', () => refused({ claims: { aud: 'another-client' } }, /"aud" \(audience\)/))
  it('its audience names another client beside us, without azp', () => refused({ claims: { aud: [idp.clientId, 'another-client'] } }, /additional untrusted audiences/))
  it('it was issued to another client (azp)', () => refused({ claims: { aud: [idp.clientId], azp: 'another-client' } }, /issued to another client \(azp\)/))
  it('it expired (beyond 30 s of skew)', () => refused({ claims: { exp: now() - 120 } }, /"exp" \(expiration time\)/))
  it('it says it was issued in the future', () => refused({ claims: { iat: now() + 600 } }, /issued in the future \(iat\)/))
  it('its nonce is not the login\'s', () => refused({ claims: { nonce: 'not-the-nonce' } }, /"nonce"/))
  it('it has no nonce', () => refused({ claims: { nonce: undefined } }, /"nonce"/))
  it('its issuer is another', () => refused({ claims: { iss: 'http://127.0.0.1:1/evil' } }, /"iss" \(issuer\)/))
  it('it has no subject', () => refused({ claims: { sub: undefined } }, /"sub"/))

  it('it is not signed (alg none)', () => refused({
    raw: (claims) => `${jose.base64url.encode(JSON.stringify({ alg: 'none' }))}.${jose.base64url.encode(JSON.stringify(claims))}.`,
  }, /"alg"/))

  it('it is an HMAC keyed with the provider\'s public key (HS256)', () => refused({
    raw: async (claims) => new jose.SignJWT(claims as jose.JWTPayload)
      .setProtectedHeader({ alg: 'HS256', kid: 'key-1' })
      .sign(new TextEncoder().encode(JSON.stringify(idp.publicJwk('key-1')))),
  }, /"alg"/))

  it('it is signed with another algorithm than the configured one (RS384 for RS256), even by a published key', async () => {
    await idp.addKey('rs384-key', { alg: 'RS384', use: false })
    await refused({ kid: 'rs384-key' }, /"alg"/)
  })

  it('its signature does not match (a claim changed after signing)', () => refused({
    raw: async (claims) => {
      const token = await new jose.SignJWT(claims as jose.JWTPayload).setProtectedHeader({ alg: 'RS256', kid: 'key-1' }).sign(idp.privateKey('key-1'))
      const [header, , signature] = token.split('.')
      return `${header}.${jose.base64url.encode(JSON.stringify({ ...claims, email: 'admin@example.com' }))}.${signature}`
    },
  }, /signature/))

  it('it holds no email', () => refused({ claims: { email: undefined } }, /holds no email address/))
  it('its email is not verified', () => refused({ claims: { email_verified: false } }, /does not say that ada@example.com is verified/))
  it('it does not say whether the email is verified', () => refused({ claims: { email_verified: undefined } }, /is verified/))
  it('its email is in another domain (403)', () => refused({ claims: { email: 'eve@evil.example' } }, /eve@evil.example is not in an email domain allowed to sign in/, 403, 'PermissionError'))
  it('its email domain only ends like an allowed one', () => refused({ claims: { email: 'eve@notexample.com' } }, /not in an email domain/, 403, 'PermissionError'))

  it('a browser is sent to the sign-in screen with the reason, not the problem body: refused, or not allowed', async () => {
    const html = { accept: 'text/html,*/*;q=0.8' }
    for (const [forged, reason] of [[{ claims: { nonce: 'not-the-nonce' } }, 'refused'], [{ claims: { email: 'eve@evil.example' } }, 'not-allowed']] as const) {
      const before = [await count('sessions'), await count('users')]
      idp.state.next = forged
      const browser = new CookieBrowser()
      const res = await browser.request(await toCallback(browser, base, 'any'), { headers: html })
      expect(res.status).toBe(303)
      expect(res.headers.get('location')).toBe(`/login?sso=${reason}`)
      expect(res.headers.getSetCookie()).not.toContainEqual(expect.stringMatching(/^unleash-session=[\w-]/))
      expect([await count('sessions'), await count('users')]).toEqual(before)
    }
    // A callback with no login behind it (a forged link someone was sent): refused, in words too.
    const stray = await fetch(`${base}/auth/oidc/callback?code=x&state=y`, { headers: html, redirect: 'manual' })
    expect(stray.status).toBe(303)
    expect(stray.headers.get('location')).toBe('/login?sso=refused')
  })
})

describe('the provider\'s keys', () => {
  // This process's clock (the server's and the provider's) stands still here, and moves ahead
  // when a test says so: openid-client counts the age of the keys it fetched by it.
  let ahead = 0
  const at = () => vi.setSystemTime(performance.timeOrigin + performance.now() + ahead)
  const later = (seconds: number) => {
    ahead += seconds * 1000
    at()
  }
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] })
    at()
  })
  afterAll(() => { vi.useRealTimers() })

  it('an unknown key is refused; the keys are fetched again for it at most once a minute', async () => {
    expect((await attempt()).status).toBe(302)
    const fetched = idp.state.jwksFetches
    await idp.addKey('never-published', { publish: false, use: false })
    // Fetched less than a minute ago: not fetched again.
    await refused({ kid: 'never-published' }, /no applicable keys found/)
    expect(idp.state.jwksFetches).toBe(fetched)
    later(61)
    await refused({ kid: 'never-published' }, /no applicable keys found/)
    expect(idp.state.jwksFetches).toBe(fetched + 1)
    await refused({ kid: 'never-published' }, /no applicable keys found/)
    expect(idp.state.jwksFetches).toBe(fetched + 1)
  })

  it('rotated keys: a token signed with a key published since is accepted once the keys are fetched again', async () => {
    expect((await attempt()).status).toBe(302)
    const fetched = idp.state.jwksFetches
    await idp.addKey('key-2')
    // The cached keys are less than a minute old and lack key-2: refused, nothing fetched.
    await refused({}, /no applicable keys found/)
    expect(idp.state.jwksFetches).toBe(fetched)
    later(61)
    expect((await attempt()).status).toBe(302)
    expect(idp.state.jwksFetches).toBe(fetched + 1)
    // The old key's tokens still pass while it is published.
    expect((await attempt({ kid: 'key-1' })).status).toBe(302)
    expect(idp.state.jwksFetches).toBe(fetched + 1)
  })
})

describe('logins under way', () => {
  it('live ten minutes: a callback after that is refused', async () => {
    const browser = new CookieBrowser()
    const callback = await toCallback(browser, base, 'any')
    await t.database.db.updateTable('oidc_logins').set({ expires_at: new Date(Date.now() - 1000) }).execute()
    const sessions = await count('sessions')
    const res = await browser.request(callback)
    expect(res.status).toBe(401)
    expect((await res.json() as any).detail).toBe('This sign-in was used already, or took longer than 10 minutes; start again')
    expect(await count('sessions')).toBe(sessions)
  })

  it('a browser starting again replaces its unfinished login; at most 30 are under way per address (429), and expired ones are pruned', async () => {
    const db = t.database.db
    await db.deleteFrom('oidc_logins').execute()
    const browser = new CookieBrowser()
    for (let i = 0; i < 3; i++) expect((await browser.request(`${base}/auth/oidc/login`)).status).toBe(302)
    expect(await db.selectFrom('oidc_logins').selectAll().execute()).toHaveLength(1)
    for (let i = 1; i < 30; i++) expect((await t.app.inject({ method: 'GET', url: '/auth/oidc/login' })).statusCode).toBe(302)
    const over = await t.app.inject({ method: 'GET', url: '/auth/oidc/login' })
    expect(expectProblem(over, 429, 'TooManyRequestsError').detail).toBe('Too many sign-ins under way; try again in a minute')
    expect(over.headers['retry-after']).toBe('60')
    expect(await db.selectFrom('oidc_logins').selectAll().execute()).toHaveLength(30)
    // Ten of them expire: the pruner removes those, and room is made.
    const ten = (await db.selectFrom('oidc_logins').select('binding_hash').limit(10).execute()).map((r) => r.binding_hash)
    await db.updateTable('oidc_logins').set({ expires_at: new Date(Date.now() - 1000) }).where('binding_hash', 'in', ten).execute()
    expect(await pruneLogins(db)).toBe(10)
    expect(await db.selectFrom('oidc_logins').selectAll().execute()).toHaveLength(20)
    expect((await t.app.inject({ method: 'GET', url: '/auth/oidc/login' })).statusCode).toBe(302)
    await db.deleteFrom('oidc_logins').execute()
  })
})

describe('a provider that does not answer', () => {
  let other: TestApp
  let otherUrl = ''
  const otherBase = () => otherUrl
  afterAll(() => other?.close())
  const save = (discoverUrl: string, provider: { clientId: string; clientSecret: string }) =>
    other.app.inject({ method: 'POST', url: '/api/admin/auth/oidc/settings', headers: auth(), payload: { enabled: true, discoverUrl, clientId: provider.clientId, secret: provider.clientSecret, autoCreate: true } })

  it('is a 502 naming the problem at login and at the callback, never a 500; nothing is stored', async () => {
    other = await buildTestApp()
    otherUrl = await listen(other)
    // Up when the settings are saved, down at the first login (nothing discovered yet).
    const gone = await startForgingProvider()
    expect((await save(gone.discoverUrl, gone)).statusCode).toBe(200)
    await gone.close()
    const login = await other.app.inject({ method: 'GET', url: '/auth/oidc/login' })
    const body = expectProblem(login, 502, 'IdentityProviderError')
    expect(body.detail).toBe(`The identity provider's discovery document (${gone.discoverUrl}) could not be reached (no answer); try again later, or sign in with a password`)
    expect(await other.database.db.selectFrom('oidc_logins').selectAll().execute()).toEqual([])
    // Up at the login, down when the browser comes back: the code cannot be exchanged.
    const late = await startForgingProvider()
    expect((await save(late.discoverUrl, late)).statusCode).toBe(200)
    const browser = new CookieBrowser()
    const callback = await toCallback(browser, otherBase(), 'any')
    await late.close()
    const back = await browser.request(callback)
    expect(back.status).toBe(502)
    expect(await back.json()).toMatchObject({ name: 'IdentityProviderError', detail: 'The identity provider did not answer; try again later' })
    expect(await other.database.db.selectFrom('sessions').selectAll().execute()).toEqual([])
  })

  it('sends a browser to the sign-in screen saying so in words, at login and at the callback; JSON clients keep the problem body', async () => {
    const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }
    const gone = await startForgingProvider()
    expect((await save(gone.discoverUrl, gone)).statusCode).toBe(200)
    await gone.close()
    const login = await other.app.inject({ method: 'GET', url: '/auth/oidc/login', headers: html })
    expect(login.statusCode, login.body).toBe(303)
    expect(login.headers.location).toBe('/login?sso=unavailable')
    expect(login.headers['cache-control']).toBe('no-store')
    expect(expectProblem(await other.app.inject({ method: 'GET', url: '/auth/oidc/login', headers: { accept: 'application/json' } }), 502, 'IdentityProviderError')).toBeTruthy()

    const late = await startForgingProvider()
    expect((await save(late.discoverUrl, late)).statusCode).toBe(200)
    const browser = new CookieBrowser()
    const callback = await toCallback(browser, otherBase(), 'any')
    await late.close()
    const back = await browser.request(callback, { headers: html })
    expect(back.status).toBe(303)
    expect(back.headers.get('location')).toBe('/login?sso=unavailable')
    // The login cookie is cleared all the same: a login is used once.
    expect(back.headers.getSetCookie()).toContainEqual(expect.stringMatching(/^unleash-oidc-login=;.*Expires=Thu, 01 Jan 1970/))
    expect(await other.database.db.selectFrom('sessions').selectAll().execute()).toEqual([])
  })
})
