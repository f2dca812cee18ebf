import { createHash } from 'node:crypto'
import type { TokenScope } from '../access/scope.js'
import type { ClientState } from '../client/client-state.js'
import { clientFeatures } from '../client/client.service.js'
import type { Database } from '../db/types.js'
import type { FrontendContext } from './context.js'
import { AnswerBuffers } from './buffers.js'
import { AnswerCache, Engine } from './engine.js'
import { type EvaluationContext, STATIC_CONTEXT } from './evaluator.js'

interface Entry {
  version: string
  engine: Promise<Engine>
  /** A hash of the client API's answer the engine was built from. */
  definitions: Promise<string>
}

/**
 * Evaluation engines, one per environment and project set, built from the client API's answer
 * for the current state version (read at most once per CLIENT_STATE_CACHE_MS, so a change is
 * evaluated within it). When the version moves, the answer is read again; an engine whose
 * features did not change is kept, with the answers kept for it. At most `max` engines; the
 * least recently used goes first. Concurrent requests share a build.
 */
export class Engines {
  readonly #entries = new Map<string, Entry>()
  readonly answers = new AnswerCache()
  readonly buffers = new AnswerBuffers()

  constructor (
    private readonly db: Database,
    private readonly state: ClientState,
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
    const version = await this.state.version()
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
    const answer = clientFeatures(this.db, token, { segments: true })
    const definitions = answer.then((a) => createHash('sha256').update(JSON.stringify([a.features, a.segments])).digest('base64url'))
    const engine = (async () => {
      const [a, hash] = await Promise.all([answer, definitions])
      if (previous !== undefined) {
        // The same features as before (a change elsewhere moved the version): the same engine.
        const same = await Promise.all([previous.engine, previous.definitions]).then(([e, h]) => (h === hash ? e : undefined), () => undefined)
        if (same !== undefined) return same
      }
      return new Engine({ features: a.features, segments: a.segments ?? [] })
    })()
    return { engine, definitions }
  }

  destroy () {
    this.#entries.clear()
    this.answers.clear()
  }
}

/**
 * The context the engine reads: what the SDK embedded in Unleash's frontend API fills in, then
 * the request's. Always the same fields in the same order (those absent undefined, which
 * JSON.stringify leaves out of the kept answers' key): the evaluator's reads of a field see one
 * shape of object, and two requests that give the same fields in another order share a key.
 */
const evaluationContext = (context: FrontendContext): EvaluationContext => ({
  appName: context.appName ?? STATIC_CONTEXT.appName,
  environment: context.environment ?? STATIC_CONTEXT.environment,
  userId: context.userId,
  sessionId: context.sessionId,
  remoteAddress: context.remoteAddress,
  currentTime: context.currentTime,
  properties: context.properties,
})

/** An answer: its ETag at once, its bytes only when they are sent. */
export interface Answer {
  etag: string
  /** The bytes, and what to call once they have been sent (the buffer is reused). */
  body: () => { bytes: Buffer; sent: () => void }
}

/** Answer bytes in a reusable buffer, given back once sent. */
function pooled (engines: Engines, write: (take: (length: number) => Buffer) => { buffer: Buffer; start: number; end: number }) {
  const { buffer, start, end } = write((n) => engines.buffers.take(n))
  return { bytes: buffer.subarray(start, end), sent: () => engines.buffers.give(buffer) }
}

/** The features of the token's environment and projects that are on for the context, with their variants. */
export async function frontendToggles (engines: Engines, token: TokenScope, context: FrontendContext): Promise<Answer> {
  const engine = await engines.for(token)
  const kept = engines.answers.outcomes(engine, evaluationContext(context))
  kept.frontendEtag ??= engine.etag(engine.frontend, kept.outcomes)
  return { etag: kept.frontendEtag, body: () => pooled(engines, (take) => engine.body(engine.frontend, kept.outcomes, take)) }
}

/** Every flag the token can see, as OFREP's bulk answer. */
export async function ofrepFlags (engines: Engines, token: TokenScope, context: FrontendContext): Promise<Answer> {
  const engine = await engines.for(token)
  const kept = engines.answers.outcomes(engine, evaluationContext(context))
  kept.ofrepEtag ??= engine.etag(engine.ofrep, kept.outcomes)
  return { etag: kept.ofrepEtag, body: () => pooled(engines, (take) => engine.body(engine.ofrep, kept.outcomes, take)) }
}

/** One flag as OFREP answers it, as JSON bytes; undefined when the token cannot see a flag of that name. */
export async function ofrepFlag (engines: Engines, token: TokenScope, key: string, context: FrontendContext): Promise<Buffer | undefined> {
  const engine = await engines.for(token)
  return engine.ofrepFlag(key, evaluationContext(context))
}
