import type { SignInProblem } from '../vocabulary/oidc.js'

/** Where a browser may be sent after signing in: a path on this server, never another site. */

const MAX_REDIRECT_LENGTH = 2000
const BASE = 'http://this.server.invalid'

const hasControl = (text: string) => [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)

/**
 * `?redirect=` as a path on this server, or undefined when it could lead anywhere else: it must
 * start with one `/` (not `//` or `/\`, which browsers read as another host), hold no
 * backslash, white space or control character, and still be on this server once a URL parser
 * has read it. What is returned is the parser's reading, so the browser reads the same.
 */
export function sameOriginPath (value: string | undefined): string | undefined {
  if (value === undefined || value.length === 0 || value.length > MAX_REDIRECT_LENGTH) return undefined
  if (!value.startsWith('/') || value.startsWith('//') || /[\\\s]/.test(value) || hasControl(value)) return undefined
  let url: URL
  try {
    url = new URL(value, BASE)
  } catch {
    return undefined
  }
  if (url.origin !== BASE) return undefined
  return `${url.pathname}${url.search}${url.hash}`
}

/** The landing path after signing in: a safe `?redirect=`, else `/`. */
export const landingPath = (value: string | undefined) => sameOriginPath(value) ?? '/'

/**
 * The reason a browser is shown when its single sign-on did not complete, from the refusal's
 * status: 502 the provider did not answer, 400/401 a refused or spent login, 403 an account not
 * allowed, 429 too many logins, 404 single sign-on off. Anything else (the database away, a
 * fault) stays a problem body.
 */
export function signInProblemOf (status: number): SignInProblem | undefined {
  switch (status) {
    case 502: return 'unavailable'
    case 400: case 401: return 'refused'
    case 403: return 'not-allowed'
    case 429: return 'busy'
    case 404: return 'off'
    default: return undefined
  }
}

/** A browser navigating (its Accept names HTML) rather than a client reading JSON. */
export const navigating = (accept: string | undefined) => accept !== undefined && /\btext\/html\b/i.test(accept)
