import { createHash, hash } from 'node:crypto'
import { type CompiledFeature, compileState, type EvaluatorState, staticOutcome } from '../evaluation/compile.js'
import { Evaluation, type EvaluationContext } from '../evaluation/context.js'
import { OFF, type Outcome, variantAnswer } from '../evaluation/variants.js'
import { ofrepResult } from './ofrep.js'

/** One evaluated answer: an outcome per feature evaluated per request, and whether it may be kept. */
export interface Outcomes {
  values: Uint16Array | Uint32Array
  /** Neither randomness nor the clock was used: the same context always gets this answer. */
  cacheable: boolean
}

/**
 * Where an answer's bytes come from: the fixed bytes before the first feature evaluated per
 * request, then for each unit (one such feature, or two in a row) its piece for their outcomes
 * (and the fixed bytes after it when they are not in the piece); every piece and run of fixed
 * bytes starts with a comma unless empty. The pieces of every outcome are serialised when the
 * engine is built, into one buffer in answer order: assembling an answer is a walk forward
 * through it.
 */
interface Layout {
  head: Uint8Array
  /** The features answered the same for everyone before the first feature evaluated per request, each after a comma. */
  lead: Uint8Array
  tail: Uint8Array
  /**
   * Unit u's piece for the outcomes o of the features evaluated per request is
   * pieces[first[u] + o[a[u]] * times[u] + o[b[u]]]: for one feature, b[u] = a[u] and times[u]
   * = 0; for two in a row, b[u] = a[u] + 1 and times[u] the second's number of outcomes.
   */
  first: Uint32Array
  a: Uint32Array
  b: Uint32Array
  times: Uint32Array
  /** A unit's fragments for its outcomes (each after a comma; empty when left out), each followed by the fixed features up to the next per-request feature when they are few. */
  pieces: Uint8Array[]
  /** after[u]: the fixed features after unit u when not in its pieces (else empty). */
  after: Uint8Array[]
  /** sha256 of everything the answer's bytes depend on besides the outcomes, then room for the outcomes (the ETag's input). */
  tagInput: Buffer
}

/** Fixed bytes up to this long after a per-request feature are copied into each of its pieces (one copy less per answer); longer ones are copied on their own. */
const MERGE_LIMIT = 512
/**
 * Two per-request features in a row with no long run of fixed bytes between them share one
 * piece per pair of outcomes when they have at most this many pairs (two features of two
 * outcomes each: on or off): half the copies for such features, for twice their pieces' bytes.
 */
const PAIR_LIMIT = 4

/** A plain byte view (TypedArray#set copies from one faster than from a Buffer). */
const view = (bytes: Buffer) => new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length)

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
  /** Memo slots of an evaluation (constraints several strategies share). */
  readonly #memoSlots: number
  readonly #evaluators: ((e: Evaluation) => Outcome)[]
  readonly frontend: Layout
  readonly ofrep: Layout
  /** Single-flag OFREP answers, by feature and outcome, made on first use. */
  readonly #ofrepOne: (Buffer | undefined)[][]

  constructor (state: EvaluatorState) {
    const compiled = compileState(state)
    this.features = compiled.features
    this.#memoSlots = compiled.memoSlots
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
    const runs: string[] = []
    let run: string[] = []
    for (let i = 0; i < this.features.length; i++) {
      const outcome = this.#static[i]
      if (outcome === undefined) {
        runs.push(run.join(''))
        run = []
      } else {
        const text = json(this.features[i]!, outcome)
        if (text !== undefined) run.push(`,${text}`)
      }
    }
    runs.push(run.join(''))
    // Each per-request feature's fragment for each outcome, with the fixed run after it when short.
    const single: Buffer[][] = []
    const merged: boolean[] = []
    const runAfter: Uint8Array[] = []
    const counts = this.dynamic.map((i) => this.features[i]!.choices.length + 2)
    for (let d = 0; d < this.dynamic.length; d++) {
      const feature = this.features[this.dynamic[d]!]!
      const next = Buffer.from(runs[d + 1]!)
      merged.push(next.length <= MERGE_LIMIT)
      runAfter.push(merged[d] ? new Uint8Array(0) : view(next))
      single.push(Array.from({ length: counts[d]! }, (_, outcome) => {
        const text = json(feature, outcome)
        return Buffer.from(`${text === undefined ? '' : `,${text}`}${merged[d] ? runs[d + 1] : ''}`)
      }))
    }
    const first: number[] = []
    const a: number[] = []
    const b: number[] = []
    const times: number[] = []
    const after: Uint8Array[] = []
    const texts: Buffer[] = []
    for (let d = 0; d < this.dynamic.length;) {
      const pair = d + 1 < this.dynamic.length && merged[d]! && counts[d]! * counts[d + 1]! <= PAIR_LIMIT
      first.push(texts.length)
      a.push(d)
      if (pair) {
        for (const one of single[d]!) for (const two of single[d + 1]!) texts.push(Buffer.concat([one, two]))
        b.push(d + 1)
        times.push(counts[d + 1]!)
        after.push(runAfter[d + 1]!)
        d += 2
      } else {
        for (const one of single[d]!) texts.push(one)
        b.push(d)
        times.push(0)
        after.push(runAfter[d]!)
        d += 1
      }
    }
    const slab = Buffer.concat(texts)
    let at = 0
    const pieces = texts.map((t) => {
      at += t.length
      return new Uint8Array(slab.buffer, slab.byteOffset + at - t.length, t.length)
    })
    const digest = createHash('sha256').update(fingerprint).digest()
    const tagInput = Buffer.alloc(digest.length + this.dynamic.length * (this.#wide ? 4 : 2))
    digest.copy(tagInput)
    return {
      head: view(Buffer.from(head)),
      lead: view(Buffer.from(runs[0]!)),
      tail: view(Buffer.from(tail)),
      first: Uint32Array.from(first),
      a: Uint32Array.from(a),
      b: Uint32Array.from(b),
      times: Uint32Array.from(times),
      pieces,
      after,
      tagInput,
    }
  }

  /** The features evaluated per request, for this context. */
  evaluate (context: EvaluationContext): Outcomes {
    const values = this.#wide ? new Uint32Array(this.dynamic.length) : new Uint16Array(this.dynamic.length)
    const e = new Evaluation(context, this.#memoSlots)
    const evaluators = this.#evaluators
    for (let d = 0; d < evaluators.length; d++) values[d] = evaluators[d]!(e)
    return { values, cacheable: !e.drew }
  }

  /**
   * The answer's bytes, written into a buffer `take` gives (at least as long as asked); returns
   * that buffer and where the answer starts and ends in it. The pieces are written after the
   * head, each with its leading comma; the head is then written one byte later, so that its last
   * byte covers the first comma (the answer then starts at 1).
   */
  body (layout: Layout, outcomes: Outcomes['values'], take: (length: number) => Buffer = Buffer.allocUnsafe): { buffer: Buffer; start: number; end: number } {
    const { head, lead, tail, first, a, b, times, pieces, after } = layout
    const units = first.length
    let length = head.length + lead.length + tail.length
    for (let u = 0; u < units; u++) length += pieces[first[u]! + outcomes[a[u]!]! * times[u]! + outcomes[b[u]!]!]!.length + after[u]!.length
    const buffer = take(length)
    const out = new Uint8Array(buffer.buffer, buffer.byteOffset, length)
    let at = head.length
    out.set(lead, at)
    at += lead.length
    for (let u = 0; u < units; u++) {
      const bytes = pieces[first[u]! + outcomes[a[u]!]! * times[u]! + outcomes[b[u]!]!]!
      out.set(bytes, at)
      at += bytes.length
      const rest = after[u]!
      if (rest.length > 0) {
        out.set(rest, at)
        at += rest.length
      }
    }
    out.set(tail, at)
    // Something after the head: it starts with a comma, which the head's last byte replaces.
    const start = at > head.length ? 1 : 0
    out.set(head, start)
    return { buffer, start, end: length }
  }

  /** The answer's bytes, in a buffer of their own. */
  bytes (layout: Layout, outcomes: Outcomes['values']): Buffer {
    const { buffer, start, end } = this.body(layout, outcomes)
    return buffer.subarray(start, end)
  }

  /**
   * The answer's ETag: a hash of what its bytes depend on (the features' names, projects,
   * variants and fixed answers, and the outcomes), so that equal answers under a newer state
   * version keep their tag, and any two answers that differ have different ones.
   */
  etag (layout: Layout, outcomes: Outcomes['values']): string {
    const input = layout.tagInput
    input.set(new Uint8Array(outcomes.buffer, outcomes.byteOffset, outcomes.byteLength), input.length - outcomes.byteLength)
    return `"${hash('sha256', input, 'base64url').slice(0, 27)}"`
  }

  has (name: string): boolean {
    return this.#byName.has(name)
  }

  /** One flag as OFREP answers it, as JSON bytes; undefined when there is no such flag. */
  ofrepFlag (name: string, context: EvaluationContext): Buffer | undefined {
    const i = this.#byName.get(name)
    if (i === undefined) return undefined
    const outcome = this.#static[i] ?? this.features[i]!.outcome(new Evaluation(context, this.#memoSlots))
    const kept = this.#ofrepOne[i]!
    return (kept[outcome] ??= Buffer.from(ofrepJson(this.features[i]!, outcome)))
  }
}
