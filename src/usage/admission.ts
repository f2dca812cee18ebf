import type { Database } from '../db/types.js'
import { ApiError, invalidField } from '../errors.js'
import { type Added, instanceKeyOf, keyOf } from './batch.js'
import { readTokenUsage } from './usage.store.js'

/**
 * Whether a usage report is let in, decided at the request: at most CLIENT_USAGE_RATE reports
 * per token per minute (`UsageRate`), and at most CLIENT_MAX_APPLICATIONS applications and
 * CLIENT_MAX_INSTANCES instances per token (`Admission`).
 */

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

export interface UsageLimits {
  /** Most applications (app names) one client token may report. */
  maxApplications: number
  /** Most SDK instances one client token may have registered at once. */
  maxInstances: number
}

/** The applications and instances of one token: those stored when read, and those admitted since. */
export interface Book {
  readAt: number
  applications: Set<string>
  instances: Set<string>
}

/** What is stored for a token is read again after this long (other instances add to it, pruning removes from it). */
const BOOK_TTL_MS = 60_000
/** Tokens whose stored applications and instances are kept in memory; the oldest read goes first. */
const MAX_BOOKS = 1000

/**
 * The per-token caps, decided at the request against what this instance knows: what was stored
 * when it last read the token's usage (every minute at most), plus what it admitted since (the
 * reports not written yet, which `unwritten` gives). Instances that admit new applications or
 * instances of one token at the same moment may together accept more than a cap allows; the
 * flush counts again under the token's lock and stores none past it.
 */
export class Admission {
  readonly #books = new Map<string, Promise<Book>>()
  /** Flushes completed: a token's usage read while one completed is read again. */
  #flushes = 0

  constructor (
    private readonly db: Database,
    private readonly limits: UsageLimits,
    private readonly unwritten: (token: string) => Iterable<Added>
  ) {}

  /** A flush completed: what it wrote is stored, and no longer in `unwritten`. */
  flushed (): void {
    this.#flushes++
  }

  /** What this instance believes stored for the token is read again at its next report. */
  forget (token: string): void {
    this.#books.delete(token)
  }

  /** The token's book: read at most every minute, reads under way shared. */
  async book (token: string): Promise<Book> {
    const known = this.#books.get(token)
    if (known) {
      const book = await known
      if (Date.now() - book.readAt < BOOK_TTL_MS) return book
      // Old: read again, once (another request may have started the read meanwhile).
      const current = this.#books.get(token)
      if (current !== undefined && current !== known) return current
    }
    return this.#read(token)
  }

  /**
   * Admits a registration of `instance` of `application`; 400 past either cap. Returns which of
   * them are new (they are in the book from now on).
   */
  register (token: string, book: Book, application: string, instance: string): { application: boolean; instance: boolean } {
    const newApplication = this.#checkApplication(token, book, application)
    const newInstance = !book.instances.has(instance)
    if (newInstance && book.instances.size >= this.limits.maxInstances) {
      throw invalidField(
        '/body/instanceId',
        `is a new instance, and client token ${token} already has ${this.limits.maxInstances} registered (CLIENT_MAX_INSTANCES); instances unseen for 48 hours are forgotten`
      )
    }
    if (newApplication) book.applications.add(application)
    if (newInstance) book.instances.add(instance)
    return { application: newApplication, instance: newInstance }
  }

  /**
   * Whether an instance seen in a metrics report is recorded: `new` when it was not known (it is
   * in the book from now on), `known` when it was, `skipped` when it is new and the token has
   * CLIENT_MAX_INSTANCES already (the report is still counted: only a registration is refused).
   */
  touch (book: Book, instance: string): 'new' | 'known' | 'skipped' {
    if (book.instances.has(instance)) return 'known'
    if (book.instances.size >= this.limits.maxInstances) return 'skipped'
    book.instances.add(instance)
    return 'new'
  }

  /** Admits counts reported by `application`; 400 past the applications cap. Returns whether it is new. */
  count (token: string, book: Book, application: string): boolean {
    const isNew = this.#checkApplication(token, book, application)
    if (isNew) book.applications.add(application)
    return isNew
  }

  /** Whether the application is new; past the token's cap, 400. */
  #checkApplication (token: string, book: Book, application: string): boolean {
    if (book.applications.has(application)) return false
    if (book.applications.size >= this.limits.maxApplications) {
      throw invalidField(
        '/body/appName',
        `is a new application, and client token ${token} already reported ${this.limits.maxApplications} (CLIENT_MAX_APPLICATIONS); applications unseen for USAGE_RETENTION_DAYS are forgotten`
      )
    }
    return true
  }

  #read (token: string): Promise<Book> {
    const reading = this.#readBook(token)
    this.#books.delete(token)
    this.#books.set(token, reading)
    if (this.#books.size > MAX_BOOKS) this.#books.delete(this.#books.keys().next().value!)
    reading.catch(() => { if (this.#books.get(token) === reading) this.#books.delete(token) })
    return reading
  }

  async #readBook (token: string): Promise<Book> {
    for (;;) {
      const flushes = this.#flushes
      const rows = await readTokenUsage(this.db, token)
      // A flush that completed meanwhile may have written after the read: read again.
      if (flushes !== this.#flushes) continue
      const book: Book = { readAt: Date.now(), applications: new Set(), instances: new Set() }
      for (const row of rows) {
        const application = keyOf({ tokenName: token, ...row })
        book.applications.add(application)
        if (row.instanceId !== null) book.instances.add(instanceKeyOf(application, row.instanceId))
      }
      // What was admitted and is not written yet.
      for (const added of this.unwritten(token)) {
        for (const a of added.applications) book.applications.add(a)
        for (const i of added.instances) book.instances.add(i)
      }
      return book
    }
  }
}
