import { Address4, Address6 } from 'ip-address'
import { prepareRest, type Rest } from './murmur.js'

/*
 * The evaluator: the client API's answer for one environment and project set, compiled
 * (compile.ts) once per state version into closures that answer, for a context, what the
 * official Unleash SDKs answer (unleash-client 6.12.1 is the reference the tests compare it
 * with). A rule family per file, each mirroring the SDK's rules with their edge cases (trimmed
 * list values, `?? properties`, Number('') = 0, the hash of `groupId:id` with MurmurHash3):
 * this one, what a rule reads of a request (the context, the clock, randomness); constraints.ts,
 * strategies.ts, variants.ts; compile.ts puts them together. What a rule reads ahead of time is
 * only what cannot change between requests.
 */

/** A context as the SDK reads it: top-level fields, and properties. */
export interface EvaluationContext {
  [field: string]: unknown
  properties?: Record<string, unknown>
}

/** What the SDK embedded in a frontend API fills in when the context does not say. */
export const STATIC_CONTEXT = { appName: 'frontend-api', environment: 'default' } as const

/**
 * One request's evaluation: the context, and what it used besides the context (randomness
 * or the clock), which makes its answer impossible to cache. Values derived from the context
 * (the time, the parsed address) are computed once per request.
 */
export class Evaluation {
  /** The answer drew a random number or read the clock: another request may get another. */
  drew = false
  #now: number | undefined
  #addresses: Map<string, Address4 | Address6 | null> | undefined

  #restOf: string | undefined
  #rest: Rest | undefined

  /** Results of the constraints several strategies share, for this request: 0 not yet, 1 holds, 2 does not. */
  readonly memo: Uint8Array | undefined

  constructor (readonly context: EvaluationContext, memoSlots = 0) {
    this.memo = memoSlots > 0 ? new Uint8Array(memoSlots) : undefined
  }

  /** An id prepared for hashing after groups: prepared once, as every rollout of a request hashes the same id. */
  rest (id: string): Rest {
    if (id !== this.#restOf || this.#rest === undefined) {
      this.#rest = prepareRest(id)
      this.#restOf = id
    }
    return this.#rest
  }

  /** The SDK's Math.random() draws. */
  random (): number {
    this.drew = true
    return Math.random()
  }

  /** currentTime from the context, else the clock (as the SDK's DATE operators). */
  time (): number {
    const given = this.context.currentTime
    if (given) return new Date(given as string).getTime()
    this.drew = true
    return (this.#now ??= Date.now())
  }

  /** The context value parsed as an IPv4 or IPv6 address, as the SDK's IN_CIDR reads it. */
  address (value: string): Address4 | Address6 | null {
    this.#addresses ??= new Map()
    let parsed = this.#addresses.get(value)
    if (parsed === undefined) {
      parsed = Address4.isValid(value) ? new Address4(value) : Address6.isValid(value) ? new Address6(value) : null
      this.#addresses.set(value, parsed)
    }
    return parsed
  }
}

/** The SDK's resolveContextValue: the top-level field, else the property, as a string. */
export function resolveContextValue (context: EvaluationContext, field: string): string | undefined {
  const value = context[field] ?? context.properties?.[field]
  return value !== undefined && value !== null ? String(value) : undefined
}

/** A rule compiled for one context: whether it holds for this request's evaluation. */
export type Test = (e: Evaluation) => boolean
/** The tests that read nothing: composing rules leaves them out. */
export const never: Test = () => false
export const always: Test = () => true
