import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { requireIfMatch } from '../../src/http/conditional.js'
import { ifMatchHolds, notModified, strongEtag } from '../../src/http/etag.js'

describe('strongEtag', () => {
  it('quotes the opaque part', () => {
    expect(strongEtag(7)).toBe('"7"')
    expect(strongEtag('abc')).toBe('"abc"')
  })
})

describe('If-None-Match (weak comparison: answer 304)', () => {
  it.each([
    { header: '"7"', etag: '"7"', matches: true },
    { header: 'W/"7"', etag: '"7"', matches: true },
    { header: '"7"', etag: 'W/"7"', matches: true },
    { header: '"6"', etag: '"7"', matches: false },
    { header: '"6", W/"7"', etag: '"7"', matches: true },
    { header: '  "6" ,"7"  ', etag: '"7"', matches: true },
    { header: '*', etag: '"7"', matches: true },
    { header: ' * ', etag: '"7"', matches: true },
    { header: '7', etag: '"7"', matches: false },
    { header: '"7', etag: '"7"', matches: false },
    { header: 'w/"7"', etag: '"7"', matches: false },
    { header: '"a"b"', etag: '"a"b"', matches: false },
    { header: '', etag: '"7"', matches: false },
    { header: '""', etag: '""', matches: true },
    { header: '"7"', etag: 'not a tag', matches: false },
  ])('$header against $etag: $matches', ({ header, etag, matches }) => {
    expect(notModified(header, etag)).toBe(matches)
  })
})

describe('If-Match (strong comparison: else 412)', () => {
  it.each([
    { header: '"7"', etag: '"7"', holds: true },
    { header: 'W/"7"', etag: '"7"', holds: false },
    { header: '"7"', etag: 'W/"7"', holds: false },
    { header: '"6"', etag: '"7"', holds: false },
    { header: '"6", "7"', etag: '"7"', holds: true },
    { header: '*', etag: '"7"', holds: true },
    { header: '7', etag: '"7"', holds: false },
  ])('$header against $etag: $holds', ({ header, etag, holds }) => {
    expect(ifMatchHolds(header, etag)).toBe(holds)
  })

  it('requireIfMatch: nothing sent or a match passes; anything else is 412 naming both tags', () => {
    expect(() => requireIfMatch(undefined, '"7"')).not.toThrow()
    expect(() => requireIfMatch('"7"', '"7"')).not.toThrow()
    expect(() => requireIfMatch('"6"', '"7"')).toThrow(expect.objectContaining({ name: 'PreconditionFailedError', status: 412, message: 'If-Match "6" does not match the current ETag "7"' }))
  })

  it('a tag always matches itself, strongly and weakly, in any list position (property)', () => {
    const opaque = fc.string({ unit: fc.constantFrom('a', 'b', '0', '-', '_', '/', ' ') }).filter((o) => !o.includes('"') && !o.includes(','))
    fc.assert(
      fc.property(opaque, fc.array(opaque, { maxLength: 3 }), fc.nat(3), (mine, others, at) => {
        const list = others.map(strongEtag)
        list.splice(Math.min(at, list.length), 0, strongEtag(mine))
        const header = list.join(', ')
        expect(ifMatchHolds(header, strongEtag(mine))).toBe(true)
        expect(notModified(header, strongEtag(mine))).toBe(true)
        expect(notModified(header.replace(strongEtag(mine), `W/${strongEtag(mine)}`), strongEtag(mine))).toBe(true)
      }),
      { seed: 25, numRuns: 1000 }
    )
  })
})
