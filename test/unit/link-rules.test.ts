/** A link's address stored as Unleash stores it (normalize-url, https by default); only http and https. */
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/errors.js'
import { normalizeLinkUrl } from '../../src/feature-links/link-rules.js'

// What Unleash 8.2 stores for each address (normalize-url 9 with defaultProtocol https, as its
// link service runs it): read once from it, and the same here.
const AS_UNLEASH: [string, string][] = [
  ['example.com', 'https://example.com'],
  ['https://www.Example.com/', 'https://example.com'],
  ['http://example.com:80/a/', 'http://example.com/a'],
  ['https://example.com/a//b?b=2&a=1&utm_source=x#frag', 'https://example.com/a/b?a=1&b=2#frag'],
  ['//example.com/x', 'https://example.com/x'],
  ['HTTPS://user:pw@Example.COM:443/path/?q=1', 'https://example.com/path?q=1'],
  ['github.com/org/repo/issues/12', 'https://github.com/org/repo/issues/12'],
  ['https://example.com/a b', 'https://example.com/a%20b'],
  ['https://example.com/?', 'https://example.com'],
  ['https://example.com/#', 'https://example.com'],
  ['https://x.com/#:~:text=hi', 'https://x.com'],
  ['http://localhost:3000/x', 'http://localhost:3000/x'],
  ['localhost:3000', 'https://localhost:3000'],
  ['https://example.com/ü', 'https://example.com/%C3%BC'],
  ['https://münchen.de', 'https://xn--mnchen-3ya.de'],
  ['https://example.com:8443', 'https://example.com:8443'],
  ['https://www.example', 'https://www.example'],
  ['https://example.com/a/?x', 'https://example.com/a?x'],
  ['https://example.com/a#/r/', 'https://example.com/a#/r/'],
]

const refusal = (url: string) => {
  try {
    normalizeLinkUrl(url, '/body/url')
  } catch (error) {
    return error instanceof ApiError ? error.message : String(error)
  }
  return undefined
}

describe('link addresses', () => {
  it.each(AS_UNLEASH)('%s is stored as %s, as Unleash stores it', (url, stored) => {
    expect(normalizeLinkUrl(url, '/body/url')).toBe(stored)
  })

  it('stores an address once normalised as it is (the same again changes nothing)', () => {
    for (const [, stored] of AS_UNLEASH) expect(normalizeLinkUrl(stored, '/body/url')).toBe(stored)
  })

  it('refuses what is not an http or https address, naming the member (unlike Unleash, which keeps javascript: links)', () => {
    expect(refusal('javascript:alert(1)')).toBe('/body/url must be an http or https address, not javascript')
    expect(refusal('data:text/html,hi')).toBe('/body/url must be an http or https address, not data')
    expect(refusal('ftp://x.com')).toBe('/body/url must be an http or https address, not ftp')
    expect(refusal('mailto:a@b.c')).toBe('/body/url must be an http or https address, not mailto')
    expect(refusal('not a url')).toBe('/body/url is not a URL: not a url')
    expect(refusal('https://')).toBe('/body/url is not a URL: https://')
  })
})
