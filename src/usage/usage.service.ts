import type { Static } from '@sinclair/typebox'
import { ALL, type TokenScope } from '../access/scope.js'
import { every, type Worker } from '../background/worker.js'
import type { Database } from '../db/types.js'
import { Admission, type UsageLimits } from './admission.js'
import { applicationKey, Batch, instanceKeyOf, keyOf } from './batch.js'
import { BatchWriter } from './batch-writer.service.js'
import { ApiError } from '../errors.js'
import type { BulkMetrics, ClientMetrics, ClientRegistration } from './usage.schemas.js'

export interface UsageOptions {
  limits: UsageLimits
  /** How often what was reported is written (USAGE_FLUSH_MS). */
  flushMs: number
  /** Rows (counts, instances, applications) held before a flush is started early (USAGE_MAX_PENDING). */
  maxPending: number
  /** Told when a flush or a lifecycle move fails (what failed to be written is kept for the next flush while it fits). */
  onError: (error: unknown, message: string) => void
}

/** What a browser SDK sends about itself (POST /api/frontend/client/register). */
export interface FrontendAnnouncement {
  appName: string
  instanceId?: string | undefined
  sdkVersion?: string | undefined
  interval: number
  started: string | number
  strategies: string[]
}

/**
 * Where SDK usage goes: on the server, into the database (`UsageRecorder`); at a relay, upstream
 * in batches. The routes of the client and frontend APIs hand every report to one.
 */
export interface UsageSink {
  register(token: TokenScope, body: Static<typeof ClientRegistration>): Promise<void>
  count(token: TokenScope, body: Static<typeof ClientMetrics>): Promise<void>
  /** A browser SDK announced itself: not stored on the server (as Unleash), passed on by a relay. */
  announce(token: TokenScope, body: FrontendAnnouncement): void
  /** Registrations and counts of many SDKs at once (Unleash Edge's and a relay's batches). */
  bulk(token: TokenScope, body: BulkMetrics): Promise<void>
}

const HOUR_MS = 3_600_000
const startOfHour = (at: Date) => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS)

/**
 * SDK usage (registrations and metrics) from every SDK this instance serves, summed in memory
 * (`Batch`) and written every USAGE_FLUSH_MS (`BatchWriter`: one transaction, then the lifecycle
 * moves of features evaluated for the first time, each a change with its event), early when
 * USAGE_MAX_PENDING rows are pending, and when it stops (after the last request). A crash loses
 * at most what was reported since the last flush. Reports past a token's caps are refused at
 * the request (`Admission`); those that several instances admitted at once past a cap were
 * answered 202, and are dropped at the flush with a warning.
 */
export class UsageRecorder implements Worker, UsageSink {
  #pending = new Batch()
  #writing: Batch | undefined
  #flush: Promise<void> | undefined
  readonly #admission: Admission
  readonly #writer: BatchWriter
  readonly #timer: Worker

  constructor (db: Database, private readonly options: UsageOptions) {
    this.#admission = new Admission(db, options.limits, (token) => [this.#writing, this.#pending].flatMap((batch) => batch?.added.get(token) ?? []))
    this.#writer = new BatchWriter(db, { limits: options.limits, onError: options.onError, passedCaps: (token) => this.#admission.forget(token) })
    this.#timer = every(options.flushMs, () => this.flush(), { onError: (error) => options.onError(error, 'writing SDK usage failed') })
  }

  start (): void {
    this.#timer.start()
  }

  /** Stops the timer and writes what is pending. */
  async stop (): Promise<void> {
    await this.#timer.stop()
    await this.flush()
  }

  /** Rows waiting for the next flush. */
  get pending (): number {
    return this.#pending.size
  }

  /** Records (or refreshes) an SDK instance of the token's environment and scope. */
  async register (token: TokenScope, body: Static<typeof ClientRegistration>): Promise<void> {
    const book = await this.#admission.book(token.name)
    await this.#room()
    const now = new Date()
    const key = applicationKey(token, body.appName)
    const application = keyOf(key)
    const instance = instanceKeyOf(application, body.instanceId)
    const admitted = this.#admission.register(token.name, book, application, instance)
    const added = this.#pending.addedBy(token.name)
    if (admitted.application) added.applications.add(application)
    if (admitted.instance) added.instances.add(instance)
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
   * Adds an SDK's evaluation counts to its application, in the hour its bucket stopped (as
   * Unleash files them; a bucket that stops in the future counts now), and marks its instance
   * seen (recorded if it never registered, while the token's instances are under their cap). At
   * the flush, features that do not exist, are archived or are outside the token's projects are
   * not counted (as Unleash does; names of no feature are kept as unknown flags), and the
   * evaluated features move along their lifecycle. A batch's counts (`fromBatch`) come from no
   * instance: the batch registered its instances itself.
   */
  async count (token: TokenScope, body: Static<typeof ClientMetrics>, { fromBatch = false } = {}): Promise<void> {
    const reported = Object.entries(body.bucket.toggles).filter(([, c]) => c.yes + c.no > 0)
    if (reported.length === 0) return
    const book = await this.#admission.book(token.name)
    await this.#room()
    const now = new Date()
    const key = applicationKey(token, body.appName)
    const application = keyOf(key)
    const added = this.#pending.addedBy(token.name)
    if (this.#admission.count(token.name, book, application)) added.applications.add(application)
    this.#pending.seeApplication(application, key, now)
    if (!fromBatch) {
      const instance = instanceKeyOf(application, body.instanceId)
      const touched = this.#admission.touch(book, instance)
      if (touched === 'new') added.instances.add(instance)
      if (touched !== 'skipped') this.#pending.touchInstance({ application, instanceId: body.instanceId, sdkVersion: body.sdkVersion ?? null, lastSeenAt: now })
    }
    const stopped = new Date(body.bucket.stop)
    const hour = startOfHour(stopped > now ? now : stopped)
    const projects = token.projects.includes(ALL) ? null : token.projects
    for (const [feature, c] of reported) {
      const variants: Record<string, number> = {}
      for (const [name, n] of Object.entries(c.variants ?? {})) if (n > 0) variants[name] = n
      this.#pending.count({ application, hour, feature, yes: c.yes, no: c.no, variants, lastSeenAt: now, environment: key.environment, projects })
    }
    this.#early()
  }

  /** Nothing is stored for a browser SDK's announcement (as Unleash). */
  announce (): void {}

  /**
   * A batch from Unleash Edge or a relay, as Unleash takes it: each application registered (but
   * browser SDKs'), and the counts of the token's environment (others are ignored) added per
   * application, with the same rules and caps as one SDK's reports. What one application is
   * refused does not stop the others: they are recorded, and the batch is then answered 400.
   */
  async bulk (token: TokenScope, body: BulkMetrics): Promise<void> {
    const refusals: ApiError[] = []
    const attempt = async (work: () => Promise<void>) => {
      try {
        await work()
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 400) throw error
        refusals.push(error)
      }
    }
    const now = new Date().toISOString()
    for (const app of body.applications) {
      if (app.sdkType === 'frontend') continue
      await attempt(() => this.register(token, {
        appName: app.appName,
        instanceId: app.instanceId,
        strategies: app.strategies ?? [],
        started: app.started === undefined ? now : new Date(app.started).toISOString(),
        interval: Math.round(app.interval ?? 0),
        ...(app.sdkVersion !== undefined && { sdkVersion: app.sdkVersion }),
      }))
    }
    const environment = token.environments[0]
    const byApplication = new Map<string, Record<string, { yes: number; no: number; variants: Record<string, number> }>>()
    for (const metric of body.metrics) {
      if (metric.environment !== environment) continue
      const toggles = byApplication.get(metric.appName) ?? {}
      byApplication.set(metric.appName, toggles)
      const sum = (toggles[metric.featureName] ??= { yes: 0, no: 0, variants: {} })
      sum.yes += metric.yes ?? 0
      sum.no += metric.no ?? 0
      for (const [name, n] of Object.entries(metric.variants ?? {})) sum.variants[name] = (sum.variants[name] ?? 0) + n
    }
    for (const [appName, toggles] of byApplication) {
      await attempt(() => this.count(token, { appName, instanceId: 'bulk', bucket: { start: now, stop: now, toggles } }, { fromBatch: true }))
    }
    if (refusals.length > 0) {
      throw new ApiError('BadDataError', `${refusals.length} of the batch's applications were refused (the others were recorded): ${refusals[0]!.message}`, refusals.flatMap((r) => r.details))
    }
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
      this.#admission.flushed()
    })
    await this.#flush
  }

  async #write (batch: Batch): Promise<void> {
    try {
      await this.#writer.write(batch)
    } catch (error) {
      if (this.#pending.size + batch.size <= this.options.maxPending) {
        this.#pending.absorb(batch)
        this.options.onError(error, 'writing SDK usage failed; it is tried again at the next flush')
      } else {
        this.options.onError(error, `writing SDK usage failed; ${batch.size} rows of usage are lost (USAGE_MAX_PENDING)`)
      }
    }
  }

  /** Waits while the pending rows are at their cap (a flush makes room). */
  async #room () {
    while (this.#pending.size >= this.options.maxPending) await this.flush()
  }

  #early () {
    if (this.#pending.size >= this.options.maxPending) this.flush()
  }
}
