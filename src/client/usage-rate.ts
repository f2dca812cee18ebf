import { ApiError } from '../errors.js'

/**
 * At most `limit` usage reports per token per minute, per instance of this service: SDKs
 * report every minute or so, so this only stops a token that floods.
 */
export class UsageRate {
  readonly #windows = new Map<string, { start: number; count: number }>()
  constructor (private readonly limit: number) {}

  take (token: string): void {
    const now = Date.now()
    const minute = Math.floor(now / 60_000) * 60_000
    const window = this.#windows.get(token)
    if (!window || window.start !== minute) {
      if (this.#windows.size > 10_000) this.#windows.clear()
      this.#windows.set(token, { start: minute, count: 1 })
      return
    }
    if (++window.count > this.limit) {
      throw new ApiError(
        'TooManyRequestsError',
        `Token ${token} sent more than ${this.limit} usage reports this minute`,
        [],
        { 'retry-after': String(Math.ceil((minute + 60_000 - now) / 1000)) }
      )
    }
  }
}
