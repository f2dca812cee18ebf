import type { AddressInfo } from 'node:net'
import { auth, json, type TestApp, uniqueName } from './app.js'

/** A password that follows the rules. */
export const PASSWORD = 'correct-horse-battery-7'

/** The app listening on a loopback port; its base URL. */
export async function listen (t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
}

/** Creates a user through the API (with the admin token) and returns its id and login name. */
export async function createUser (t: TestApp, rootRole: 'Admin' | 'Editor' | 'Viewer', fields: { username?: string; email?: string; password?: string } = {}) {
  const username = fields.email ? undefined : (fields.username ?? uniqueName('user'))
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/user-admin',
    headers: auth(),
    payload: { ...(username && { username }), ...(fields.email && { email: fields.email }), rootRole, password: fields.password ?? PASSWORD },
  })
  if (res.statusCode !== 201) throw new Error(`user not created: ${res.body}`)
  return { id: json(res).id as number, login: (fields.email ?? username)! }
}

/** The value of the session cookie a response sets ('' when it clears it), from its real Set-Cookie header. */
export function sessionCookieOf (res: Response): { value: string; header: string } | undefined {
  const header = res.headers.getSetCookie().find((c) => c.startsWith('unleash-session='))
  if (header === undefined) return undefined
  return { value: header.slice('unleash-session='.length).split(';')[0]!, header }
}

/** A browser-like client: sends the session cookie it was given, and same-origin fetch metadata. */
export class Browser {
  cookie: string | undefined

  constructor (readonly base: string) {}

  async login (login: string, password = PASSWORD, headers: Record<string, string> = {}) {
    const res = await this.fetch('/auth/simple/login', { method: 'POST', body: JSON.stringify({ username: login, password }), headers: { 'content-type': 'application/json', ...headers } })
    return res
  }

  async fetch (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
    const res = await fetch(`${this.base}${path}`, {
      redirect: 'manual',
      ...init,
      headers: { 'sec-fetch-site': 'same-origin', ...(this.cookie !== undefined && { cookie: `unleash-session=${this.cookie}` }), ...init.headers },
    })
    const set = sessionCookieOf(res)
    if (set) this.cookie = set.value === '' ? undefined : set.value
    return res
  }

  json (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.fetch(path, { method, ...(body !== undefined && { body: JSON.stringify(body) }), headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers } })
  }
}

/** Signs a new user of this role in; returns the browser holding their session. */
export async function signedIn (t: TestApp, base: string, rootRole: 'Admin' | 'Editor' | 'Viewer') {
  const user = await createUser(t, rootRole)
  const browser = new Browser(base)
  const res = await browser.login(user.login)
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`)
  return { ...user, browser }
}
