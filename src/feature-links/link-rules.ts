import { invalidField } from '../errors.js'

/** Most links a feature may have, as Unleash allows. */
export const MAX_LINKS_PER_FEATURE = 10

/** Query parameters that only say where a visitor came from (normalize-url drops them too). */
const TRACKING = /^utm_\w+$/i

/** A scheme at the start (`https:`), but not a host and port (`localhost:3000`). */
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:(?!\d)/i

/**
 * A link's address as Unleash stores it (it runs normalize-url with https by default): `https://`
 * added when there is no scheme, host in lower case (and punycode) without `www.`, no default
 * port, no credentials, duplicate slashes in the path collapsed, no trailing slash, no empty
 * query or fragment, no text fragment, `utm_*` parameters dropped and the others sorted by name.
 * Unlike Unleash, only http and https are links: a `javascript:` or `data:` address would run
 * in the page that shows it. 400 at `path` for anything else.
 */
export function normalizeLinkUrl (url: string, path: string): string {
  const text = url.trim()
  const withScheme = text.startsWith('//') ? `https:${text}` : HAS_SCHEME.test(text) ? text : `https://${text}`
  let parsed: URL
  try {
    parsed = new URL(withScheme)
  } catch {
    throw invalidField(path, `is not a URL: ${url}`)
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw invalidField(path, `must be an http or https address, not ${parsed.protocol.slice(0, -1)}`)
  }
  if (parsed.hostname === '') throw invalidField(path, `is not a URL: ${url}`)
  parsed.username = ''
  parsed.password = ''
  if (/^www\.[a-z0-9-]+\.[a-z0-9.-]+$/i.test(parsed.hostname)) parsed.hostname = parsed.hostname.slice(4)
  parsed.pathname = parsed.pathname.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1')
  // Parameters kept as written (a name without a value stays one), sorted by name.
  const params = parsed.search.slice(1).split('&').filter((p) => p !== '' && !TRACKING.test(paramName(p)))
  params.sort((a, b) => (paramName(a) < paramName(b) ? -1 : paramName(a) > paramName(b) ? 1 : 0))
  const search = params.length > 0 ? `?${params.join('&')}` : ''
  const hash = parsed.hash.startsWith('#:~:text=') ? '' : parsed.hash
  // The root's slash goes only when nothing follows it.
  const rest = parsed.pathname === '/' && search === '' ? '' : parsed.pathname
  return `${parsed.origin}${rest}${search}${hash}`
}

function paramName (param: string): string {
  const name = param.split('=')[0]!
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '))
  } catch {
    return name
  }
}
