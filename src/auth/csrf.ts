/** Methods that change nothing: never refused as cross-site. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Whether a request that a browser may have sent with the session cookie came from another
 * site, decided as browsers tell it, with nothing asked of same-origin pages:
 * - `Sec-Fetch-Site` (sent by every current browser): only `same-origin` and `none` (typed or
 *   bookmarked) pass; `same-site` (a sibling subdomain) and `cross-site` do not;
 * - without it, `Origin` (sent on every cross-origin POST): its host must be the request's own;
 *   `Origin: null` (sandboxed frames, some redirects) does not pass;
 * - with neither, the request did not come from a browser page: it passes.
 * Safe methods always pass. `host` is the request's own host (Host, or X-Forwarded-Host behind
 * a trusted proxy).
 */
export function isCrossSite (method: string, headers: { 'sec-fetch-site'?: string | string[]; origin?: string | string[] }, host: string): boolean {
  if (SAFE_METHODS.has(method)) return false
  const site = headers['sec-fetch-site']
  if (site !== undefined) return !(site === 'same-origin' || site === 'none')
  const origin = headers.origin
  if (origin === undefined) return false
  if (typeof origin !== 'string' || origin === 'null') return true
  try {
    return new URL(origin).host.toLowerCase() !== host.toLowerCase()
  } catch {
    return true
  }
}
