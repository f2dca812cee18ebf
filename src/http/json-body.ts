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

/** The JSON body parser of every route: parse, then checkJsonValue. */
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
  checkJsonValue(value, '/body')
  return value
}
