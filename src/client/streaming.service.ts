import type { TokenScope } from '../access/scope.js'
import type { Database, Queryable } from '../db/types.js'
import { ApiError } from '../errors.js'
import type { ChangeFeed, ChangeFeedLog } from '../events/change-feed.js'
import type { ClientSegment } from './client.schemas.js'
import { clientFilter, outsideScope, readClientState } from './client.service.js'
import { type ClientFilter, listClientSegments } from './client.store.js'
import { type DeltaEvent, REVISION_PATTERN } from './streaming.schemas.js'
import { anyEventFrom, type ChangeRow, changesBetween, type Horizon, isRevision, readHorizon, readWatermark, revisionBelow, tokensDeletedBetween, WIDE_EVENTS } from './streaming.store.js'

/*
 * Revisions. Every event stores the id of the transaction that wrote it (xact_id). A reader
 * computes a watermark below which every transaction of this database has finished (see
 * readWatermark), so the events below it are final; an event id, taken from a sequence at
 * insert, would not do: a transaction can commit after another with a larger id. The revision
 * is one more than the transaction id of the last event below the watermark that clients care
 * about: "every such event below this number". It names a set of events, so every instance
 * computes the same one, it only grows, and a revision a client sends back is known when it is
 * the current one or one more than an event's transaction id.
 */

/** What one scope of SDKs is served: the client filter of its token (and query). */
export interface StreamScope {
  key: string
  filter: ClientFilter
}

export const scopeOf = (token: TokenScope, query: { namePrefix?: string | undefined; project?: string | undefined } = {}): StreamScope => {
  const filter = clientFilter(token, query)
  return { key: JSON.stringify([filter.environment, filter.projects ?? null, filter.project ?? null, filter.namePrefix ?? null]), filter }
}

/** A revision as sent back (Last-Event-ID, If-None-Match: "N", W/"N" or N); undefined when it is none. */
export function parseRevision (header: string | undefined): bigint | undefined {
  if (header === undefined) return undefined
  const opaque = header.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1')
  if (!REVISION_PATTERN.test(opaque)) return undefined
  const value = BigInt(opaque)
  return value <= 9223372036854775807n ? value : undefined
}

/** What a reader at revision `from` needs to catch up to `revision`. */
type Plan =
  | { kind: 'up-to-date'; revision: bigint }
  | { kind: 'hydrate'; revision: bigint }
  | { kind: 'changes'; revision: bigint; changes: ChangeRow[] }

/** The snapshot's watermark and current revision: read first in a repeatable-read transaction begun after `horizon` was read. */
async function readPosition (q: Queryable, horizon: Horizon) {
  const watermark = await readWatermark(q, horizon)
  return { watermark, revision: await revisionBelow(q, watermark) }
}

/**
 * How a reader at `from` catches up: nothing (it holds the current revision), the events since
 * (at most `limit`), or a hydration (no revision, one this database never gave out or not yet,
 * or too far behind). Never "up to date" for a revision the server does not know.
 */
async function planFrom (q: Queryable, position: { watermark: bigint; revision: bigint }, from: bigint | undefined, limit: number): Promise<Plan> {
  const { watermark, revision } = position
  if (from === revision) return { kind: 'up-to-date', revision }
  if (from === undefined || from > revision || !(await isRevision(q, from))) return { kind: 'hydrate', revision }
  const changes = await changesBetween(q, from, watermark, limit + 1)
  return changes.length > limit ? { kind: 'hydrate', revision } : { kind: 'changes', revision, changes }
}

/** Whether a change may concern the SDKs of a filter (an event about an environment, project or name they do not read does not). */
function concerns (filter: ClientFilter, change: ChangeRow): boolean {
  if (change.environment !== null && change.environment !== filter.environment) return false
  if (change.project !== null) {
    if (filter.projects !== undefined && !filter.projects.includes(change.project)) return false
    if (filter.project !== undefined && filter.project !== change.project) return false
  }
  return change.feature_name === null || filter.namePrefix === undefined || change.feature_name.startsWith(filter.namePrefix)
}

const eventIdOf = (change: ChangeRow) => Number(BigInt(change.xact_id) + 1n)

/** Everything a scope's SDK holds, replaced: the client-API features of the scope and the segments they use. */
async function hydration (q: Queryable, filter: ClientFilter, revision: bigint): Promise<DeltaEvent> {
  const state = outsideScope(filter) ? { features: [], segments: [] } : await readClientState(q, filter, false)
  return { type: 'hydration', eventId: Number(revision), features: state.features, segments: state.segments }
}

/**
 * The updates of a scope for `changes`, read in the caller's snapshot: each feature changed, once,
 * as the client API holds it now (feature-updated), or feature-removed when it is no longer
 * served; segment-updated first for the segments the updated features use and for changed
 * segments the scope uses; segment-removed last. A change that adds or removes features without
 * naming them (an import, an environment added) makes it a hydration.
 */
async function updatesFor (q: Queryable, filter: ClientFilter, changes: readonly ChangeRow[], revision: bigint): Promise<DeltaEvent[]> {
  const relevant = outsideScope(filter) ? [] : changes.filter((c) => concerns(filter, c))
  if (relevant.length === 0) return []
  if (relevant.some((c) => (WIDE_EVENTS as readonly string[]).includes(c.type))) return [await hydration(q, filter, revision)]
  // The last change of each feature and segment decides its place.
  const features = new Map<string, { eventId: number; project: string }>()
  const segments = new Map<number, { eventId: number; deleted: boolean }>()
  for (const change of relevant) {
    const eventId = eventIdOf(change)
    if (change.feature_name !== null) {
      features.delete(change.feature_name)
      features.set(change.feature_name, { eventId, project: change.project ?? '' })
    } else if (change.segment_id !== null) {
      segments.set(Number(change.segment_id), { eventId, deleted: change.type === 'segment-deleted' })
    }
  }
  const names = [...features.keys()]
  const state = names.length > 0 ? await readClientState(q, { ...filter, names }, false) : { features: [], segments: [] }
  const sent = new Map<number, ClientSegment>(state.segments.map((s) => [s.id, s]))
  if ([...segments.values()].some((s) => !s.deleted)) {
    for (const row of await listClientSegments(q, filter)) {
      if (segments.has(row.id) && !sent.has(row.id)) sent.set(row.id, { id: row.id, name: row.name, constraints: JSON.parse(row.constraints) as unknown[] })
    }
  }
  const first = Math.min(...[...features.values(), ...segments.values()].map((c) => c.eventId))
  const out: DeltaEvent[] = [...sent.values()].map((segment) => ({ type: 'segment-updated', eventId: segments.get(segment.id)?.eventId ?? first, segment }))
  const served = new Map(state.features.map((f) => [f.name, f]))
  for (const [name, { eventId, project }] of features) {
    const feature = served.get(name)
    if (feature !== undefined) out.push({ type: 'feature-updated', eventId, feature })
    else if (project !== '') out.push({ type: 'feature-removed', eventId, featureName: name, project })
  }
  for (const [segmentId, { eventId, deleted }] of segments) {
    if (deleted) out.push({ type: 'segment-removed', eventId, segmentId })
  }
  return out
}

async function eventsOf (q: Queryable, filter: ClientFilter, plan: Plan): Promise<DeltaEvent[]> {
  if (plan.kind === 'up-to-date') return []
  if (plan.kind === 'hydrate') return [await hydration(q, filter, plan.revision)]
  return updatesFor(q, filter, plan.changes, plan.revision)
}

/**
 * GET /api/client/delta: the ETag is the revision; an SDK that holds it gets nothing to build
 * (304), one with a known older revision the events since, any other a hydration.
 */
export async function clientDelta (
  db: Database,
  token: TokenScope,
  query: { namePrefix?: string | undefined; project?: string | undefined },
  held: string | undefined,
  replayLimit: number
): Promise<{ etag: string; json: string | undefined }> {
  const { filter } = scopeOf(token, query)
  const horizon = await readHorizon(db)
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => {
      const position = await readPosition(trx, horizon)
      const plan = await planFrom(trx, position, parseRevision(held), replayLimit)
      const etag = `"${plan.revision}"`
      if (plan.kind === 'up-to-date') return { etag, json: undefined }
      return { etag, json: JSON.stringify({ events: await eventsOf(trx, filter, plan) }) }
    })
}

/** Where a stream's bytes go: the HTTP response, seen as a plain writable. */
export interface StreamSink {
  /** Sends the status and headers of the stream (200, text/event-stream). */
  begin(): void
  write(chunk: Buffer): boolean
  end(): void
  destroy(): void
  /** Bytes accepted but not yet sent to the client. */
  readonly writableLength: number
  /** Calls `listener` once the client's connection closes; at once when it closed already (a client may leave before its stream opens). */
  onClose(listener: () => void): void
}

export interface StreamingOptions {
  maxConnections: number
  maxConnectionsPerToken: number
  keepAliveMs: number
  /** A stream with more than this not yet sent when the next message comes is dropped (a slow reader). */
  maxBufferBytes: number
  /** A reconnect further behind than this many events gets a hydration. */
  replayLimit: number
}

interface Stream {
  sink: StreamSink
  scope: StreamScope
  tokenKey: string
  tokenName: string
  closed: boolean
}

interface Join {
  stream: Stream
  lastEventId: bigint | undefined
}

/** One server-sent event: `event`, `id` (the revision) and the JSON data, as the bytes every stream of a scope is sent. */
const sse = (event: string, revision: bigint, events: DeltaEvent[]) =>
  Buffer.from(`event: ${event}\nid: ${revision}\ndata: ${JSON.stringify({ events })}\n\n`)

const KEEP_ALIVE = Buffer.from(': keep-alive\n\n')

/**
 * The streams of one instance (GET /api/client/streaming). On every wake of the change feed
 * (and for new streams) one round runs, one at a time: in one repeatable-read snapshot it reads
 * the events since the revision every open stream holds, builds each scope's update once, and
 * the hydration or replay of each new stream (shared by the streams of one scope that sent the
 * same Last-Event-ID); after the snapshot, the same bytes go to every stream of the scope. A
 * stream never receives a state older than one it was sent, since rounds read later snapshots
 * one after another. An event held back by an older transaction still running is picked up by
 * another round soon after (the watermark moves when that transaction ends, which need not
 * notify).
 */
export class Streams {
  #revision: bigint | undefined
  readonly #scopes = new Map<string, { scope: StreamScope; streams: Set<Stream> }>()
  #joins: Join[] = []
  readonly #perToken = new Map<string, number>()
  #count = 0
  #running = false
  #again = false
  #closed = false
  #started = false
  #retryMs = 0
  #retryTimer: NodeJS.Timeout | undefined
  #keepAlive: NodeJS.Timeout | undefined
  #unsubscribe: (() => void) | undefined
  /** Rounds run, slow readers dropped, and how new streams began (a hydration, the changes since their Last-Event-ID, or nothing to catch up): for tests, metrics and the bench. */
  readonly stats = { rounds: 0, dropped: 0, hydrations: 0, replays: 0, upToDate: 0 }

  constructor (
    private readonly db: Database,
    private readonly feed: ChangeFeed,
    private readonly options: StreamingOptions,
    private readonly log: ChangeFeedLog
  ) {}

  /** Open streams on this instance. */
  get size (): number {
    return this.#count
  }

  start (): void {
    if (this.#started) return
    this.#started = true
    this.#unsubscribe = this.feed.subscribe(() => this.#kick())
    this.#keepAlive = setInterval(() => {
      for (const { streams } of this.#scopes.values()) for (const stream of streams) this.#send(stream, KEEP_ALIVE)
    }, this.options.keepAliveMs)
    this.#keepAlive.unref()
  }

  /**
   * Admits a stream (429 past the instance's or the token's cap), sends its headers, and queues
   * its first event: a hydration, or the events since `lastEventId` when that is a revision
   * this database gave out and not too far behind.
   */
  open (token: TokenScope, lastEventId: string | undefined, sink: StreamSink): void {
    if (this.#closed) throw new ApiError('ServiceUnavailableError', 'The server is shutting down; connect again')
    const tokenKey = `${token.type}:${token.name}`
    const ofToken = this.#perToken.get(tokenKey) ?? 0
    if (this.#count >= this.options.maxConnections) {
      throw new ApiError('TooManyRequestsError', `This instance holds its most streams (STREAMING_MAX_CONNECTIONS ${this.options.maxConnections}); poll instead`, undefined, { 'retry-after': '60' })
    }
    if (ofToken >= this.options.maxConnectionsPerToken) {
      throw new ApiError('TooManyRequestsError', `API token ${token.name} holds its most streams on this instance (STREAMING_MAX_CONNECTIONS_PER_TOKEN ${this.options.maxConnectionsPerToken}); poll instead`, undefined, { 'retry-after': '60' })
    }
    this.#count++
    this.#perToken.set(tokenKey, ofToken + 1)
    const stream: Stream = { sink, scope: scopeOf(token), tokenKey, tokenName: token.name, closed: false }
    // The slot is given back when the client leaves, whenever that is: before this line too.
    sink.onClose(() => this.#forget(stream))
    if (stream.closed) return
    sink.begin()
    this.#joins.push({ stream, lastEventId: parseRevision(lastEventId) })
    this.#kick()
  }

  /** Ends every stream (SIGTERM: their SDKs connect again, to another instance) and stops. */
  closeAll (): void {
    this.#closed = true
    this.#unsubscribe?.()
    clearInterval(this.#keepAlive)
    clearTimeout(this.#retryTimer)
    const all = [...[...this.#scopes.values()].flatMap(({ streams }) => [...streams]), ...this.#joins.map((j) => j.stream)]
    this.#joins = []
    for (const stream of all) this.#end(stream)
  }

  /** Ends a stream the server no longer serves; nothing is written to it afterwards. */
  #end (stream: Stream): void {
    if (stream.closed) return
    this.#forget(stream)
    stream.sink.end()
  }

  #forget (stream: Stream): void {
    if (stream.closed) return
    stream.closed = true
    this.#count--
    const left = (this.#perToken.get(stream.tokenKey) ?? 1) - 1
    if (left === 0) this.#perToken.delete(stream.tokenKey)
    else this.#perToken.set(stream.tokenKey, left)
    const entry = this.#scopes.get(stream.scope.key)
    if (entry === undefined) return
    entry.streams.delete(stream)
    if (entry.streams.size === 0) this.#scopes.delete(stream.scope.key)
  }

  /** Writes `bytes`, unless the stream has not taken the last ones yet: then it is dropped. */
  #send (stream: Stream, bytes: Buffer): void {
    if (stream.closed) return
    if (stream.sink.writableLength > this.options.maxBufferBytes) {
      this.stats.dropped++
      stream.sink.destroy()
      this.#forget(stream)
      return
    }
    stream.sink.write(bytes)
  }

  #kick (): void {
    if (this.#closed) return
    if (this.#running) {
      this.#again = true
      return
    }
    this.#running = true
    this.#loop().finally(() => { this.#running = false })
  }

  async #loop (): Promise<void> {
    do {
      this.#again = false
      clearTimeout(this.#retryTimer)
      let heldBack = false
      try {
        heldBack = await this.#round()
      } catch (error) {
        this.log.warn({ err: error }, 'streaming: reading the changes failed; trying again')
        this.#retryLater(1000)
        return
      }
      if (heldBack) this.#retryLater(Math.min(100, Math.max(2, this.#retryMs * 2)))
      else this.#retryMs = 0
    } while (this.#again && !this.#closed)
  }

  #retryLater (ms: number): void {
    if (this.#closed) return
    this.#retryMs = ms
    clearTimeout(this.#retryTimer)
    this.#retryTimer = setTimeout(() => this.#kick(), ms)
    this.#retryTimer.unref()
  }

  /** One round; returns whether an event is held back (to be read again soon). */
  async #round (): Promise<boolean> {
    const joins = this.#joins.filter((j) => !j.stream.closed)
    this.#joins = []
    if (this.#scopes.size === 0 && joins.length === 0) {
      this.#revision = undefined
      return false
    }
    this.stats.rounds++
    const from = this.#revision
    let result
    try {
      const horizon = await readHorizon(this.db)
      result = await this.db
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute(async (trx) => {
          const position = await readPosition(trx, horizon)
          const updates = new Map<string, DeltaEvent[]>()
          // A stream lives as long as its token: one deleted since the last round ends its streams.
          const deleted = from !== undefined && this.#scopes.size > 0 ? await tokensDeletedBetween(trx, from, position.watermark) : []
          if (from !== undefined && this.#scopes.size > 0) {
            const plan = await planFrom(trx, position, from, this.options.replayLimit)
            for (const [key, { scope }] of this.#scopes) updates.set(key, await eventsOf(trx, scope.filter, plan))
          }
          // New streams that sent the same Last-Event-ID in one scope share their first event.
          const firsts = new Map<string, DeltaEvent[]>()
          const kinds = new Map<string, Plan['kind']>()
          for (const { stream, lastEventId } of joins) {
            const key = `${stream.scope.key} ${lastEventId ?? ''}`
            if (firsts.has(key)) continue
            const plan = await planFrom(trx, position, lastEventId, this.options.replayLimit)
            kinds.set(key, plan.kind)
            firsts.set(key, await eventsOf(trx, stream.scope.filter, plan))
          }
          return { revision: position.revision, updates, firsts, kinds, deleted, heldBack: await anyEventFrom(trx, position.watermark) }
        })
    } catch (error) {
      this.#joins.unshift(...joins)
      throw error
    }
    if (this.#closed) return false
    const { revision, updates, firsts, kinds, deleted, heldBack } = result
    if (deleted.length > 0) {
      const names = new Set(deleted)
      for (const { streams } of [...this.#scopes.values()]) for (const stream of [...streams]) if (names.has(stream.tokenName)) this.#end(stream)
    }
    for (const [key, events] of updates) {
      const entry = this.#scopes.get(key)
      if (entry === undefined || events.length === 0) continue
      const bytes = sse('unleash-updated', revision, events)
      for (const stream of entry.streams) this.#send(stream, bytes)
    }
    const firstBytes = new Map<string, Buffer>()
    for (const { stream, lastEventId } of joins) {
      if (stream.closed || this.#closed) continue
      const key = `${stream.scope.key} ${lastEventId ?? ''}`
      let bytes = firstBytes.get(key)
      if (bytes === undefined) {
        bytes = sse('unleash-connected', revision, firsts.get(key) ?? [])
        firstBytes.set(key, bytes)
      }
      stream.sink.write(bytes)
      const kind = kinds.get(key)
      if (kind === 'hydrate') this.stats.hydrations++
      else if (kind === 'changes') this.stats.replays++
      else this.stats.upToDate++
      const entry = this.#scopes.get(stream.scope.key) ?? { scope: stream.scope, streams: new Set<Stream>() }
      entry.streams.add(stream)
      this.#scopes.set(stream.scope.key, entry)
    }
    this.#revision = revision
    return heldBack
  }
}
