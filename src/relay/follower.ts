import type { Worker } from '../background/worker.js'
import { parseRevision } from '../streaming/delta.service.js'
import type { DeltaEvent } from '../streaming/streaming.schemas.js'
import { normalizeAnswer, normalizeEvents } from './normalize.js'
import type { Origin, ScopeState } from './scope.js'
import { readEvents } from './sse.js'
import type { Upstream } from './upstream.js'

/** A stream that sent nothing (not even a keep-alive) for this long is dead: the upstream sends one every 15 s. */
const IDLE_MS = 60_000
/** How long a stop waits for the loop to end. */
const STOP_WAIT_MS = 2000

export interface FollowerHooks {
  /** The secret this scope is followed with (undefined: none left, the follower stops). */
  secret(): string | undefined
  /** The upstream refused the secret (401 or 403): it is forgotten. */
  refused(secret: string): void
  /** The scope's state changed (its first state, or events). */
  changed(scope: ScopeState, events: DeltaEvent[]): void
  /** Orders every change of every scope. */
  seq(): number
  log: { warn(obj: object, msg: string): void; debug(obj: object, msg: string): void }
}

/** What the upstream was found to offer: whether it streams (undefined until a stream was asked for). */
export interface UpstreamModes {
  streams: boolean | undefined
}

type Outcome = 'ok' | 'refused' | 'unsupported' | 'failed' | 'stopped'

/**
 * Keeps one scope's state in step with the upstream: one SSE stream (GET /api/client/streaming,
 * with the revision held as Last-Event-ID when it came from a stream of this upstream), so that
 * each change arrives within the upstream's streaming delay; when the upstream has no stream
 * (Unleash answers 404), polls of GET /api/client/features with If-None-Match every
 * `refreshMs`. A stream that breaks is followed by one poll (to catch up at once) and is opened
 * again, sooner at first, then every `refreshMs`. Whatever fails, the state held stays served.
 */
export class Follower implements Worker {
  #stopped = false
  #abort: AbortController | undefined
  #wake: (() => void) | undefined
  #running: Promise<void> | undefined

  constructor (
    readonly scope: ScopeState,
    private readonly upstream: Upstream,
    private readonly modes: UpstreamModes,
    private readonly refreshMs: number,
    private readonly hooks: FollowerHooks
  ) {}

  start (): void {
    this.#running ??= this.#loop().catch((err: unknown) => this.hooks.log.warn({ err, scope: this.scope.key }, 'relay: following the upstream stopped'))
  }

  async stop (): Promise<void> {
    this.#stopped = true
    this.#abort?.abort()
    this.#wake?.()
    // Its requests (a stream, or a poll and the reading of its answer) end on abort. A poll was not
    // aborted once: a stop during one, after a stream broke or with an upstream that does not
    // stream, waited for the upstream's answer (up to its 10 s timeout, longer while the answer
    // trickled in). STOP_WAIT_MS stays as a bound for whatever else.
    await Promise.race([this.#running, new Promise<void>((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())])
  }

  /** Ends a wait before the next attempt (the upstream is back, the secret changed). */
  nudge (): void {
    this.#wake?.()
  }

  #sleep (ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      timer.unref()
      function done () { clearTimeout(timer); resolve() }
      this.#wake = done
    })
  }

  async #loop (): Promise<void> {
    let failures = 0
    while (!this.#stopped) {
      const secret = this.hooks.secret()
      if (secret === undefined) return
      let outcome: Outcome
      if (this.modes.streams !== false) {
        outcome = await this.#stream(secret)
        if (outcome === 'unsupported') {
          this.modes.streams = false
          continue
        }
        if (outcome === 'failed' && !this.#stopped) {
          // Catch up at once while the stream is away; the poll's refusal is the token's.
          const polled = await this.#poll(secret)
          if (polled === 'refused') outcome = 'refused'
        }
      } else {
        outcome = await this.#poll(secret)
      }
      if (outcome === 'refused') {
        this.hooks.refused(secret)
        continue
      }
      if (this.#stopped) return
      failures = outcome === 'failed' ? failures + 1 : 0
      const wait = this.modes.streams === false ? this.refreshMs : Math.min(this.refreshMs, 250 * 2 ** failures)
      await this.#sleep(outcome === 'ok' && this.modes.streams !== false ? 0 : wait)
    }
  }

  #apply (origin: Origin, update: () => DeltaEvent[]) {
    const first = !this.scope.ready
    const events = update()
    this.scope.origin = origin
    this.scope.lastRefresh = Date.now()
    if (first || events.length > 0) this.hooks.changed(this.scope, events)
  }

  async #stream (secret: string): Promise<Outcome> {
    const controller = new AbortController()
    this.#abort = controller
    if (this.#stopped) return 'stopped'
    const lastEventId = this.scope.ready && this.scope.origin === 'stream' ? String(this.scope.revision) : undefined
    let res: Response
    try {
      res = await this.upstream.stream(secret, lastEventId, controller.signal)
    } catch (err) {
      if (this.#stopped) return 'stopped'
      this.hooks.log.debug({ err, scope: this.scope.key }, 'relay: the upstream stream could not be opened')
      return 'failed'
    }
    if (res.status === 401 || res.status === 403) return this.#drop(res, 'refused')
    if (res.status === 404 || res.status === 405 || res.status === 501) return this.#drop(res, 'unsupported')
    if (res.status !== 200 || res.body === null || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      this.upstream.markStream(false, `/api/client/streaming: answered ${res.status}`)
      return this.#drop(res, 'failed')
    }
    let heard = Date.now()
    const watchdog = setInterval(() => { if (Date.now() - heard > IDLE_MS) controller.abort() }, 1000)
    watchdog.unref()
    let received = false
    try {
      await readEvents(res.body, () => { heard = Date.now(); this.scope.lastRefresh = heard }, (message) => {
        if (message.event !== 'unleash-connected' && message.event !== 'unleash-updated') return
        const events = normalizeEvents(JSON.parse(message.data))
        const revision = parseRevision(message.id)
        this.#apply('stream', () => this.scope.apply(events, revision, this.hooks.seq))
        if (!received) this.upstream.markStream(true)
        received = true
      })
      if (this.#stopped) return 'stopped'
      this.upstream.markStream(false, '/api/client/streaming: the stream ended')
    } catch (err) {
      if (this.#stopped) return 'stopped'
      this.upstream.markStream(false, `/api/client/streaming: ${(err as Error).message}`)
      this.hooks.log.debug({ err, scope: this.scope.key }, 'relay: the upstream stream broke')
    } finally {
      clearInterval(watchdog)
      controller.abort()
    }
    // A stream that delivered is opened again at once; one that never did counts as a failure.
    return received ? 'ok' : 'failed'
  }

  async #drop (res: Response, outcome: Outcome): Promise<Outcome> {
    await res.body?.cancel().catch(() => {})
    return outcome
  }

  async #poll (secret: string): Promise<Outcome> {
    const controller = new AbortController()
    this.#abort = controller
    if (this.#stopped) return 'stopped'
    try {
      const answer = await this.upstream.features(secret, this.scope.origin === 'poll' ? this.scope.upstreamEtag : undefined, controller.signal)
      if (answer.status === 'refused') return 'refused'
      if (answer.status === 304) {
        this.scope.lastRefresh = Date.now()
        return 'ok'
      }
      const { features, segments, revisionId } = normalizeAnswer(answer.body)
      // Unleash's revision id when it gives one (the same on every relay), else the time: never one given out before.
      const now = BigInt(Date.now())
      const revision = revisionId ?? (now > this.scope.revision ? now : this.scope.revision + 1n)
      this.#apply('poll', () => this.scope.replace(features, segments, revision, this.hooks.seq))
      this.scope.upstreamEtag = answer.etag
      return 'ok'
    } catch (err) {
      if (this.#stopped) return 'stopped'
      this.hooks.log.debug({ err, scope: this.scope.key }, 'relay: polling the upstream failed')
      return 'failed'
    }
  }
}
