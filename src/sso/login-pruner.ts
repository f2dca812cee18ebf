import type { Database } from '../db/types.js'
import { deleteExpiredLogins } from './sso.store.js'

/**
 * A background worker (start/stop, one per instance): removes the logins whose browser never
 * came back, every `everyMs`. Expiry never waits for it (a callback checks the login's expiry
 * itself); it only keeps the table small. The deletes are idempotent, so instances may run it
 * at once.
 */
export class LoginPruner {
  #timer: NodeJS.Timeout | undefined

  constructor (
    private readonly db: Database,
    private readonly onError: (error: unknown) => void,
    private readonly everyMs = 300_000
  ) {}

  start (): void {
    this.#timer = setInterval(() => { this.prune().catch(this.onError) }, this.everyMs)
    this.#timer.unref()
  }

  /** Removes the expired logins; returns how many. */
  prune (): Promise<number> {
    return deleteExpiredLogins(this.db)
  }

  stop (): void {
    clearInterval(this.#timer)
  }
}
