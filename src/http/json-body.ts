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
 * Values one body may hold, counted while it is read: each array and object and each item
 * after a comma (so at most twice as many parsed values). JSON.parse's time grows with them,
 * not with bytes: a million empty objects (3 MiB) hold the event loop for about 170 ms, which
 * no route's data needs (a 31 MiB import of 33 features of 1000 variants counts 200,000).
 */
export const MAX_JSON_VALUES = 500_000

/**
 * Distinct member names one body may have. Every new name costs JSON.parse a new object
 * shape: a million of them in objects of 100 members (12 MiB) hold the event loop for almost
 * 4 s. Routes' data names few members; an SDK's metrics report, which names its flags and
 * their variants, passes with up to 1000 flags of eight variants each (docs/behaviour.md).
 */
export const MAX_MEMBER_NAMES = 10_000

/** Member names longer than this many bytes are each counted as distinct, not compared. */
const MAX_NAME_BYTES = 256

/**
 * Counts a JSON text's shape as its bytes arrive, without parsing it: `[` and `{` outside
 * strings open a level and `]` and `}` close one (at most MAX_JSON_DEPTH), openings and commas
 * count values (at most MAX_JSON_VALUES), and the string before each `:` is a member name (at
 * most MAX_MEMBER_NAMES distinct ones). Strings are skipped with indexOf (to their closing
 * quote: one not preceded by an odd run of backslashes), the bytes between them looked at one
 * by one; UTF-8's multi-byte sequences never hold these ASCII bytes. So a body nested millions
 * of levels deep, or made of millions of tiny values or names, is refused at the byte that
 * breaks the rule, before the rest of it is read, parsed or held in memory. Malformed text
 * (more closings than openings, say) is left to the parser. Names are compared as sent
 * (`"a"` and `"\u0061"` are two), which can only count more.
 *
 * A body of at most MAX_MEMBER_NAMES members cannot have more names than that, so names are
 * only counted (the PATCH of a thousand variants never compares one); at the member after, the
 * pieces read so far are read again by a counter that compares names, which reads the rest.
 */
export class JsonShapeCounter {
  #depth = 0
  #values = 0
  #members = 0
  /** The distinct names so far, once they are compared. */
  readonly #names: Set<string> | undefined
  /** Member names too long to compare, each counted as distinct. */
  #longNames = 0
  #inString = false
  /** In a string, and the last byte read was a backslash that escapes the next one. */
  #escaped = false
  /** While names are compared: the string being read's bytes from earlier pieces, and whether it is too long to compare. */
  #prefix = ''
  #long = false
  /** While names are compared: the last string read (a member name when a `:` follows). */
  #lastPiece: Buffer | undefined
  #lastStart = 0
  #lastEnd = 0
  #lastPrefix = ''
  #lastLong = false
  /** The pieces read while names are only counted; then the counter that compares them. */
  readonly #pieces: Buffer[] = []
  #comparing: JsonShapeCounter | undefined
  /** The rule the refused byte broke. */
  #broken: 'depth' | 'values' | 'names' | undefined

  constructor (compareNames = false) {
    this.#names = compareNames ? new Set() : undefined
  }

  /** Reads the next bytes; the offset in them of the byte that breaks a rule (see refusal), or -1. */
  feed (bytes: Buffer): number {
    if (this.#comparing) return this.#comparing.feed(bytes)
    const names = this.#names
    let depth = this.#depth
    let values = this.#values
    let inString = this.#inString
    let escaped = this.#escaped
    const n = bytes.length
    let i = 0
    let at = -1
    // Where the string being read starts in this piece.
    let start = 0
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
        if ((backslashes & 1) === 0) {
          inString = false
          if (names) {
            this.#lastPiece = bytes
            this.#lastStart = start
            this.#lastEnd = quote
            this.#lastPrefix = this.#prefix
            this.#lastLong = this.#long || this.#prefix.length + quote - start > MAX_NAME_BYTES
          }
        }
        i = quote + 1
        continue
      }
      const b = bytes[i]!
      if (b === 0x22) {
        inString = true
        start = i + 1
        this.#prefix = ''
        this.#long = false
      } else if (b === 0x5b || b === 0x7b) { // [ {
        if (++depth > MAX_JSON_DEPTH) {
          this.#broken = 'depth'
          at = i
          break
        }
        if (++values > MAX_JSON_VALUES) {
          this.#broken = 'values'
          at = i
          break
        }
      } else if (b === 0x5d || b === 0x7d) { // ] }
        depth--
      } else if (b === 0x2c) { // ,
        if (++values > MAX_JSON_VALUES) {
          this.#broken = 'values'
          at = i
          break
        }
      } else if (b === 0x3a) { // :
        if (names === undefined) {
          if (++this.#members > MAX_MEMBER_NAMES) {
            // Names can now be too many: compare them, from the first piece on.
            const comparing = new JsonShapeCounter(true)
            for (const piece of this.#pieces) comparing.feed(piece)
            this.#pieces.length = 0
            this.#comparing = comparing
            return comparing.feed(bytes)
          }
        } else if (this.#lastPiece !== undefined) {
          if (this.#lastLong) this.#longNames++
          else names.add(this.#lastPrefix + this.#lastPiece.toString('latin1', this.#lastStart, this.#lastEnd))
          this.#lastPiece = undefined
          if (names.size + this.#longNames > MAX_MEMBER_NAMES) {
            this.#broken = 'names'
            at = i
            break
          }
        }
      }
      i++
    }
    if (names === undefined) {
      this.#pieces.push(bytes)
    } else if (inString && at < 0 && !this.#long) {
      // A string that goes on in the next piece: keep its bytes so far, while it can be a name.
      if (this.#prefix.length + n - start > MAX_NAME_BYTES) this.#long = true
      else this.#prefix += bytes.toString('latin1', start, n)
    }
    this.#depth = depth
    this.#values = values
    this.#inString = inString
    this.#escaped = escaped
    return at
  }

  /** The 400 for the byte at `offset` of the whole body, which broke a rule. */
  refusal (root: string, offset: number): Error {
    if (this.#comparing) return this.#comparing.refusal(root, offset)
    const why = this.#broken === 'values'
      ? `holds more than ${MAX_JSON_VALUES} values (arrays, objects and comma-separated items)`
      : this.#broken === 'names'
        ? `has more than ${MAX_MEMBER_NAMES} distinct member names`
        : `is nested more than ${MAX_JSON_DEPTH} levels deep`
    return invalidField(root, `${why} (at byte ${offset})`)
  }
}

/**
 * A request body's text as JSON: refused with a 400 when empty, not JSON (saying where, not
 * quoting it), or anything checkJsonValue refuses. The caller counted its nesting while reading
 * it (JsonShapeCounter), so JSON.parse never builds a value deeper than MAX_JSON_DEPTH, nor
 * more values or member names than the counter allows.
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
