import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkJsonValue, JsonShapeCounter, MAX_JSON_DEPTH, MAX_JSON_VALUES, MAX_MEMBER_NAMES, parseJsonBody } from '../../src/http/json-body.js'

/** The nesting of a parsed value: 0 for a scalar, 1 for `[]`, … */
const depthOf = (value: unknown): number =>
  typeof value !== 'object' || value === null
    ? 0
    : 1 + Math.max(0, ...(Array.isArray(value) ? value : Object.values(value)).map(depthOf))

/**
 * A JSON value nested exactly `depth` levels: at each level an array or object holding the
 * next one among a few scalar siblings, with strings full of what a byte counter could mistake.
 */
const tricky = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'é', '😀', 'a', '\u0001'), maxLength: 6 })
const scalar = fc.oneof(tricky, fc.integer(), fc.constant(null))
const nestedValue = (depth: number): fc.Arbitrary<unknown> =>
  depth === 0
    ? scalar
    : fc.tuple(nestedValue(depth - 1), fc.array(scalar, { maxLength: 2 }), fc.array(tricky, { minLength: 3, maxLength: 3 }), fc.boolean()).map(
      ([inner, siblings, keys, asObject]) =>
        asObject ? { [keys[0]!]: siblings[0] ?? 1, [`${keys[1]}!`]: inner, [`${keys[2]}?`]: siblings[1] ?? null } : [...siblings, inner]
    )

/** Feeds `bytes` in pieces cut at `cuts`; the offset of the refusal in the whole, or -1. */
function feedInPieces (bytes: Buffer, cuts: number[]): number {
  return refusalOf(bytes, cuts)?.at ?? -1
}

/** Feeds `bytes` in pieces cut at `cuts`; where it was refused in the whole and why, or undefined. */
function refusalOf (bytes: Buffer, cuts: number[] = []): { at: number; message: string } | undefined {
  const counter = new JsonShapeCounter()
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  let start = 0
  for (const end of [...points, bytes.length]) {
    const at = counter.feed(bytes.subarray(start, end))
    if (at >= 0) return { at: start + at, message: counter.refusal('/body', start + at).message }
    start = end
  }
  return undefined
}

/** An object of `count` members named by `name(i)`, each holding 1. */
const objectOf = (count: number, name: (i: number) => string) => `{${Array.from({ length: count }, (_, i) => `${JSON.stringify(name(i))}:1`).join(',')}}`

describe('JsonShapeCounter', () => {
  it('counts values: each array, object and comma-separated item; one more than the limit is refused at its byte', () => {
    const most = Buffer.from(`[${'1,'.repeat(MAX_JSON_VALUES - 1)}1]`)
    expect(refusalOf(most)).toBeUndefined()
    const over = Buffer.from(`[${'1,'.repeat(MAX_JSON_VALUES)}1]`)
    expect(refusalOf(over, [12345, 700_001])).toEqual({
      at: over.length - 3,
      message: `/body holds more than ${MAX_JSON_VALUES} values (arrays, objects and comma-separated items) (at byte ${over.length - 3})`,
    })
    // Empty objects and arrays count as values too (a million of them is what parsing costs most per byte after names).
    const empties = Buffer.from(`[${'{},[],'.repeat(MAX_JSON_VALUES / 4)}0]`)
    expect(refusalOf(empties)?.message).toMatch(/holds more than 500000 values/)
    // Commas in strings are text.
    expect(refusalOf(Buffer.from(`["${','.repeat(2 * MAX_JSON_VALUES)}"]`))).toBeUndefined()
  })

  it('counts distinct member names, wherever the pieces are cut; the same names again cost nothing', () => {
    const most = Buffer.from(objectOf(MAX_MEMBER_NAMES, (i) => `n${i}`))
    expect(refusalOf(most)).toBeUndefined()
    // The same 10,000 names in 20 objects: 200,000 members, no new name.
    expect(refusalOf(Buffer.from(`[${Array.from({ length: 20 }, () => most.toString()).join(',')}]`))).toBeUndefined()
    const text = `[{"n0":1},${objectOf(MAX_MEMBER_NAMES, (i) => `m${i}`)}]`
    const over = Buffer.from(text)
    const colon = text.lastIndexOf(':')
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 8 }), (cuts) => {
        expect(refusalOf(over, cuts)).toEqual({ at: colon, message: `/body has more than ${MAX_MEMBER_NAMES} distinct member names (at byte ${colon})` })
      }),
      { numRuns: 50 }
    )
    // Names are compared from the member after the 10,000th on, the pieces before read again:
    // 10,000 members of one name, then 9,999 new names pass; one more is refused at its colon.
    const repeated = Array.from({ length: MAX_MEMBER_NAMES }, () => '{"a":1}').join(',')
    const passes = Buffer.from(`[${repeated},${objectOf(MAX_MEMBER_NAMES - 1, (i) => `b${i}`)}]`)
    const refused = `[${repeated},${objectOf(MAX_MEMBER_NAMES, (i) => `b${i}`)}]`
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 8 }), (cuts) => {
        expect(refusalOf(passes, cuts)).toBeUndefined()
        expect(refusalOf(Buffer.from(refused), cuts)?.at).toBe(refused.lastIndexOf(':'))
      }),
      { numRuns: 50 }
    )
    // Brackets, quotes, colons and escapes in names (split anywhere) are names, and values are never names.
    const odd = Buffer.from(JSON.stringify({ 'a":[{': 1, 'b\\': '"c":', 'é😀': [':', { 'x:y': 'z' }] }))
    expect(refusalOf(odd, [3, 5, 9, 14, 22])).toBeUndefined()
  })

  it('counts names longer than 256 bytes each as distinct, even when repeated', () => {
    const long = 'x'.repeat(257)
    const many = Buffer.from(`[${Array.from({ length: MAX_MEMBER_NAMES + 1 }, () => `{"${long}":1}`).join(',')}]`)
    expect(refusalOf(many, [1000, 2_000_000])?.message).toMatch(/has more than 10000 distinct member names/)
    const short = 'x'.repeat(256)
    expect(refusalOf(Buffer.from(`[${Array.from({ length: MAX_MEMBER_NAMES + 1 }, () => `{"${short}":1}`).join(',')}]`), [1000, 2_000_000])).toBeUndefined()
  })

  it('refuses exactly the texts nested deeper than the limit, wherever the pieces are cut', () => {
    fc.assert(
      fc.property(fc.integer({ min: 28, max: 36 }).chain(nestedValue), fc.array(fc.nat(), { maxLength: 6 }), (value, cuts) => {
        const bytes = Buffer.from(JSON.stringify(value))
        const at = feedInPieces(bytes, cuts)
        expect(at >= 0).toBe(depthOf(value) > MAX_JSON_DEPTH)
        if (at >= 0) expect('[{').toContain(String.fromCharCode(bytes[at]!))
      }),
      { numRuns: 500 }
    )
  })

  it('counts brackets in strings, escaped quotes and multi-byte characters as text', () => {
    const inString = `"${'[{'.repeat(100)}\\"${'['.repeat(100)}é😀"`
    expect(new JsonShapeCounter().feed(Buffer.from(`[${inString}]`))).toBe(-1)
    // An escaped backslash ends before the quote: the string closes there.
    const deep = `["\\\\"${'['.repeat(32)}${']'.repeat(32)}]`
    expect(new JsonShapeCounter().feed(Buffer.from(deep))).toBe(5 + 32 - 1)
  })

  it('32 levels pass, the 33rd is refused at its byte, in members of any name', () => {
    const at32 = `{"x":${'['.repeat(31)}1${']'.repeat(31)}}`
    expect(new JsonShapeCounter().feed(Buffer.from(at32))).toBe(-1)
    const at33 = `{"ignored":${'{"a":'.repeat(32)}1${'}'.repeat(32)}}`
    expect(new JsonShapeCounter().feed(Buffer.from(at33))).toBe(at33.indexOf('{', 11 + 31 * 5))
  })
})

describe('parseJsonBody and checkJsonValue', () => {
  it('still refuse NUL, lone surrogates and prototype members, naming the place', () => {
    const refusal = (text: string) => {
      try {
        parseJsonBody(text)
        return undefined
      } catch (error) {
        return (error as { details: { path?: string; message: string }[] }).details[0]
      }
    }
    expect(refusal('{"a":["x\\u0000"]}')).toEqual({ path: '/body/a/0', message: '/body/a/0 contains a NUL character (\\u0000), which cannot be stored' })
    expect(refusal('{"a\\ud800":1}')?.path).toBe('/body/a\ud800')
    expect(refusal('[{"__proto__":{"x":1}}]')).toEqual({ path: '/body/0/__proto__', message: '/body/0/__proto__ is not an allowed member name' })
    expect(refusal('{"constructor":{"prototype":{}}}')?.path).toBe('/body/constructor')
    expect(refusal('{"constructor":"fine"}')).toBeUndefined()
    expect(refusal('')?.message).toBe('The request body is empty; send JSON')
    expect(refusal('{"a":')?.message).toMatch(/^The request body is not valid JSON/)
  })

  it('skip the walk only where it could refuse nothing: the same answer as always walking', () => {
    const odd = fc.string({ unit: fc.constantFrom('a', '\u0000', '\ud800', '\udc00', '😀', '_', 'u', '\\'), maxLength: 4 })
    const key = fc.oneof(odd, fc.constantFrom('__proto__', 'constructor', 'prototype', 'name'))
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, odd, fc.integer(), fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(key, tie('node'), { maxKeys: 3 })),
    })).node
    fc.assert(
      fc.property(value, (v) => {
        const text = JSON.stringify(v)
        const walked = (() => {
          try {
            checkJsonValue(JSON.parse(text), '/body')
            return 'accepted'
          } catch (error) {
            return (error as Error).message
          }
        })()
        const parsed = (() => {
          try {
            parseJsonBody(text)
            return 'accepted'
          } catch (error) {
            return (error as Error).message
          }
        })()
        expect(parsed).toBe(walked)
      }),
      { numRuns: 1000 }
    )
  })

  it('checkJsonValue still refuses a value nested too deep (values not read from a body)', () => {
    let value: unknown = 1
    for (let i = 0; i < 40; i++) value = [value]
    expect(() => checkJsonValue(value, '')).toThrow(/nested more than 32 levels deep/)
  })
})
