import type { PostgresPool, PostgresPoolClient } from 'kysely'
import type pg from 'pg'
import { ApiError } from '../errors.js'

/** What the pool remembers of a client: an error seen while it was checked out. */
interface ClientState {
  broken: Error | undefined
  out: boolean
}

export interface AdmissionOptions {
  /** Connections handed out at once: the pool's size. */
  size: number
  /** Requests that may wait for a connection; beyond it they are refused at once. */
  queueLimit: number
  /** How long one may wait. */
  queueTimeoutMs: number
}

const busy = (message: string) =>
  new ApiError('TooManyRequestsError', message, undefined, { 'retry-after': '1' })

/**
 * pg.Pool as Kysely's PostgresDialect wants it, with two additions.
 *
 * Admission: at most `size` connections are handed out; further requests wait in a FIFO
 * queue, bounded in length and in time, and past either bound get 429 with Retry-After.
 * Waiting for a busy database (say, writers queued on one row's lock) is load, not an outage,
 * and pg-pool would report it with the same error as an unreachable server. Because the
 * queue never lets more than `size` through, pg-pool itself never queues, and its
 * connectionTimeoutMillis bounds only the opening of a connection: that is what an outage
 * looks like, and it alone answers 503.
 *
 * Errors: a checked-out client whose server goes away emits 'error'; without a listener that
 * would kill the process. It is reported, and the broken client is discarded on release.
 */
export class AdmittingPool implements PostgresPool {
  #inUse = 0
  readonly #clients = new WeakMap<pg.PoolClient, ClientState>()
  readonly #waiting: { grant: () => void; timer: NodeJS.Timeout }[] = []

  constructor (
    readonly pool: pg.Pool,
    private readonly admission: AdmissionOptions,
    private readonly onError: (error: Error) => void
  ) {}

  /** Connections handed out, and requests waiting for one. */
  get stats () {
    return { inUse: this.#inUse, waiting: this.#waiting.length }
  }

  async connect (): Promise<PostgresPoolClient> {
    await this.#admit()
    let client: pg.PoolClient
    try {
      client = await this.pool.connect()
    } catch (error) {
      this.#leave()
      throw error
    }
    // One listener per client for its whole life (not one per checkout): it remembers the
    // error, and the checkout that sees it discards the client on release.
    // (While idle, pg-pool's own listener handles errors and drops the client.)
    let state = this.#clients.get(client)
    if (!state) {
      const fresh: ClientState = { broken: undefined, out: false }
      client.on('error', (error: Error) => {
        if (!fresh.out) return
        fresh.broken = error
        this.onError(error)
      })
      this.#clients.set(client, fresh)
      state = fresh
    }
    const seen = state
    seen.out = true
    let released = false
    return {
      query: client.query.bind(client),
      release: () => {
        if (released) return
        released = true
        seen.out = false
        client.release(seen.broken)
        this.#leave()
      },
    } as unknown as PostgresPoolClient
  }

  end (): Promise<void> {
    return this.pool.end()
  }

  #admit (): Promise<void> {
    if (this.#inUse < this.admission.size && this.#waiting.length === 0) {
      this.#inUse++
      return Promise.resolve()
    }
    if (this.#waiting.length >= this.admission.queueLimit) {
      return Promise.reject(busy('The service is busy: every database connection is in use and the queue is full'))
    }
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => {
          clearTimeout(entry.timer)
          resolve()
        },
        timer: setTimeout(() => {
          this.#waiting.splice(this.#waiting.indexOf(entry), 1)
          reject(busy(`The service is busy: no database connection became free within ${this.admission.queueTimeoutMs} ms`))
        }, this.admission.queueTimeoutMs),
      }
      this.#waiting.push(entry)
    })
  }

  /** A connection came back: hand it to the longest waiter, or count it free. */
  #leave (): void {
    const next = this.#waiting.shift()
    if (next) next.grant()
    else this.#inUse--
  }
}
