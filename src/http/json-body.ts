import { badData, invalidField } from '../errors.js'
import { formatPointer } from '../json-pointer.js'

/** Deepest nesting of arrays and objects a request body may have (the API's own bodies need 7). */
export const MAX_JSON_DEPTH = 32

/**
 * Members that could change an object's prototype when a parsed body is merged into another
 * object (what Fastify's own JSON parser refuses too): `__proto__`, and `constructor` holding
 * a `prototype`.
 */
const poisons = (key: string, value: unknown) =>
  key === '__proto__' ||
  (key === 'constructor' && typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype'))

/** Why PostgreSQL could not store a string: a NUL character, or a lone UTF-16 surrogate. */
export function unstorable (text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character (\\u0000), which cannot be stored'
  if (!text.isWellFormed()) return 'contains a lone surrogate (invalid UTF-16), which cannot be stored'
  return undefined
}

/**
 * Refuses, with a 400 naming the place (`/body/0/value/name`), what no route accepts or the
 * database cannot hold: nesting deeper than MAX_JSON_DEPTH, strings or member names that are
 * not storable, and prototype-poisoning members. Runs in stack depth bounded by MAX_JSON_DEPTH.
 */
export function checkJsonValue (value: unknown, root: string, tokens: (string | number)[] = []): void {
  const refuse = (why: string) => invalidField(root + formatPointer(tokens), why)
  if (typeof value === 'string') {
    const why = unstorable(value)
    if (why) throw refuse(why)
    return
  }
  if (typeof value !== 'object' || value === null) return
  if (tokens.length >= MAX_JSON_DEPTH) throw refuse(`is nested more than ${MAX_JSON_DEPTH} levels deep`)
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      tokens.push(i)
      checkJsonValue(value[i], root, tokens)
      tokens.pop()
    }
    return
  }
  for (const [key, member] of Object.entries(value)) {
    tokens.push(key)
    const why = poisons(key, member) ? 'is not an allowed member name' : unstorable(key)
    if (why) throw refuse(why)
    checkJsonValue(member, root, tokens)
    tokens.pop()
  }
}

/**
 * Counts the nesting of a JSON text as its bytes arrive, without parsing it: `[` and `{`
 * outside strings open a level, `]` and `}` close one. Strings are skipped with indexOf (to
 * their closing quote: one not preceded by an odd run of backslashes), the bytes between
 * them looked at one by one; UTF-8's multi-byte sequences never hold these ASCII bytes. So a
 * body nested millions of levels deep is refused at its 33rd opening, before the rest of it
 * is read, parsed or held in memory. Malformed text (more closings than openings, say) is
 * left to the parser.
 */
export class NestingCounter {
  #depth = 0
  #inString = false
  /** In a string, and the last byte read was a backslash that escapes the next one. */
  #escaped = false

  /** Reads the next bytes; the offset in them of the byte that opens a level deeper than MAX_JSON_DEPTH, or -1. */
  feed (bytes: Buffer): number {
    let depth = this.#depth
    let inString = this.#inString
    let escaped = this.#escaped
    const n = bytes.length
    let i = 0
    let at = -1
    while (i < n) {
      if (inString) {
        if (escaped) {
          escaped = false
          i++
          continue
        }
        const quote = bytes.indexOf(0x22, i) // "
        const end = quote < 0 ? n : quote
        let backslashes = 0
        while (end - backslashes > i && bytes[end - backslashes - 1] === 0x5c) backslashes++
        if (quote < 0) {
          escaped = (backslashes & 1) === 1
          break
        }
        if ((backslashes & 1) === 0) inString = false
        i = quote + 1
        continue
      }
      const b = bytes[i]!
      if (b === 0x22) {
        inString = true
      } else if (b === 0x5b || b === 0x7b) { // [ {
        if (++depth > MAX_JSON_DEPTH) {
          at = i
          break
        }
      } else if (b === 0x5d || b === 0x7d) { // ] }
        depth--
      }
      i++
    }
    this.#depth = depth
    this.#inString = inString
    this.#escaped = escaped
    return at
  }
}

/** The refusal of a text nested deeper than MAX_JSON_DEPTH, at byte `offset`. */
export const tooDeep = (root: string, offset: number) =>
  invalidField(root, `is nested more than ${MAX_JSON_DEPTH} levels deep (at byte ${offset})`)

/**
 * A request body's text as JSON: refused with a 400 when empty, not JSON (saying where, not
 * quoting it), or anything checkJsonValue refuses. The caller counted its nesting while reading
 * it (NestingCounter), so JSON.parse never builds a value deeper than MAX_JSON_DEPTH.
 */
export function parseJsonBody (text: string): unknown {
  if (text.length === 0) throw badData('The request body is empty; send JSON')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    // The engine's own message quotes the input; say where instead.
    const at = /position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1]
    throw badData(`The request body is not valid JSON${at === undefined ? '' : ` (at character ${at})`}`)
  }
  if (mayHoldRefusedText(text)) checkJsonValue(value, '/body')
  return value
}

/**
 * Whether parsing `text` can have made a string checkJsonValue refuses. A NUL character or a
 * lone surrogate in a parsed string can only come from a `\u` escape (JSON refuses raw
 * control characters, and decoding UTF-8 never yields either), and a prototype member is
 * spelt out or escaped: text with neither needs no walk (the nesting was counted while reading).
 */
const mayHoldRefusedText = (text: string) => text.includes('\\u') || text.includes('__proto__') || text.includes('constructor')
