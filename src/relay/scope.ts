import { ALL, type TokenScope } from '../access/scope.js'
import { usedSegmentIds } from '../client/client-answer.js'
import type { ClientFeature, ClientSegment } from '../client/client.schemas.js'
import type { ClientSnapshot } from '../client/client.service.js'
import type { DeltaEvent } from '../streaming/streaming.schemas.js'

/** Changes a scope remembers for SDKs that come back with an older revision: beyond, they get a hydration. */
export const REPLAY_EVENTS = 1000

/** Where a scope's state came from: a stream (its revisions are the upstream's), polls, or the backup folder. */
export type Origin = 'stream' | 'poll' | 'backup'

/** A value held, one object for the same JSON (so that unchanged features keep their objects, and a change is told from a repetition by identity). */
interface Held<T> {
  readonly value: T
  readonly json: string
}

/**
 * Held values by their JSON, shared by every scope of the process: scopes of one environment
 * overlap (a token for projects a and b, another for a and c), and a feature both hold is one
 * object in memory, not one per scope. An entry goes once no scope holds its value.
 */
class SharedHeld<T> {
  readonly #byJson = new Map<string, WeakRef<Held<T>>>()
  readonly #gone = new FinalizationRegistry<string>((json) => {
    if (this.#byJson.get(json)?.deref() === undefined) this.#byJson.delete(json)
  })

  /** The held value for `value`: the one some scope holds already when its JSON is the same. */
  of (value: T): Held<T> {
    const json = JSON.stringify(value)
    const shared = this.#byJson.get(json)?.deref()
    if (shared !== undefined) return shared
    const held = { value, json }
    this.#byJson.set(json, new WeakRef(held))
    this.#gone.register(held, json)
    return held
  }
}

const sharedFeatures = new SharedHeld<ClientFeature>()
const sharedSegments = new SharedHeld<ClientSegment>()

/** One applied change: the events it made and the revision they bring an SDK to; `seq` orders changes of every scope. */
export interface LoggedChange {
  seq: number
  revision: bigint
  events: DeltaEvent[]
}

/** The key of a client token's scope: its environment and projects (sorted; null for all). */
export function scopeKey (environment: string, projects: readonly string[]): string {
  return JSON.stringify([environment, projects.includes(ALL) ? null : [...projects].sort(), null, null])
}

/**
 * The flags of one scope (an environment and project set, a client token's), held in memory: its
 * features in the client API's shape (segments by id), the segments they use, and its revision,
 * which moves with every change. Whatever comes from upstream (a hydration, a change, a poll's
 * whole answer) is compared with what is held and becomes events: the features and segments
 * that differ. SDKs get those events, and one that comes back with a recent revision gets the
 * ones it missed (up to REPLAY_EVENTS).
 */
export class ScopeState {
  readonly key: string
  readonly environment: string
  /** The projects, sorted, or undefined for all. */
  readonly projects: readonly string[] | undefined
  /** 0 until the first state arrives. */
  revision = 0n
  origin: Origin = 'poll'
  /** The upstream's ETag of its last answer (polls), sent back as If-None-Match. */
  upstreamEtag: string | undefined
  /** When the upstream was last heard from for this scope (a poll's answer, a stream's message or keep-alive). */
  lastRefresh = 0
  /** False once the scope is dropped (its last token deleted upstream). */
  alive = true
  readonly #features = new Map<string, Held<ClientFeature>>()
  readonly #segments = new Map<number, Held<ClientSegment>>()
  #log: LoggedChange[] = []
  /** The revision before the first change in the log: an SDK holding it can be caught up. */
  #logBase = 0n
  /** The newest seq dropped from the log: a reader behind it cannot be caught up from the log. */
  trimmedSeq = 0
  #snapshot: ClientSnapshot | undefined
  #readyWaiters: (() => void)[] = []
  /** Answers made from this revision (prepared bytes), cleared at each change. */
  readonly prepared = new Map<string, { etag: string; bytes: Buffer }>()

  constructor (environment: string, projects: readonly string[]) {
    this.key = scopeKey(environment, projects)
    this.environment = environment
    this.projects = projects.includes(ALL) ? undefined : [...projects].sort()
  }

  #tag: { revision: bigint; text: string } | undefined

  /** A text naming this scope at this revision (the frontend engines' version). */
  get tag (): string {
    if (this.#tag?.revision !== this.revision) this.#tag = { revision: this.revision, text: `${this.key}@${this.revision}` }
    return this.#tag.text
  }

  get ready (): boolean {
    return this.revision > 0n
  }

  /** Resolves once the scope holds a state. */
  whenReady (): Promise<void> {
    if (this.ready) return Promise.resolve()
    return new Promise((resolve) => this.#readyWaiters.push(resolve))
  }

  /** The project of a flag this scope holds (undefined: not held). */
  projectOf (featureName: string): string | undefined {
    return this.#features.get(featureName)?.value.project
  }

  /** Whether a token of this environment and these projects may be served from this scope. */
  covers (token: TokenScope): boolean {
    if (token.environments[0] !== this.environment) return false
    if (this.projects === undefined) return true
    return !token.projects.includes(ALL) && token.projects.every((p) => this.projects!.includes(p))
  }

  /** Everything held: the features in order and the segments they use. */
  snapshot (): ClientSnapshot {
    if (this.#snapshot === undefined) {
      const features = [...this.#features.values()].map((h) => h.value)
      this.#snapshot = { features, segments: usedSegmentIds(features).flatMap((id) => this.#segments.get(id)?.value ?? []) }
    }
    return this.#snapshot
  }

  /** The hydration event of the current state. */
  hydration (): DeltaEvent {
    const { features, segments } = this.snapshot()
    return { type: 'hydration', eventId: Number(this.revision), features, segments }
  }

  /**
   * The events an SDK holding `held` needs: none when it holds the current revision, the
   * logged ones after it when it holds a recent one, undefined when only a hydration will do.
   */
  since (held: bigint | undefined): DeltaEvent[] | undefined {
    if (held === undefined) return undefined
    if (held === this.revision) return []
    if (held === this.#logBase) return this.#log.flatMap((c) => c.events)
    const at = this.#log.findIndex((c) => c.revision === held)
    return at < 0 ? undefined : this.#log.slice(at + 1).flatMap((c) => c.events)
  }

  /** The logged changes after `seq` (for open streams), or undefined when the log no longer reaches back that far. */
  changesAfter (seq: number): LoggedChange[] | undefined {
    if (this.trimmedSeq > seq) return undefined
    return this.#log.filter((c) => c.seq > seq)
  }

  /**
   * Makes the held state `features` and `segments` (the upstream's whole state), at `revision`
   * when the upstream gives one. Returns the events of what differs (none: nothing changed, and
   * the revision stays as it is unless it was not set).
   */
  replace (features: readonly ClientFeature[], segments: readonly ClientSegment[], revision: bigint | undefined, seq: () => number): DeltaEvent[] {
    const nextFeatures = new Map<string, Held<ClientFeature>>(features.map((f) => [f.name, sharedFeatures.of(f)]))
    const used = new Set(usedSegmentIds(features))
    const nextSegments = new Map<number, Held<ClientSegment>>(segments.filter((s) => used.has(s.id)).map((s) => [s.id, sharedSegments.of(s)]))
    return this.#commit(nextFeatures, nextSegments, revision, seq, false)
  }

  /** Applies the upstream's change events (a stream's update) to what is held; returns the events of what differs. */
  apply (events: readonly DeltaEvent[], revision: bigint | undefined, seq: () => number): DeltaEvent[] {
    let features = new Map(this.#features)
    const segments = new Map(this.#segments)
    const added = new Set<string>()
    for (const event of events) {
      switch (event.type) {
        case 'hydration':
          features.clear()
          segments.clear()
          added.clear()
          for (const f of event.features) features.set(f.name, sharedFeatures.of(f))
          for (const s of event.segments) segments.set(s.id, sharedSegments.of(s))
          break
        case 'feature-updated':
          if (!features.has(event.feature.name)) added.add(event.feature.name)
          features.set(event.feature.name, sharedFeatures.of(event.feature))
          break
        case 'feature-removed':
          features.delete(event.featureName)
          break
        case 'segment-updated':
          segments.set(event.segment.id, sharedSegments.of(event.segment))
          break
        case 'segment-removed':
          segments.delete(event.segmentId)
          break
      }
    }
    if (added.size > 0) features = inNameOrder(features, added)
    const used = new Set(usedSegmentIds([...features.values()].map((h) => h.value)))
    for (const id of segments.keys()) if (!used.has(id)) segments.delete(id)
    return this.#commit(features, segments, revision, seq, true)
  }

  /**
   * Makes `features` and `segments` the held state. `adopt`: a stream's revision is taken even
   * when nothing held changed (the upstream's update concerned something the scope does not
   * hold, an unused segment), so that the relay's revision stays the upstream's.
   */
  #commit (features: Map<string, Held<ClientFeature>>, segments: Map<number, Held<ClientSegment>>, revision: bigint | undefined, seq: () => number, adopt: boolean): DeltaEvent[] {
    const changed: DeltaEvent[] = []
    const removed: DeltaEvent[] = []
    const first = !this.ready
    // The revision the events bring an SDK to: the upstream's, unless it does not move past what is held.
    const next = revision !== undefined && revision !== this.revision && revision > 0n ? revision : this.revision + 1n
    const eventId = Number(next)
    for (const [id, held] of segments) if (this.#segments.get(id) !== held) changed.push({ type: 'segment-updated', eventId, segment: held.value })
    for (const [name, held] of features) if (this.#features.get(name) !== held) changed.push({ type: 'feature-updated', eventId, feature: held.value })
    for (const [name, held] of this.#features) if (!features.has(name)) changed.push({ type: 'feature-removed', eventId, featureName: name, project: held.value.project })
    for (const id of this.#segments.keys()) if (!segments.has(id)) removed.push({ type: 'segment-removed', eventId, segmentId: id })
    const events = [...changed, ...removed]
    // The order of features is the upstream's: when only that changed, the new order is kept without an event.
    const reordered = events.length === 0 && !sameOrder(this.#features, features)
    if (events.length === 0 && !first) {
      if (reordered) this.#replaceMaps(features, segments)
      if (adopt && revision !== undefined && revision > 0n && revision !== this.revision) {
        this.prepared.clear()
        this.revision = revision
        this.#log.push({ seq: seq(), revision, events: [] })
        this.#trim()
      }
      return []
    }
    this.#replaceMaps(features, segments)
    this.revision = first && revision !== undefined && revision > 0n ? revision : next
    if (first) {
      for (const resolve of this.#readyWaiters.splice(0)) resolve()
      this.#logBase = this.revision
      return events
    }
    this.#log.push({ seq: seq(), revision: this.revision, events })
    this.#trim()
    return events
  }

  /** Keeps at most REPLAY_EVENTS events (and as many changes) in the log, the newest. */
  #trim () {
    let total = this.#log.reduce((n, c) => n + c.events.length, 0)
    while ((total > REPLAY_EVENTS || this.#log.length > REPLAY_EVENTS) && this.#log.length > 1) {
      const dropped = this.#log.shift()!
      total -= dropped.events.length
      this.#logBase = dropped.revision
      this.trimmedSeq = dropped.seq
    }
  }

  #replaceMaps (features: Map<string, Held<ClientFeature>>, segments: Map<number, Held<ClientSegment>>) {
    this.#features.clear()
    for (const [k, v] of features) this.#features.set(k, v)
    this.#segments.clear()
    for (const [k, v] of segments) this.#segments.set(k, v)
    this.#snapshot = undefined
    this.prepared.clear()
  }
}

/**
 * The features with those `added` (by a change) placed in name order among the others, which
 * keep the upstream's order: where the upstream orders by name (this server, on PostgreSQL's C
 * and musl collations; Unleash), the order it would give.
 */
function inNameOrder<T> (features: Map<string, T>, added: Set<string>): Map<string, T> {
  const kept = [...features.keys()].filter((name) => !added.has(name))
  const fresh = [...added].filter((name) => features.has(name)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const ordered: string[] = []
  let i = 0
  for (const name of fresh) {
    while (i < kept.length && kept[i]! < name) ordered.push(kept[i++]!)
    ordered.push(name)
  }
  ordered.push(...kept.slice(i))
  return new Map(ordered.map((name) => [name, features.get(name)!]))
}

function sameOrder<T> (a: Map<string, T>, b: Map<string, T>): boolean {
  if (a.size !== b.size) return false
  const keys = b.keys()
  for (const key of a.keys()) if (keys.next().value !== key) return false
  return true
}
