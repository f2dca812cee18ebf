import type { DatabaseHandle, Listening } from '../db/database.js'

/**
 * The channel every change notifies, in its own transaction (insertEvents): PostgreSQL delivers
 * the notification at the commit, to every instance listening, and never for a rollback.
 */
export const CHANGES_CHANNEL = 'ffapi_changes'

export interface ChangeFeedLog {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

export interface ChangeFeedOptions {
  /** Wakes closer together than this are merged into one more at its end (a burst costs two wakes). */
  coalesceMs?: number
  /** The first wait before listening again after the connection was lost; doubled each failure. */
  retryMs?: number
  /** The longest wait between attempts. */
  maxRetryMs?: number
}

type Listener = () => void

/**
 * One per process: wakes its subscribers after any committed change, made on this instance or
 * another on the same database. PostgreSQL: one dedicated connection LISTENs on CHANGES_CHANNEL;
 * when it is lost it listens again with backoff and then wakes everyone once, since a
 * notification sent meanwhile was missed (subscribers read the current state on a wake, so
 * nothing is lost, only late). Embedded database: the one session listens.
 *
 * A wake says only "something committed": subscribers read what changed themselves (the state
 * version, the events since their revision). Wakes are coalesced: the first of a burst is
 * delivered at once, the rest become one more wake `coalesceMs` later.
 *
 * ```ts
 * const unsubscribe = app.changes.subscribe(() => { ... })
 * ```
 */
export class ChangeFeed {
  readonly #listeners = new Set<Listener>()
  readonly #coalesceMs: number
  readonly #retryMs: number
  readonly #maxRetryMs: number
  #listening: Listening | undefined
  #running = false
  #failures = 0
  #retryTimer: NodeJS.Timeout | undefined
  #coalesceTimer: NodeJS.Timeout | undefined
  #pending = false
  #wakes = 0

  constructor (
    private readonly database: Pick<DatabaseHandle, 'listen'>,
    private readonly log: ChangeFeedLog,
    options: ChangeFeedOptions = {}
  ) {
    this.#coalesceMs = options.coalesceMs ?? 5
    this.#retryMs = options.retryMs ?? 100
    this.#maxRetryMs = options.maxRetryMs ?? 5000
  }

  /** Calls `listener` after every committed change (coalesced); returns the unsubscribe function. */
  subscribe (listener: Listener): () => void {
    this.#listeners.add(listener)
    return () => { this.#listeners.delete(listener) }
  }

  /** Whether the LISTEN connection is up (while it is not, changes are seen on the next wake after it is back). */
  get listening (): boolean {
    return this.#listening !== undefined
  }

  /** How many times subscribers were woken: for tests and metrics. */
  get wakes (): number {
    return this.#wakes
  }

  /** Starts listening; resolves after the first attempt (on failure it keeps trying in the background). */
  async start (): Promise<void> {
    if (this.#running) return
    this.#running = true
    await this.#connect(false)
  }

  async stop (): Promise<void> {
    this.#running = false
    clearTimeout(this.#retryTimer)
    clearTimeout(this.#coalesceTimer)
    this.#coalesceTimer = undefined
    this.#pending = false
    const listening = this.#listening
    this.#listening = undefined
    await listening?.close()
  }

  async #connect (reconnect: boolean): Promise<void> {
    if (!this.#running) return
    try {
      const listening = await this.database.listen(CHANGES_CHANNEL, {
        onNotify: () => this.#notified(),
        onLost: (error) => this.#lost(error),
      })
      if (!this.#running) {
        await listening.close()
        return
      }
      this.#listening = listening
      if (this.#failures > 0 || reconnect) this.log.info({ failures: this.#failures }, 'change feed: listening again')
      this.#failures = 0
      // Whatever committed while nobody listened was not notified: everyone looks once.
      if (reconnect) this.#notified()
    } catch (error) {
      this.#failures++
      this.log.warn({ err: error, failures: this.#failures }, 'change feed: cannot listen; trying again')
      this.#retry()
    }
  }

  #lost (error: Error): void {
    if (!this.#running) return
    const old = this.#listening
    this.#listening = undefined
    old?.close().catch(() => {})
    this.log.warn({ err: error }, 'change feed: the LISTEN connection was lost; listening again')
    this.#retry()
  }

  #retry (): void {
    if (!this.#running) return
    const delay = Math.min(this.#maxRetryMs, this.#retryMs * 2 ** Math.max(0, this.#failures - 1))
    clearTimeout(this.#retryTimer)
    this.#retryTimer = setTimeout(() => { this.#connect(true) }, delay)
    this.#retryTimer.unref()
  }

  #notified (): void {
    if (this.#coalesceTimer !== undefined) {
      this.#pending = true
      return
    }
    this.#wake()
    this.#startCoalescing()
  }

  #startCoalescing (): void {
    this.#coalesceTimer = setTimeout(() => {
      this.#coalesceTimer = undefined
      if (!this.#pending) return
      this.#pending = false
      this.#wake()
      this.#startCoalescing()
    }, this.#coalesceMs)
    this.#coalesceTimer.unref()
  }

  #wake (): void {
    this.#wakes++
    for (const listener of [...this.#listeners]) {
      try {
        listener()
      } catch (error) {
        this.log.warn({ err: error }, 'change feed: a subscriber failed')
      }
    }
  }
}
