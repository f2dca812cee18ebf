/**
 * Attacks on people, held on a listening server: guessing passwords (per account, unknown
 * names too, and more loosely per source address, counted in the database for every instance),
 * telling users apart by answer or time, cross-site requests riding the session cookie, and
 * secrets in answers or logs.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../../src/app.js'
import { createDatabase } from '../../../src/db/database.js'
import { auth, buildLoggedApp, buildTestApp, json, type TestApp, testConfig, uniqueName } from '../../helpers/app.js'
import { Browser, createUser, listen, PASSWORD, signedIn } from '../../helpers/people.js'
import { databaseFingerprint } from '../../helpers/state.js'

const loginFrom = (base: string, username: string, password: string, address?: string) =>
  fetch(`${base}/auth/simple/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(address && { 'x-forwarded-for': address }) },
    body: JSON.stringify({ username, password }),
  })

describe('guessing passwords', () => {
  let t: TestApp
  let base = ''
  beforeAll(async () => {
    t = await buildTestApp({ TRUST_PROXY: 'true', LOGIN_MAX_FAILURES_PER_ACCOUNT: '3', LOGIN_MAX_FAILURES_PER_ADDRESS: '8', LOGIN_FAILURE_WINDOW_MS: '4000' })
    base = await listen(t)
  })
  afterAll(() => t.close())

  it('an account gets 3 guesses a window, known or not: then 429 with Retry-After, even with the right password', async () => {
    const { login } = await createUser(t, 'Viewer')
    const unknown = uniqueName('ghost')
    for (const name of [login, unknown]) {
      const statuses: number[] = []
      // From a new address each time: the account's limit holds whatever the address.
      for (let i = 0; i < 3; i++) statuses.push((await loginFrom(base, name, 'wrong-password-1', `10.1.0.${i}`)).status)
      const blocked = await loginFrom(base, name, name === login ? PASSWORD : 'wrong-password-1', '10.1.0.99')
      expect([...statuses, blocked.status]).toEqual([401, 401, 401, 429])
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(Number(blocked.headers.get('retry-after'))).toBeLessThanOrEqual(4)
      expect((await blocked.json() as any).name).toBe('TooManyRequestsError')
    }
    // Another account from the same addresses is not locked out.
    const other = await createUser(t, 'Viewer')
    expect((await loginFrom(base, other.login, PASSWORD, '10.1.0.1')).status).toBe(200)
    // After the window, the right password works again.
    await sleep(4200)
    expect((await loginFrom(base, login, PASSWORD, '10.1.0.5')).status).toBe(200)
  })

  it('an address gets 8 failures a window over any names (an IPv6 /64 counts as one); other addresses are not affected', async () => {
    const { login } = await createUser(t, 'Viewer')
    const statuses: number[] = []
    for (let i = 0; i < 8; i++) statuses.push((await loginFrom(base, uniqueName('spray'), 'wrong-password-1', `2001:db8:1:2::${i + 1}`)).status)
    expect(statuses).toEqual(Array(8).fill(401))
    // The next, from another host of the same /64, with the right password of a real user: 429.
    expect((await loginFrom(base, login, PASSWORD, '2001:db8:1:2:ffff::7')).status).toBe(429)
    expect((await loginFrom(base, login, PASSWORD, '2001:db8:1:3::1')).status).toBe(200)
  })

  it('the counts live in the database: a second instance continues them', async () => {
    const config = testConfig(t.databaseUrl, { TRUST_PROXY: 'true', LOGIN_MAX_FAILURES_PER_ACCOUNT: '3', LOGIN_MAX_FAILURES_PER_ADDRESS: '8', LOGIN_FAILURE_WINDOW_MS: '4000' })
    const database = await createDatabase(config)
    const second = await buildApp(config, { database })
    try {
      const { login } = await createUser(t, 'Viewer')
      const on = (app: typeof second, address: string) => app.inject({ method: 'POST', url: '/auth/simple/login', headers: { 'x-forwarded-for': address }, payload: { username: login, password: 'wrong-password-1' } })
      expect((await on(t.app, '10.2.0.1')).statusCode).toBe(401)
      expect((await on(second, '10.2.0.2')).statusCode).toBe(401)
      expect((await on(t.app, '10.2.0.3')).statusCode).toBe(401)
      expect((await on(second, '10.2.0.4')).statusCode).toBe(429)
    } finally {
      await second.close()
      await database.db.destroy()
    }
  })

  it('concurrent guesses are all counted: of 12 at once on one account, at most 3 are checked', async () => {
    const { login } = await createUser(t, 'Viewer')
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => loginFrom(base, login, 'wrong-password-1', `10.3.0.${i}`)))
    const statuses = answers.map((a) => a.status)
    expect(statuses.filter((s) => s === 401)).toHaveLength(3)
    expect(statuses.filter((s) => s === 429)).toHaveLength(9)
  })

  it('a wrong current password on change-password counts against the account too', async () => {
    const { browser } = await signedIn(t, base, 'Viewer')
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) statuses.push((await browser.json('POST', '/api/admin/user/change-password', { password: 'a-new-password-42', oldPassword: 'guess-number-1' })).status)
    expect(statuses).toEqual([401, 401, 401, 429])
  })
})

describe('no username enumeration by time', () => {
  let t: TestApp
  let base = ''
  beforeAll(async () => {
    // A cost at which a hash takes tens of milliseconds: skipping it would show.
    t = await buildTestApp({ PASSWORD_HASH_COST: '15', LOGIN_MAX_FAILURES_PER_ACCOUNT: '1000', LOGIN_MAX_FAILURES_PER_ADDRESS: '1000' })
    base = await listen(t)
  })
  afterAll(() => t.close())

  it('an unknown name costs what a wrong password costs (medians of interleaved attempts)', async () => {
    const { login } = await createUser(t, 'Viewer')
    const noPassword = json(await t.app.inject({ method: 'POST', url: '/api/admin/user-admin', headers: auth(), payload: { username: uniqueName('nopw'), rootRole: 'Viewer' } }))
    const time = async (username: string) => {
      const started = performance.now()
      const res = await loginFrom(base, username, 'wrong-password-1')
      await res.text()
      expect(res.status).toBe(401)
      return performance.now() - started
    }
    const known: number[] = []
    const unknown: number[] = []
    const passwordless: number[] = []
    for (let i = 0; i < 12; i++) {
      known.push(await time(login))
      unknown.push(await time(uniqueName('nobody')))
      passwordless.push(await time(noPassword.username))
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const [k, u, p] = [median(known), median(unknown), median(passwordless)]
    // Every path does the one scrypt check (tens of ms at this cost): none answers early.
    expect(u).toBeGreaterThan(k * 0.6)
    expect(u).toBeLessThan(k * 1.6)
    expect(p).toBeGreaterThan(k * 0.6)
    expect(p).toBeLessThan(k * 1.6)
  })
})

describe('cross-site requests riding the session cookie', () => {
  let t: TestApp
  let base = ''
  beforeAll(async () => {
    t = await buildTestApp()
    base = await listen(t)
  })
  afterAll(() => t.close())

  const write = (browser: Browser, headers: Record<string, string>, body = JSON.stringify({ name: uniqueName('csrf') }), type = 'application/json') =>
    fetch(`${base}/api/admin/projects/default/features`, { method: 'POST', headers: { cookie: `unleash-session=${browser.cookie}`, 'content-type': type, ...headers }, body })

  it('refuses a write from another site (Origin, or Sec-Fetch-Site cross-site or same-site), JSON or form, and stores nothing', async () => {
    const { browser } = await signedIn(t, base, 'Editor')
    const before = await databaseFingerprint(t.database.db)
    for (const headers of <Record<string, string>[]>[
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: 'http://127.0.0.1.evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: 'http://other.localhost' },
      { 'sec-fetch-site': 'cross-site', origin: base },
    ]) {
      const res = await write(browser, headers)
      const body = await res.json() as any
      expect(res.status, JSON.stringify(headers)).toBe(403)
      expect(body.name).toBe('CrossSiteRequestError')
    }
    const form = await write(browser, { origin: 'https://evil.example' }, 'name=x', 'application/x-www-form-urlencoded')
    expect(form.status).toBe(403)
    const { sessions: _a, ...stable } = before
    const { sessions: _b, ...after } = await databaseFingerprint(t.database.db)
    expect(after).toEqual(stable)
  })

  it('same-origin pages need nothing special; non-browser clients neither; reads and API tokens are unaffected', async () => {
    const { browser } = await signedIn(t, base, 'Editor')
    expect((await write(browser, { 'sec-fetch-site': 'same-origin', origin: base })).status).toBe(201)
    // An older browser: no Sec-Fetch-Site, an Origin of this very server.
    expect((await write(browser, { origin: base })).status).toBe(201)
    // curl with the cookie: neither header.
    expect((await write(browser, {})).status).toBe(201)
    const read = await fetch(`${base}/api/admin/projects`, { headers: { cookie: `unleash-session=${browser.cookie}`, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' } })
    expect(read.status).toBe(200)
    const token = await fetch(`${base}/api/admin/projects/default/features`, { method: 'POST', headers: { authorization: 'test-admin-secret', 'content-type': 'application/json', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, body: JSON.stringify({ name: uniqueName('token') }) })
    expect(token.status).toBe(201)
  })

  it('login and logout from another site are refused too (no login CSRF, no forced logout)', async () => {
    const { login } = await createUser(t, 'Viewer')
    const res = await fetch(`${base}/auth/simple/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://evil.example' }, body: JSON.stringify({ username: login, password: PASSWORD }) })
    expect(res.status).toBe(403)
    expect(res.headers.getSetCookie()).toEqual([])
    const { browser } = await signedIn(t, base, 'Viewer')
    const out = await fetch(`${base}/logout`, { method: 'POST', redirect: 'manual', headers: { cookie: `unleash-session=${browser.cookie}`, 'sec-fetch-site': 'cross-site' } })
    expect(out.status).toBe(403)
    expect((await browser.fetch('/api/admin/user')).status).toBe(200)
  })
})

describe('no secret in any answer or log line', () => {
  it('passwords, their hashes, session ids and token secrets never appear, at trace level', async () => {
    const logged = await buildLoggedApp()
    const { app, database } = logged
    await app.listen({ port: 0, host: '127.0.0.1' })
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
    const answers: string[] = []
    const keep = async (res: Response) => {
      answers.push(`${JSON.stringify([...res.headers].filter(([name]) => name !== 'set-cookie'))} ${await res.clone().text()}`)
      return res
    }
    try {
      const passwords = ['first-secret-password-1', 'second-secret-password-2', 'wrong-secret-password-3']
      const username = uniqueName('logged')
      await keep(await fetch(`${url}/api/admin/user-admin`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify({ username, rootRole: 'Editor', password: passwords[0] }) }))
      const browser = new Browser(url)
      await keep(await browser.login(username, passwords[2]!))
      await keep(await browser.login(username, passwords[0]!))
      const session = browser.cookie!
      await keep(await browser.json('POST', '/api/admin/user/change-password', { password: passwords[1], oldPassword: passwords[0] }))
      const pat = await (await keep(await browser.json('POST', '/api/admin/user/tokens', { description: 'logged', expiresAt: new Date(Date.now() + 60_000).toISOString() }))).json() as any
      await keep(await fetch(`${url}/api/admin/user`, { headers: { authorization: pat.secret } }))
      await keep(await fetch(`${url}/api/admin/user`, { headers: { authorization: `${pat.secret.slice(0, -1)}0` } }))
      await keep(await browser.json('POST', '/api/admin/user-admin/validate-password', { password: 'password1234' }))
      await keep(await browser.fetch('/logout', { method: 'POST' }))
      await keep(await fetch(`${url}/api/admin/user`, { headers: { cookie: `unleash-session=${session}` } }))
      const hashes = (await database.db.selectFrom('users').select('password_hash').execute()).map((r) => r.password_hash!).filter(Boolean)
      const log = logged.log()
      expect(log).toContain('request completed')
      const text = answers.join('\n')
      expect(text).toContain('user:')
      for (const secret of [...passwords, session, pat.secret, ...hashes, ...hashes.map((h) => h.split('$').at(-1)!), 'password1234']) {
        expect(log).not.toContain(secret)
        if (secret !== pat.secret) expect(text).not.toContain(secret)
      }
      expect(log).not.toContain('$scrypt$')
      expect(text).not.toContain('$scrypt$')
    } finally {
      await logged.close()
    }
  })
})
