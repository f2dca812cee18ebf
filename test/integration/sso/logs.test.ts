/**
 * No secret in any log line: the whole of single sign-on (settings saved, logins that succeed
 * and fail, a replay, single sign-out) with the log at its most detailed, read back line by
 * line for the client secret, codes, states, nonces, PKCE verifiers, ID and access tokens and
 * cookie values. Discovery on plain http is logged as a warning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App } from '../../../src/app.js'
import { auth, buildLoggedApp } from '../../helpers/app.js'
import { CookieBrowser, startForgingProvider, toCallback } from '../../helpers/oidc.js'

let logged: Awaited<ReturnType<typeof buildLoggedApp>>
let lines: string[] = []
let app: App
let base = ''
let idp: Awaited<ReturnType<typeof startForgingProvider>>

beforeAll(async () => {
  logged = await buildLoggedApp()
  ;({ app, lines } = logged)
  await app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  idp = await startForgingProvider({ clientSecret: 'the-client-secret-never-logged-1234' })
})
afterAll(async () => {
  await logged?.close()
  await idp?.close()
})

describe('the log', () => {
  it('holds no secret, code, state, nonce, verifier, token or cookie, and warns of discovery on plain http', async () => {
    const secrets: string[] = [idp.clientSecret]
    const saved = await app.inject({
      method: 'POST',
      url: '/api/admin/auth/oidc/settings',
      headers: auth(),
      payload: { enabled: true, discoverUrl: idp.discoverUrl, clientId: idp.clientId, secret: idp.clientSecret, autoCreate: true, enablePkce: true, enableSingleSignOut: true },
    })
    expect(saved.statusCode).toBe(200)

    const collect = async (browser: CookieBrowser, callback: string) => {
      const query = new URL(callback).searchParams
      secrets.push(query.get('code')!, query.get('state')!, browser.cookie('127.0.0.1', 'unleash-oidc-login')!)
      const logins = await logged.database.db.selectFrom('oidc_logins').select(['nonce', 'code_verifier']).execute()
      for (const login of logins) secrets.push(login.nonce, login.code_verifier!)
    }
    // A login that succeeds, is replayed, and logs out at the provider.
    const browser = new CookieBrowser()
    const callback = await toCallback(browser, base, 'any')
    await collect(browser, callback)
    const binding = browser.cookie('127.0.0.1', 'unleash-oidc-login')!
    expect((await browser.request(callback)).status).toBe(302)
    secrets.push(browser.cookie('127.0.0.1', 'unleash-session')!)
    const replay = new CookieBrowser()
    replay.setCookie('127.0.0.1', 'unleash-oidc-login', binding)
    expect((await replay.request(callback)).status).toBe(401)
    expect((await browser.request(`${base}/logout`, { method: 'POST' })).status).toBe(303)
    // A login refused for its ID token.
    idp.state.next = { claims: { nonce: 'a-nonce-that-is-wrong' } }
    const refused = new CookieBrowser()
    const refusedCallback = await toCallback(refused, base, 'any')
    await collect(refused, refusedCallback)
    expect((await refused.request(refusedCallback)).status).toBe(401)
    idp.state.next = {}
    secrets.push(...idp.state.issued)

    expect(lines.length).toBeGreaterThan(10)
    expect(secrets.filter((s) => s.length < 16)).toEqual([])
    const leaks = lines.flatMap((line) => secrets.filter((s) => line.includes(s)).map((s) => `${s.slice(0, 8)}… in ${line.slice(0, 200)}`))
    expect(leaks).toEqual([])
    const callbackLines = lines.map((l) => JSON.parse(l)).filter((l) => String(l.url).startsWith('/auth/oidc/callback'))
    expect(callbackLines.length).toBeGreaterThan(2)
    expect(callbackLines.every((l) => l.url === '/auth/oidc/callback?[redacted]')).toBe(true)
    const warning = lines.map((l) => JSON.parse(l)).find((l) => /plain http/.test(String(l.msg)))
    expect(warning).toMatchObject({ level: 40, discoverUrl: idp.discoverUrl })
  })
})
