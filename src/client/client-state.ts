import type { Database } from '../db/types.js'
import { committedVersion } from '../events/events.store.js'

/** Answers kept, by ETag: a poll whose answer was built recently costs no query but the version. */
const RECENT_ANSWERS = 64

/**
 * The client API's caches, in one place. The state version (see committedVersion) is read at
 * most once per `cacheMs`, so SDK polls usually cost no query at all; the change feed calls
 * `forget()` after every commit (on any instance), so a change is served at once, and within
 * `cacheMs` while the feed is not listening. Answers are kept by ETag, which includes the
 * version: a kept answer is never served for a newer state.
 */
export class ClientState {
  #version = { value: '', expires: 0 }
  /** Moves on every forget(), so that a read that began before a commit is not kept after it. */
  #generation = 0
  /** The read under way: polls arriving meanwhile share it (one read per expiry, not one per poll). */
  #reading: Promise<string> | undefined
  readonly #answers = new Map<string, string>()

  constructor (
    private readonly db: Database,
    private readonly cacheMs: number
  ) {}

  async version (): Promise<string> {
    const now = Date.now()
    if (this.#version.expires > now) return this.#version.value
    if (this.#reading) return this.#reading
    const generation = this.#generation
    const reading: Promise<string> = committedVersion(this.db).then((value) => {
      if (this.cacheMs > 0 && generation === this.#generation) this.#version = { value, expires: now + this.cacheMs }
      return value
    }).finally(() => {
      if (this.#reading === reading) this.#reading = undefined
    })
    this.#reading = reading
    return reading
  }

  /** Something committed: the next read asks the database again (not joining one begun before). */
  forget (): void {
    this.#generation++
    this.#version = { value: '', expires: 0 }
    this.#reading = undefined
  }

  /** The answer kept for `etag`, or the one `build` makes (then kept). */
  async answer (etag: string, build: () => Promise<string>): Promise<string> {
    const kept = this.#answers.get(etag)
    if (kept !== undefined) return kept
    const built = await build()
    if (this.#answers.size >= RECENT_ANSWERS) this.#answers.delete(this.#answers.keys().next().value as string)
    this.#answers.set(etag, built)
    return built
  }
}
