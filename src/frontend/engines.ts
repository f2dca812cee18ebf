import { createHash } from 'node:crypto'
import type { TokenScope } from '../access/scope.js'
import type { EvaluatorState } from '../evaluation/compile.js'
import { AnswerCache } from './answer-cache.js'
import { Engine } from './engine.js'
import { AnswerBuffers } from './pooled-sending.js'

interface Entry {
  version: string
  engine: Promise<Engine>
  /** A hash of the client API's answer the engine was built from. */
  definitions: Promise<string>
}

/**
 * Where engines come from: a version that moves whenever the definitions of a token's scope may
 * have changed, and those definitions (the client API's answer for the token's environment and
 * projects, segments at the top level). On the server, the state version and the database
 * (`databaseEngineSource`); at a relay, its memory.
 */
export interface EngineSource {
  version(token: TokenScope): Promise<string>
  definitions(token: TokenScope): Promise<EvaluatorState>
}

/**
 * Evaluation engines, one per environment and project set, built from the client API's answer
 * for the current version (on the server read at most once per CLIENT_STATE_CACHE_MS, so a
 * change is evaluated within it). When the version moves, the answer is read again; an engine whose
 * features did not change is kept, with the answers kept for it. At most `max` engines; the
 * least recently used goes first. Concurrent requests share a build.
 */
export class Engines {
  readonly #entries = new Map<string, Entry>()
  /** Answers kept per context, for these engines. */
  readonly answers = new AnswerCache()
  /** Buffers lent to the answers being sent. */
  readonly buffers = new AnswerBuffers()

  constructor (
    private readonly source: EngineSource,
    private readonly max: number
  ) {}

  /** The key of a token's scope, made once per token object (a cached token is the same object on every request). */
  readonly #keys = new WeakMap<TokenScope, string>()

  async for (token: TokenScope): Promise<Engine> {
    let key = this.#keys.get(token)
    if (key === undefined) {
      key = JSON.stringify([token.environments[0], token.projects])
      this.#keys.set(token, key)
    }
    const version = await this.source.version(token)
    const entry = this.#entries.get(key)
    this.#entries.delete(key)
    if (entry && entry.version === version) {
      this.#entries.set(key, entry)
      return entry.engine
    }
    const next = this.#build(token, entry)
    this.#entries.set(key, { version, ...next })
    next.engine.catch(() => {
      if (this.#entries.get(key)?.engine === next.engine) this.#entries.delete(key)
    })
    while (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value as string)
    return next.engine
  }

  #build (token: TokenScope, previous: Entry | undefined): Pick<Entry, 'engine' | 'definitions'> {
    const answer = this.source.definitions(token)
    const definitions = answer.then((a) => createHash('sha256').update(JSON.stringify([a.features, a.segments])).digest('base64url'))
    const engine = (async () => {
      const [a, hash] = await Promise.all([answer, definitions])
      if (previous !== undefined) {
        // The same features as before (a change elsewhere moved the version): the same engine.
        const same = await Promise.all([previous.engine, previous.definitions]).then(([e, h]) => (h === hash ? e : undefined), () => undefined)
        if (same !== undefined) return same
      }
      return new Engine(a)
    })()
    return { engine, definitions }
  }

  destroy () {
    this.#entries.clear()
    this.answers.clear()
  }
}
