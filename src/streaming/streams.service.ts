import type { TokenScope } from '../access/scope.js'
import { every, type Worker } from '../background/worker.js'
import { ApiError } from '../errors.js'
import type { ChangeFeedLog } from '../events/change-feed.js'
import { parseRevision, type Plan, type StreamScope, scopeOf } from './delta.service.js'
import type { DeltaEvent } from './streaming.schemas.js'

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

/** A new stream's first event is shared by the new streams of one scope that sent the same Last-Event-ID: their `key`. */
export interface StreamJoin {
  key: string
  scope: StreamScope
  lastEventId: bigint | undefined
}

/** What a scope's streams are sent: the events, and the revision they bring the SDK to. */
export interface StreamUpdate {
  revision: bigint
  events: DeltaEvent[]
}

/** What one round read, in one consistent view of the state. */
export interface StreamRound<P> {
  /** Where the next round reads from. */
  position: P
  /** The events since the last round, by scope key (none: nothing to send). */
  updates: Map<string, StreamUpdate>
  /** The first event of new streams, by join key, and how they began. */
  firsts: Map<string, StreamUpdate & { kind: Plan['kind'] }>
  /** Tokens deleted since the last round: their streams end. */
  deleted: readonly string[]
  /** An event is held back (an older transaction still running): read again soon. */
  heldBack: boolean
}

/**
 * Where the streams of an instance read what they send: the database (the server, see
 * stream-reads.service.ts) or a relay's memory (src/relay/). It wakes its subscribers when
 * something may have changed.
 */
export interface StreamSource<P = unknown> {
  subscribe(listener: () => void): () => void
  /** Reads, from `from` (undefined: the first round), the updates of `scopes` and the first events of `joins`. */
  read(from: P | undefined, scopes: readonly StreamScope[], joins: readonly StreamJoin[]): Promise<StreamRound<P>>
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
 * The streams of one instance (GET /api/client/streaming). On every wake of the source (and for
 * new streams) one round runs, one at a time: the source reads, in one consistent view, the
 * events since the last round for every scope with open streams (each scope's update built
 * once), and the hydration or replay of each new stream (shared by the streams of one scope
 * that sent the same Last-Event-ID); then the same bytes go to every stream of the scope. A
 * stream never receives a state older than one it was sent, since rounds read one after
 * another. An event the source holds back is picked up by another round soon after.
 */
export class Streams<P = unknown> implements Worker {
  #position: P | undefined
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
    private readonly source: StreamSource<P>,
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
    this.#unsubscribe = this.source.subscribe(() => this.#kick())
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
      this.#position = undefined
      return false
    }
    this.stats.rounds++
    // New streams that sent the same Last-Event-ID in one scope share their first event.
    const asked = new Map<string, StreamJoin>()
    for (const { stream, lastEventId } of joins) {
      const key = joinKey(stream.scope, lastEventId)
      if (!asked.has(key)) asked.set(key, { key, scope: stream.scope, lastEventId })
    }
    let result: StreamRound<P>
    try {
      result = await this.source.read(this.#position, [...this.#scopes.values()].map((s) => s.scope), [...asked.values()])
    } catch (error) {
      this.#joins.unshift(...joins)
      throw error
    }
    if (this.#closed) return false
    const { position, updates, firsts, deleted, heldBack } = result
    if (deleted.length > 0) {
      const names = new Set(deleted)
      for (const { streams } of [...this.#scopes.values()]) for (const stream of [...streams]) if (names.has(stream.tokenName)) this.#end(stream)
    }
    for (const [key, { revision, events }] of updates) {
      const entry = this.#scopes.get(key)
      if (entry === undefined || events.length === 0) continue
      const bytes = sse('unleash-updated', revision, events)
      for (const stream of entry.streams) this.#send(stream, bytes)
    }
    const firstBytes = new Map<string, Buffer>()
    for (const { stream, lastEventId } of joins) {
      if (stream.closed || this.#closed) continue
      const key = joinKey(stream.scope, lastEventId)
      const first = firsts.get(key)
      // A scope the source no longer serves (its token went meanwhile): the stream ends.
      if (first === undefined) {
        this.#end(stream)
        continue
      }
      let bytes = firstBytes.get(key)
      if (bytes === undefined) {
        bytes = sse('unleash-connected', first.revision, first.events)
        firstBytes.set(key, bytes)
      }
      stream.sink.write(bytes)
      if (first.kind === 'hydrate') this.stats.hydrations++
      else if (first.kind === 'changes') this.stats.replays++
      else this.stats.upToDate++
      const entry = this.#scopes.get(stream.scope.key) ?? { scope: stream.scope, streams: new Set<Stream>() }
      entry.streams.add(stream)
      this.#scopes.set(stream.scope.key, entry)
    }
    this.#position = position
    return heldBack
  }
}

const joinKey = (scope: StreamScope, lastEventId: bigint | undefined) => `${scope.key} ${lastEventId ?? ''}`
