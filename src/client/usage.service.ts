import type { Static } from '@sinclair/typebox'
import type { Transaction } from 'kysely'
import { ALL, type TokenScope } from '../access/scope.js'
import type { Database, DB } from '../db/types.js'
import { invalidField } from '../errors.js'
import { moveOnEvaluation } from '../lifecycle/lifecycle.service.js'
import type { ClientMetrics, ClientRegistration } from './usage.schemas.js'
import {
  addCounts,
  type ApplicationKey,
  deleteUsage,
  isProduction,
  lockTokenUsage,
  markEvaluated,
  MAX_VARIANT_NAMES,
  type PendingCounts,
  readTokenUsage,
  type SeenApplication,
  type SeenInstance,
  upsertApplications,
  upsertInstances,
} from './usage.store.js'

export interface UsageLimits {
  /** Most applications (app names) one client token may report. */
  maxApplications: number
  /** Most SDK instances one client token may have registered at once. */
  maxInstances: number
}

export interface UsageOptions {
  limits: UsageLimits
  /** How often what was reported is written (USAGE_FLUSH_MS). */
  flushMs: number
  /** Rows (counts, instances, applications) held before a flush is started early (USAGE_MAX_PENDING). */
  maxPending: number
  /** Told when a flush or a lifecycle move fails (what failed to be written is kept for the next flush while it fits). */
  onError: (error: unknown, message: string) => void
}

/** Instances not seen for this long are forgotten (as Unleash does after two days). */
export const INSTANCE_RETENTION_MS = 48 * 3_600_000
/** What is stored for a token is read again after this long (other instances add to it, pruning removes from it). */
const BOOK_TTL_MS = 60_000
/** Tokens whose stored applications and instances are kept in memory; the oldest read goes first. */
const MAX_BOOKS = 1000
/**
 * A feature evaluated in an environment whose lifecycle was just looked at (and moved if it
 * had to be) is not looked at again for this long: stages only move forward, so a second look
 * finds nothing to do, but for a feature revived or uncompleted meanwhile, which its next
 * evaluation moves this much later at most. Environment types are kept as long.
 */
const SETTLED_MS = 60_000
const MAX_SETTLED = 100_000

const HOUR_MS = 3_600_000
const startOfHour = (at: Date) => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS)

const applicationKey = (token: TokenScope, appName: string): ApplicationKey => ({
  tokenName: token.name,
  environment: token.environments[0]!,
  projects: JSON.stringify(token.projects),
  appName,
})
/** An application's key in memory: its token is part of it, as in the stored key, so that tokens never share one. */
const keyOf = (key: ApplicationKey) => JSON.stringify([key.tokenName, key.environment, key.projects, key.appName])
const instanceKeyOf = (application: string, instanceId: string) => `${application}\n${instanceId}`

/** The applications and instances of one token: those stored when read, and those admitted since. */
interface Book {
  readAt: number
  applications: Set<string>
  instances: Set<string>
}

/** Counts as the store writes them, under the application's key in memory (its id is known at the flush). */
type Counts = Omit<PendingCounts, 'applicationId'> & { application: string }

/** An instance as the store writes it, under the application's key in memory. */
type Instance = Omit<SeenInstance, 'applicationId'> & { application: string }

/** What was reported since the last flush, summed. */
class Batch {
  readonly applications = new Map<string, SeenApplication>()
  readonly instances = new Map<string, Instance>()
  readonly counts = new Map<string, Counts>()
  /** Per token, the applications and instances it added that were not stored when admitted. */
  readonly added = new Map<string, { applications: Set<string>; instances: Set<string> }>()

  get size () {
    return this.applications.size + this.instances.size + this.counts.size
  }

  addedBy (token: string) {
    let added = this.added.get(token)
    if (!added) this.added.set(token, (added = { applications: new Set(), instances: new Set() }))
    return added
  }

  seeApplication (application: string, key: ApplicationKey, at: Date) {
    const seen = this.applications.get(application)
    if (!seen || seen.lastSeenAt < at) this.applications.set(application, { ...key, lastSeenAt: at })
  }

  seeInstance (instance: Instance) {
    const key = instanceKeyOf(instance.application, instance.instanceId)
    const seen = this.instances.get(key)
    if (!seen || seen.lastSeenAt <= instance.lastSeenAt) this.instances.set(key, instance)
  }

  count (counts: Counts) {
    const key = `${counts.application}\n${counts.hour.getTime()}\n${counts.feature}`
    const sum = this.counts.get(key)
    if (!sum) {
      this.counts.set(key, counts)
      return
    }
    sum.yes += counts.yes
    sum.no += counts.no
    if (sum.lastSeenAt < counts.lastSeenAt) sum.lastSeenAt = counts.lastSeenAt
    // Names already counted add up; new ones join in name order while there is room, as the
    // stored row keeps them.
    let names = Object.keys(sum.variants).length
    for (const name of Object.keys(counts.variants).sort()) {
      if (sum.variants[name] !== undefined) sum.variants[name] += counts.variants[name]!
      else if (names < MAX_VARIANT_NAMES) {
        sum.variants[name] = counts.variants[name]!
        names++
      }
    }
  }

  /** Takes in an older batch that could not be written. */
  absorb (older: Batch) {
    for (const [application, seen] of older.applications) this.seeApplication(application, seen, seen.lastSeenAt)
    for (const instance of older.instances.values()) if (!this.instances.has(instanceKeyOf(instance.application, instance.instanceId))) this.seeInstance(instance)
    for (const counts of older.counts.values()) this.count(counts)
    for (const [token, added] of older.added) {
      const mine = this.addedBy(token)
      for (const a of added.applications) mine.applications.add(a)
      for (const i of added.instances) mine.instances.add(i)
    }
  }
}

/**
 * SDK usage (registrations and metrics) from every SDK this instance serves, summed in memory
 * and written every USAGE_FLUSH_MS in one transaction (then the lifecycle moves of features
 * evaluated for the first time, each a change with its event), early when USAGE_MAX_PENDING
 * rows are pending, and on close. A crash loses at most what was reported since the last flush.
 *
 * The per-token caps are decided at the request against what this instance knows: what was
 * stored when it last read the token's usage (every minute at most), plus what it admitted
 * since. Instances that admit new applications or instances of one token at the same moment
 * may together accept more than a cap allows; the flush counts again under the token's lock and
 * stores none past it (those reports were answered 202, and are dropped with a warning).
 */
export class UsageRecorder {
  #pending = new Batch()
  #writing: Batch | undefined
  #flush: Promise<void> | undefined
  /** Flushes completed: a token's usage read while one completed is read again. */
  #completed = 0
  readonly #books = new Map<string, Promise<Book>>()
  /** `environment\nfeature` → until when its lifecycle needs no look */
  readonly #settled = new Map<string, number>()
  readonly #production = new Map<string, { production: boolean; until: number }>()
  #timer: NodeJS.Timeout | undefined

  constructor (private readonly db: Database, private readonly options: UsageOptions) {}

  start (): void {
    this.#timer = setInterval(() => { this.flush() }, this.options.flushMs).unref()
  }

  /** Stops the timer and writes what is pending. */
  async stop (): Promise<void> {
    clearInterval(this.#timer)
    await this.flush()
  }

  /** Rows waiting for the next flush. */
  get pending (): number {
    return this.#pending.size
  }

  /** Records (or refreshes) an SDK instance of the token's environment and scope. */
  async register (token: TokenScope, body: Static<typeof ClientRegistration>): Promise<void> {
    const book = await this.#book(token.name)
    await this.#room()
    const now = new Date()
    const key = applicationKey(token, body.appName)
    const application = keyOf(key)
    const instance = instanceKeyOf(application, body.instanceId)
    const newApplication = this.#admitApplication(token.name, book, application)
    if (!book.instances.has(instance) && book.instances.size >= this.options.limits.maxInstances) {
      throw invalidField(
        '/body/instanceId',
        `is a new instance, and client token ${token.name} already has ${this.options.limits.maxInstances} registered (CLIENT_MAX_INSTANCES); instances unseen for 48 hours are forgotten`
      )
    }
    const added = this.#pending.addedBy(token.name)
    if (newApplication) {
      book.applications.add(application)
      added.applications.add(application)
    }
    if (!book.instances.has(instance)) {
      book.instances.add(instance)
      added.instances.add(instance)
    }
    this.#pending.seeApplication(application, key, now)
    this.#pending.seeInstance({
      application,
      instanceId: body.instanceId,
      sdkVersion: body.sdkVersion ?? null,
      strategies: JSON.stringify(body.strategies),
      intervalMs: body.interval,
      startedAt: new Date(body.started),
      lastSeenAt: now,
    })
    this.#early()
  }

  /**
   * Adds an SDK's evaluation counts to the current hour (the server's, not the client's) of its
   * application. At the flush, features that do not exist, are archived or are outside the
   * token's projects are ignored (as Unleash does), and the evaluated features move along their
   * lifecycle.
   */
  async count (token: TokenScope, body: Static<typeof ClientMetrics>): Promise<void> {
    const reported = Object.entries(body.bucket.toggles).filter(([, c]) => c.yes + c.no > 0)
    if (reported.length === 0) return
    const book = await this.#book(token.name)
    await this.#room()
    const now = new Date()
    const key = applicationKey(token, body.appName)
    const application = keyOf(key)
    if (this.#admitApplication(token.name, book, application)) {
      book.applications.add(application)
      this.#pending.addedBy(token.name).applications.add(application)
    }
    this.#pending.seeApplication(application, key, now)
    const hour = startOfHour(now)
    const projects = token.projects.includes(ALL) ? null : token.projects
    for (const [feature, c] of reported) {
      const variants: Record<string, number> = {}
      for (const [name, n] of Object.entries(c.variants ?? {})) if (n > 0) variants[name] = n
      this.#pending.count({ application, hour, feature, yes: c.yes, no: c.no, variants, lastSeenAt: now, environment: key.environment, projects })
    }
    this.#early()
  }

  /**
   * Writes what is pending, in one transaction, then moves the lifecycle of what was counted.
   * One flush at a time; a call during one waits for it and then writes what came meanwhile.
   * Never rejects: a failure is reported to onError and what failed is kept for the next flush
   * while it fits in USAGE_MAX_PENDING.
   */
  async flush (): Promise<void> {
    while (this.#flush) await this.#flush
    if (this.#pending.size === 0) return
    const batch = this.#pending
    this.#pending = new Batch()
    this.#writing = batch
    this.#flush = this.#write(batch).finally(() => {
      this.#writing = undefined
      this.#flush = undefined
      this.#completed++
    })
    await this.#flush
  }

  /** Whether the application is new; past the token's cap, 400. */
  #admitApplication (token: string, book: Book, application: string): boolean {
    if (book.applications.has(application)) return false
    if (book.applications.size >= this.options.limits.maxApplications) {
      throw invalidField(
        '/body/appName',
        `is a new application, and client token ${token} already reported ${this.options.limits.maxApplications} (CLIENT_MAX_APPLICATIONS); applications unseen for USAGE_RETENTION_DAYS are forgotten`
      )
    }
    return true
  }

  /** Waits while the pending rows are at their cap (a flush makes room). */
  async #room () {
    while (this.#pending.size >= this.options.maxPending) await this.flush()
  }

  #early () {
    if (this.#pending.size >= this.options.maxPending) this.flush()
  }

  async #book (token: string): Promise<Book> {
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
      const completed = this.#completed
      const rows = await readTokenUsage(this.db, token)
      // A flush that completed meanwhile may have written after the read: read again.
      if (completed !== this.#completed) continue
      const book: Book = { readAt: Date.now(), applications: new Set(), instances: new Set() }
      for (const row of rows) {
        const application = keyOf({ tokenName: token, ...row })
        book.applications.add(application)
        if (row.instanceId !== null) book.instances.add(instanceKeyOf(application, row.instanceId))
      }
      // What was admitted and is not written yet.
      for (const batch of [this.#writing, this.#pending]) {
        const added = batch?.added.get(token)
        for (const a of added?.applications ?? []) book.applications.add(a)
        for (const i of added?.instances ?? []) book.instances.add(i)
      }
      return book
    }
  }

  /**
   * The applications and instances of the batch that are new and past their token's caps,
   * counted under the token's lock (tokens in name order, so that flushes of several instances
   * cannot deadlock); admitted in the order this instance admitted them.
   */
  async #pastCaps (trx: Transaction<DB>, batch: Batch): Promise<Set<string>> {
    const refused = new Set<string>()
    const { maxApplications, maxInstances } = this.options.limits
    for (const token of [...batch.added.keys()].sort()) {
      const added = batch.added.get(token)!
      if (added.applications.size === 0 && added.instances.size === 0) continue
      await lockTokenUsage(trx, token)
      const rows = await readTokenUsage(trx, token)
      const applications = new Set(rows.map((row) => keyOf({ tokenName: token, ...row })))
      const instances = new Set(rows.flatMap((row) => (row.instanceId === null ? [] : [instanceKeyOf(keyOf({ tokenName: token, ...row }), row.instanceId)])))
      for (const application of added.applications) {
        if (applications.has(application)) continue
        if (applications.size >= maxApplications) refused.add(application)
        else applications.add(application)
      }
      for (const instance of added.instances) {
        if (instances.has(instance)) continue
        const application = instance.slice(0, instance.indexOf('\n'))
        if (refused.has(application) || instances.size >= maxInstances) refused.add(instance)
        else instances.add(instance)
      }
      // What this instance believes stored is read again.
      if ([...added.applications, ...added.instances].some((key) => refused.has(key))) this.#books.delete(token)
    }
    return refused
  }

  async #isProduction (environment: string, now: number): Promise<boolean> {
    const known = this.#production.get(environment)
    if (known && known.until > now) return known.production
    const production = await isProduction(this.db, environment)
    if (this.#production.size > 1000) this.#production.clear()
    this.#production.set(environment, { production, until: now + SETTLED_MS })
    return production
  }

  async #write (batch: Batch): Promise<void> {
    let counted: { feature_name: string; application_id: number }[]
    let applications: Awaited<ReturnType<typeof upsertApplications>>
    try {
      ;[applications, counted] = await this.db.transaction().execute(async (trx) => {
        const refused = await this.#pastCaps(trx, batch)
        const stored = await upsertApplications(trx, [...batch.applications].filter(([key]) => !refused.has(key)).map(([, a]) => a))
        const ids = new Map(stored.map((a) => [keyOf(a), a.id]))
        const id = (application: string) => ids.get(application)!
        const instances = [...batch.instances].filter(([key]) => !refused.has(key)).map(([, i]) => i)
        if (instances.length > 0) {
          await upsertInstances(trx, instances.map(({ application, ...rest }) => ({ applicationId: id(application), ...rest })))
        }
        const counts = [...batch.counts.values()].filter((c) => !refused.has(c.application))
        const added = counts.length === 0 ? [] : await addCounts(trx, counts.map(({ application, ...rest }) => ({ applicationId: id(application), ...rest })))
        if (added.length > 0) {
          // When each counted feature was last evaluated in its environment.
          const latest = new Map<string, { feature: string; environment: string; at: Date }>()
          for (const c of counts) {
            const key = `${id(c.application)}\n${c.feature}`
            const seen = latest.get(key)
            if (!seen || seen.at < c.lastSeenAt) latest.set(key, { feature: c.feature, environment: c.environment, at: c.lastSeenAt })
          }
          await markEvaluated(trx, added.map((row) => latest.get(`${row.application_id}\n${row.feature_name}`)!))
        }
        if (refused.size > 0) {
          this.options.onError(new Error(`${refused.size} applications and instances past CLIENT_MAX_APPLICATIONS or CLIENT_MAX_INSTANCES`), 'reports admitted by several instances at once passed a cap; what is past it is not stored')
        }
        return [stored, added] as const
      })
    } catch (error) {
      if (this.#pending.size + batch.size <= this.options.maxPending) {
        this.#pending.absorb(batch)
        this.options.onError(error, 'writing SDK usage failed; it is tried again at the next flush')
      } else {
        this.options.onError(error, `writing SDK usage failed; ${batch.size} rows of usage are lost (USAGE_MAX_PENDING)`)
      }
      return
    }
    // The first evaluations move the lifecycle, one change per token and environment.
    const byId = new Map(applications.map((a) => [a.id, a]))
    const groups = new Map<string, { token: string; environment: string; features: Set<string> }>()
    for (const row of counted) {
      const application = byId.get(row.application_id)!
      const group = `${application.tokenName}\n${application.environment}`
      if (!groups.has(group)) groups.set(group, { token: application.tokenName, environment: application.environment, features: new Set() })
      groups.get(group)!.features.add(row.feature_name)
    }
    for (const { token, environment, features } of groups.values()) {
      const now = Date.now()
      const unsettled = [...features].filter((f) => (this.#settled.get(`${environment}\n${f}`) ?? 0) <= now).sort()
      if (unsettled.length === 0) continue
      try {
        await moveOnEvaluation(this.db, unsettled, { name: environment, production: await this.#isProduction(environment, now) }, { name: token })
        if (this.#settled.size + unsettled.length > MAX_SETTLED) this.#settled.clear()
        for (const f of unsettled) this.#settled.set(`${environment}\n${f}`, now + SETTLED_MS)
      } catch (error) {
        this.options.onError(error, 'moving the lifecycle of evaluated features failed; the next report of them moves it')
      }
    }
  }
}

/**
 * Deletes usage past its retention: hourly counts older than `retentionDays`, and with them
 * the applications not seen for as long; SDK instances not seen for 48 hours.
 */
export function pruneUsage (db: Database, retentionDays: number, now = new Date()) {
  return deleteUsage(db, new Date(now.getTime() - retentionDays * 24 * HOUR_MS), new Date(now.getTime() - INSTANCE_RETENTION_MS))
}
