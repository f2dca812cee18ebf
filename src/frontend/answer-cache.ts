import { LRUCache } from 'lru-cache'
import type { EvaluationContext } from '../evaluation/context.js'
import { finish } from '../evaluation/murmur.js'
import type { Engine, Outcomes } from './engine.js'

/** Answers kept per context: at most this many, and this many bytes (keys included). */
export const ANSWER_CACHE_ENTRIES = 20_000
export const ANSWER_CACHE_BYTES = 32 * 1024 * 1024
/** A context whose text is longer than this is evaluated every time and never kept. */
const MAX_KEY_LENGTH = 2048
/** Contexts answered once are remembered by a hash, one per slot of this table (2 MiB): a newer one in the same slot replaces the older. */
export const SEEN_SLOTS = 2 ** 19

/** A 32-bit hash of every UTF-16 code unit of a text (FNV-1a, then MurmurHash3's final mix). */
function textHash (text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return finish(h) | 0
}

/** An answer kept for a context, with its tags once computed. */
export interface Kept {
  outcomes: Outcomes['values']
  frontendEtag?: string
  ofrepEtag?: string
}

/**
 * Answers kept per (engine, context) when the context determines them (no randomness, no
 * clock), least recently used first out, bounded in entries and bytes: a poll with a context
 * already answered costs no evaluation, and one with its ETag no assembly either. The key is
 * the whole context the engine reads, so nothing it could read is left out.
 *
 * An answer is kept from the second request of its context on: the first is only remembered
 * (a hash in a fixed table). Polls repeat their context, so a browser's polls are served from
 * kept answers from the third on; a context sent once (a crawler, a one-off request, a flood of
 * made-up users) neither pushes a polling user's answer out nor costs the keeping: measured at
 * 1,000 flags, keeping every answer of contexts never seen again cost 0.04 ms of CPU per request
 * (collecting them), a sixth of the request.
 */
export class AnswerCache {
  readonly #answers: LRUCache<string, Kept>
  readonly #seen = new Int32Array(SEEN_SLOTS)

  constructor (entries = ANSWER_CACHE_ENTRIES, bytes = ANSWER_CACHE_BYTES) {
    this.#answers = new LRUCache<string, Kept>({
      max: entries,
      maxSize: bytes,
      sizeCalculation: (kept, key) => key.length * 2 + kept.outcomes.byteLength + 200,
    })
  }

  /** The outcomes for a context, kept or evaluated (and kept when the context determines them and was seen before). */
  outcomes (engine: Engine, context: EvaluationContext): Kept {
    if (engine.dynamic.length === 0) return this.#answers.get(`${engine.id}`) ?? this.#keep(`${engine.id}`, { outcomes: engine.evaluate(context).values })
    const text = JSON.stringify(context)
    const key = text.length <= MAX_KEY_LENGTH ? `${engine.id}\n${text}` : undefined
    const kept = key === undefined ? undefined : this.#answers.get(key)
    if (kept !== undefined) return kept
    const evaluated = engine.evaluate(context)
    const fresh = { outcomes: evaluated.values }
    return key !== undefined && evaluated.cacheable && this.#seenBefore(key) ? this.#keep(key, fresh) : fresh
  }

  /** Whether the key was seen before; remembers it. Two keys of one hash count as one (the second is kept at once): harmless. */
  #seenBefore (key: string): boolean {
    const hash = textHash(key)
    const slot = hash & (SEEN_SLOTS - 1)
    if (this.#seen[slot] === hash) return true
    this.#seen[slot] = hash
    return false
  }

  get size () {
    return this.#answers.size
  }

  #keep (key: string, kept: Kept): Kept {
    this.#answers.set(key, kept)
    return kept
  }

  clear () {
    this.#answers.clear()
    this.#seen.fill(0)
  }
}
