import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import {
  type CompiledFeature,
  compileFeatures,
  Evaluation,
  type EvaluationContext,
  type EvaluatorState,
  OFF,
  type Outcome,
  staticOutcome,
  variantAnswer,
} from './evaluator.js'
import { ofrepResult } from './ofrep.js'

/** One evaluated answer: an outcome per feature evaluated per request, and whether it may be kept. */
export interface Outcomes {
  values: Uint16Array | Uint32Array
  /** Neither randomness nor the clock was used: the same context always gets this answer. */
  cacheable: boolean
}

/** Where an answer's bytes come from: fixed runs between the fragments of the features evaluated per request. */
interface Layout {
  head: Buffer
  /** runs[k]: the features answered the same for everyone between per-request features k - 1 and k, each after a comma. */
  runs: Buffer[]
  tail: Buffer
  /** The fragment (after a comma) of per-request feature d for an outcome; empty when the feature is left out. */
  fragment: (d: number, outcome: Outcome) => Buffer
  /** A hash of everything the answer's bytes depend on besides the outcomes. */
  fingerprint: string
}

const COMMA = Buffer.from(',')
const EMPTY = Buffer.alloc(0)

/** A frontend API toggle (enabled features only, as Unleash answers). */
const toggleJson = (feature: CompiledFeature, outcome: Outcome) =>
  JSON.stringify({ name: feature.name, enabled: true, variant: variantAnswer(feature, outcome), impressionData: feature.impressionData })

/** An OFREP flag (every feature). */
const ofrepJson = (feature: CompiledFeature, outcome: Outcome) => JSON.stringify(ofrepResult(feature.name, variantAnswer(feature, outcome), feature.project))

let engines = 0

/**
 * An evaluation engine for one environment and project set at one state version: the compiled
 * features; those whose answer is the same for every context (off, on for everyone, a rollout at
 * 0 or 100 %, a single variant) answered once, bytes included; the rest evaluated per request
 * and their answers assembled from fragments serialised once per outcome. The bytes are those
 * JSON.stringify gives for the answer the official SDK computes.
 */
export class Engine {
  /** Unique in this process: keys of kept answers never outlive their engine. */
  readonly id = ++engines
  readonly features: CompiledFeature[]
  /** Indexes (into features) of the features evaluated per request, in order. */
  readonly dynamic: number[]
  readonly #byName: Map<string, number>
  readonly #static: (Outcome | undefined)[]
  readonly #wide: boolean
  readonly #evaluators: ((e: Evaluation) => Outcome)[]
  readonly frontend: Layout
  readonly ofrep: Layout
  /** Single-flag OFREP answers, by feature and outcome, made on first use. */
  readonly #ofrepOne: (Buffer | undefined)[][]

  constructor (state: EvaluatorState) {
    this.features = compileFeatures(state)
    this.#byName = new Map(this.features.map((f, i) => [f.name, i]))
    this.#static = this.features.map(staticOutcome)
    this.dynamic = this.features.flatMap((_, i) => (this.#static[i] === undefined ? [i] : []))
    this.#evaluators = this.dynamic.map((i) => this.features[i]!.outcome)
    this.#wide = this.features.some((f) => f.choices.length + 2 > 0xffff)
    this.#ofrepOne = this.features.map(() => [])
    const descriptors = JSON.stringify(this.features.map((f, i) => [f.name, f.project, f.impressionData, f.choices, this.#static[i] ?? -1]))
    const fingerprint = createHash('sha256').update(descriptors).digest('base64url')
    this.frontend = this.#layout('{"toggles":[', ']}', `frontend:${fingerprint}`, (f, o) => (o === OFF ? undefined : toggleJson(f, o)))
    this.ofrep = this.#layout('{"flags":[', ']}', `ofrep:${fingerprint}`, ofrepJson)
  }

  #layout (head: string, tail: string, fingerprint: string, json: (f: CompiledFeature, o: Outcome) => string | undefined): Layout {
    const runs: Buffer[] = []
    let run: string[] = []
    for (let i = 0; i < this.features.length; i++) {
      const outcome = this.#static[i]
      if (outcome === undefined) {
        runs.push(Buffer.from(run.join('')))
        run = []
      } else {
        const text = json(this.features[i]!, outcome)
        if (text !== undefined) run.push(`,${text}`)
      }
    }
    runs.push(Buffer.from(run.join('')))
    const fragments: Buffer[][] = this.dynamic.map(() => [])
    const fragment = (d: number, outcome: Outcome) => {
      let bytes = fragments[d]![outcome]
      if (bytes === undefined) {
        const text = json(this.features[this.dynamic[d]!]!, outcome)
        bytes = text === undefined ? EMPTY : Buffer.concat([COMMA, Buffer.from(text)])
        fragments[d]![outcome] = bytes
      }
      return bytes
    }
    return { head: Buffer.from(head), runs, tail: Buffer.from(tail), fragment, fingerprint }
  }

  /** The features evaluated per request, for this context. */
  evaluate (context: EvaluationContext): Outcomes {
    const values = this.#wide ? new Uint32Array(this.dynamic.length) : new Uint16Array(this.dynamic.length)
    const e = new Evaluation(context)
    const evaluators = this.#evaluators
    for (let d = 0; d < evaluators.length; d++) values[d] = evaluators[d]!(e)
    return { values, cacheable: !e.drew }
  }

  /**
   * The answer's bytes, written into a buffer `take` gives (at least as long as asked); returns
   * that buffer and the answer's length in it.
   */
  body (layout: Layout, outcomes: Outcomes['values'], take: (length: number) => Buffer = Buffer.allocUnsafe): { buffer: Buffer; length: number } {
    const parts: Buffer[] = [layout.head]
    let length = layout.head.length
    let first = true
    const add = (bytes: Buffer) => {
      if (bytes.length === 0) return
      const part = first ? bytes.subarray(1) : bytes
      first = false
      parts.push(part)
      length += part.length
    }
    add(layout.runs[0]!)
    for (let d = 0; d < outcomes.length; d++) {
      add(layout.fragment(d, outcomes[d]!))
      add(layout.runs[d + 1]!)
    }
    parts.push(layout.tail)
    length += layout.tail.length
    const buffer = take(length)
    let at = 0
    for (const part of parts) at += part.copy(buffer, at)
    return { buffer, length }
  }

  /** The answer's bytes, in a buffer of their own. */
  bytes (layout: Layout, outcomes: Outcomes['values']): Buffer {
    const { buffer, length } = this.body(layout, outcomes)
    return buffer.subarray(0, length)
  }

  /**
   * The answer's ETag: a hash of what its bytes depend on (the features' names, projects,
   * variants and fixed answers, and the outcomes), so that equal answers under a newer state
   * version keep their tag, and any two answers that differ have different ones.
   */
  etag (layout: Layout, outcomes: Outcomes['values']): string {
    const hash = createHash('sha256').update(layout.fingerprint).update(new Uint8Array(outcomes.buffer, outcomes.byteOffset, outcomes.byteLength))
    return `"${hash.digest('base64url').slice(0, 27)}"`
  }

  has (name: string): boolean {
    return this.#byName.has(name)
  }

  /** One flag as OFREP answers it, as JSON bytes; undefined when there is no such flag. */
  ofrepFlag (name: string, context: EvaluationContext): Buffer | undefined {
    const i = this.#byName.get(name)
    if (i === undefined) return undefined
    const outcome = this.#static[i] ?? this.features[i]!.outcome(new Evaluation(context))
    const kept = this.#ofrepOne[i]!
    return (kept[outcome] ??= Buffer.from(ofrepJson(this.features[i]!, outcome)))
  }
}

/** Answers kept per context: at most this many, and this many bytes (keys included). */
export const ANSWER_CACHE_ENTRIES = 20_000
export const ANSWER_CACHE_BYTES = 32 * 1024 * 1024
/** A context whose text is longer than this is evaluated every time and never kept. */
const MAX_KEY_LENGTH = 2048

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
 */
export class AnswerCache {
  readonly #answers: LRUCache<string, Kept>

  constructor (entries = ANSWER_CACHE_ENTRIES, bytes = ANSWER_CACHE_BYTES) {
    this.#answers = new LRUCache<string, Kept>({
      max: entries,
      maxSize: bytes,
      sizeCalculation: (kept, key) => key.length * 2 + kept.outcomes.byteLength + 200,
    })
  }

  /** The outcomes for a context, kept or evaluated (and kept when the context determines them). */
  outcomes (engine: Engine, context: EvaluationContext): Kept {
    if (engine.dynamic.length === 0) return this.#answers.get(`${engine.id}`) ?? this.#keep(`${engine.id}`, { outcomes: engine.evaluate(context).values })
    const text = JSON.stringify(context)
    const key = text.length <= MAX_KEY_LENGTH ? `${engine.id}\n${text}` : undefined
    const kept = key === undefined ? undefined : this.#answers.get(key)
    if (kept !== undefined) return kept
    const evaluated = engine.evaluate(context)
    const fresh = { outcomes: evaluated.values }
    return key !== undefined && evaluated.cacheable ? this.#keep(key, fresh) : fresh
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
  }
}
