import { parseCookie, stringifySetCookie } from 'cookie'

/** Unleash's cookie name, so that a browser tab of either reads the same. */
export const SESSION_COOKIE = 'unleash-session'

/** Session ids are 32 random bytes, base64url: anything else in the cookie is not one of ours. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/

/** The session id a Cookie header carries, if it is shaped like one. */
export function sessionIdFromCookie (header: string | undefined): string | undefined {
  if (header === undefined || !header.includes(SESSION_COOKIE)) return undefined
  const value = parseCookie(header)[SESSION_COOKIE]
  return value !== undefined && SESSION_ID.test(value) ? value : undefined
}

/**
 * The Set-Cookie of a new session: HttpOnly (no script reads it), SameSite=Lax (not sent on
 * cross-site requests other than top-level navigations), Path=/, Secure when the request came
 * over HTTPS (as TRUST_PROXY lets the server see it), and gone from the browser at the
 * session's absolute limit.
 */
export const sessionCookie = (id: string, secure: boolean, maxAgeMs: number) =>
  stringifySetCookie({ name: SESSION_COOKIE, value: id, httpOnly: true, sameSite: 'lax', path: '/', secure, maxAge: Math.floor(maxAgeMs / 1000) })

/** The Set-Cookie that removes the session cookie. */
export const clearedSessionCookie = (secure: boolean) =>
  stringifySetCookie({ name: SESSION_COOKIE, value: '', httpOnly: true, sameSite: 'lax', path: '/', secure, expires: new Date(0) })
