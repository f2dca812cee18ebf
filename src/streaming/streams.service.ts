import { readSnapshot } from '../db/snapshot.js'
import type { TokenScope } from '../access/scope.js'
import { every, type Worker } from '../background/worker.js'
import type { Database } from '../db/types.js'
import { ApiError } from '../errors.js'
import type { ChangeFeed, ChangeFeedLog } from '../events/change-feed.js'
import { eventsOf, parseRevision, type Plan, planFrom, readPosition, type StreamScope, scopeOf } from './delta.service.js'
import type { DeltaEvent } from './streaming.schemas.js'
import { anyEventFrom, readHorizon, tokensDeletedBetween } from './streaming.store.js'

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
  /** Ends the stream when its token expires. */
  expiry?: NodeJS.Timeout
}

/** Longest a timer waits (Node's limit, about 24.8 days): a stream whose token expires later ends then, and its SDK connects again. */
const MAX_TIMER_MS = 2 ** 31 - 1

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
export class Streams implements Worker {
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
  readonly #keepAlive: Worker
  #unsubscribe: (() => void) | undefined
  /** Rounds run, slow readers dropped, and how new streams began (a hydration, the changes since their Last-Event-ID, or nothing to catch up): for tests, metrics and the bench. */
  readonly stats = { rounds: 0, dropped: 0, hydrations: 0, replays: 0, upToDate: 0 }

  constructor (
    private readonly db: Database,
    private readonly feed: ChangeFeed,
    private readonly options: StreamingOptions,
    private readonly log: ChangeFeedLog
  ) {
    this.#keepAlive = every(options.keepAliveMs, () => {
      for (const { streams } of this.#scopes.values()) for (const stream of streams) this.#send(stream, KEEP_ALIVE)
    }, { onError: (err) => log.warn({ err }, 'streaming: sending keep-alives failed') })
  }

  /** Open streams on this instance. */
  get size (): number {
    return this.#count
  }

  start (): void {
    if (this.#started) return
    this.#started = true
    this.#unsubscribe = this.feed.subscribe(() => this.#kick())
    this.#keepAlive.start()
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
    // A stream lives no longer than its token.
    if (token.expiresAt) stream.expiry = setTimeout(() => this.#end(stream), Math.min(Math.max(token.expiresAt.getTime() - Date.now(), 0), MAX_TIMER_MS)).unref()
    sink.begin()
    this.#joins.push({ stream, lastEventId: parseRevision(lastEventId) })
    this.#kick()
  }

  /** Ends every stream (SIGTERM: their SDKs connect again, to another instance) and stops. */
  async stop (): Promise<void> {
    this.#closed = true
    this.#unsubscribe?.()
    clearTimeout(this.#retryTimer)
    const all = [...[...this.#scopes.values()].flatMap(({ streams }) => [...streams]), ...this.#joins.map((j) => j.stream)]
    this.#joins = []
    for (const stream of all) this.#end(stream)
    await this.#keepAlive.stop()
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
    clearTimeout(stream.expiry)
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
      result = await readSnapshot(this.db, async (trx) => {
        const position = await readPosition(trx, horizon)
        const updates = new Map<string, DeltaEvent[]>()
        // A stream lives as long as its token: one deleted (or given a new expiry) since the last round ends its streams; their SDKs connect again, checked afresh.
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
