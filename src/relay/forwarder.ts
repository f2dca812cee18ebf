import type { Static } from '@sinclair/typebox'
import { ALL, type TokenScope } from '../access/scope.js'
import { every, type Worker } from '../background/worker.js'
import { ApiError } from '../errors.js'
import type { BulkMetric, BulkMetrics, BulkRegistration, ClientMetrics, ClientRegistration } from '../usage/usage.schemas.js'
import type { FrontendAnnouncement, UsageSink } from '../usage/usage.service.js'
import { type Upstream, UpstreamError } from './upstream.js'

type Registration = Static<typeof BulkRegistration>
type Metric = Static<typeof BulkMetric>

/** Registrations and counts waiting to go upstream with one secret. */
interface Pending {
  applications: Map<string, Registration>
  metrics: Map<string, Required<Pick<Metric, 'yes' | 'no'>> & Metric & { variants: Record<string, number> }>
}

const rowsOf = (p: Pending) => p.applications.size + p.metrics.size

/** What happened to the rows reported to this relay: sent upstream, or dropped (and why). */
export interface ForwardStats {
  forwarded: number
  dropped: { full: number; refused: number; unserved: number }
}

export interface ForwarderOptions {
  /** How often what was reported is sent (USAGE_FLUSH_MS). */
  flushMs: number
  /** Rows (registrations, counts per application and feature) held at most (USAGE_MAX_PENDING). */
  maxPending: number
  /** The secret a token's usage is sent upstream with: its own (client), its covering client token's (frontend). */
  secretFor: (token: TokenScope) => string | undefined
  /** The project of a flag the relay holds for this token (undefined: not held). */
  projectOf: (token: TokenScope, featureName: string) => string | undefined
  log: { warn(obj: object, msg: string): void }
}

const HOUR_MS = 3_600_000

/**
 * SDK usage at a relay (registrations and metrics of the client and frontend APIs, and the
 * batches of relays behind it): summed in memory per secret, and sent upstream every
 * USAGE_FLUSH_MS in one POST /api/client/metrics/bulk per secret, however many reports came.
 * While the upstream is away (no answer, 5xx, 429) what was not sent is kept and sent with the
 * next batch; at most USAGE_MAX_PENDING rows are held, and what does not fit is dropped and
 * counted. A batch the upstream refuses (4xx) is dropped and counted: sending it again would
 * be refused again.
 */
export class UsageForwarder implements UsageSink, Worker {
  #pending = new Map<string, Pending>()
  #rows = 0
  #flushing: Promise<void> | undefined
  readonly #timer: Worker
  readonly stats: ForwardStats = { forwarded: 0, dropped: { full: 0, refused: 0, unserved: 0 } }

  constructor (private readonly upstream: Upstream, private readonly options: ForwarderOptions) {
    this.#timer = every(options.flushMs, () => this.flush(), { onError: (err) => options.log.warn({ err }, 'relay: sending usage upstream failed') })
  }

  start (): void {
    this.#timer.start()
  }

  async stop (): Promise<void> {
    await this.#timer.stop()
    await this.flush()
  }

  get pending (): number {
    return this.#rows
  }

  #for (token: TokenScope): Pending {
    const secret = this.options.secretFor(token)
    if (secret === undefined) {
      this.stats.dropped.unserved++
      throw new ApiError('MissingClientTokenError', `No client token this relay serves covers environment ${token.environments[0]}: its usage cannot be sent upstream`)
    }
    let pending = this.#pending.get(secret)
    if (pending === undefined) this.#pending.set(secret, (pending = { applications: new Map(), metrics: new Map() }))
    return pending
  }

  #application (pending: Pending, registration: Registration) {
    const key = `${registration.appName}\n${registration.instanceId}`
    if (!pending.applications.has(key)) {
      if (this.#rows >= this.options.maxPending) {
        this.stats.dropped.full++
        return
      }
      this.#rows++
    }
    pending.applications.set(key, registration)
  }

  #metric (pending: Pending, metric: Metric) {
    if ((metric.yes ?? 0) + (metric.no ?? 0) === 0) return
    const hour = Math.floor(Date.parse(metric.timestamp ?? new Date().toISOString()) / HOUR_MS)
    const key = `${metric.appName}\n${metric.environment}\n${metric.featureName}\n${hour}`
    let sum = pending.metrics.get(key)
    if (sum === undefined) {
      if (this.#rows >= this.options.maxPending) {
        this.stats.dropped.full++
        return
      }
      this.#rows++
      sum = { featureName: metric.featureName, appName: metric.appName, environment: metric.environment, timestamp: metric.timestamp ?? new Date().toISOString(), yes: 0, no: 0, variants: {} }
      pending.metrics.set(key, sum)
    }
    sum.yes += metric.yes ?? 0
    sum.no += metric.no ?? 0
    for (const [name, n] of Object.entries(metric.variants ?? {})) sum.variants[name] = (sum.variants[name] ?? 0) + n
  }

  async register (token: TokenScope, body: Static<typeof ClientRegistration>): Promise<void> {
    this.#application(this.#for(token), {
      appName: body.appName,
      instanceId: body.instanceId,
      environment: token.environments[0]!,
      interval: body.interval,
      started: body.started,
      strategies: body.strategies,
      ...(body.sdkVersion !== undefined && { sdkVersion: body.sdkVersion }),
      sdkType: 'backend',
    })
  }

  /**
   * Whether a report of this token about this flag counts: as on the server, only flags of the
   * token's projects. A frontend token's usage goes upstream with its covering client token,
   * whose projects may be more, so the relay leaves those flags out itself.
   */
  #counts (token: TokenScope, featureName: string): boolean {
    if (token.type !== 'frontend' || token.projects.includes(ALL)) return true
    const project = this.options.projectOf(token, featureName)
    return project === undefined || token.projects.includes(project)
  }

  async count (token: TokenScope, body: Static<typeof ClientMetrics>): Promise<void> {
    const pending = this.#for(token)
    for (const [featureName, c] of Object.entries(body.bucket.toggles)) {
      if (!this.#counts(token, featureName)) continue
      this.#metric(pending, { featureName, appName: body.appName, environment: token.environments[0]!, timestamp: body.bucket.stop, yes: c.yes, no: c.no, ...(c.variants !== undefined && { variants: c.variants }) })
    }
  }

  announce (token: TokenScope, body: FrontendAnnouncement): void {
    this.#application(this.#for(token), {
      appName: body.appName,
      instanceId: body.instanceId ?? 'browser',
      environment: token.environments[0]!,
      interval: body.interval,
      // A start time past what a date can hold is sent as now (the upstream would refuse the batch).
      started: typeof body.started === 'number' && body.started > 8.64e15 ? Date.now() : body.started,
      strategies: body.strategies,
      ...(body.sdkVersion !== undefined && { sdkVersion: body.sdkVersion }),
      sdkType: 'frontend',
      projects: token.projects,
    })
  }

  async bulk (token: TokenScope, body: BulkMetrics): Promise<void> {
    const pending = this.#for(token)
    for (const application of body.applications) this.#application(pending, application)
    for (const metric of body.metrics) this.#metric(pending, metric)
  }

  /** Sends what is pending: one request per secret. One flush at a time; a call meanwhile waits for it. */
  async flush (): Promise<void> {
    while (this.#flushing) await this.#flushing
    if (this.#rows === 0) return
    const batches = this.#pending
    this.#pending = new Map()
    this.#rows = 0
    this.#flushing = this.#send(batches).finally(() => { this.#flushing = undefined })
    await this.#flushing
  }

  async #send (batches: Map<string, Pending>): Promise<void> {
    for (const [secret, pending] of batches) {
      const rows = rowsOf(pending)
      const body = { applications: [...pending.applications.values()], metrics: [...pending.metrics.values()] }
      try {
        const status = await this.upstream.bulk(secret, body)
        if (status >= 200 && status < 300) {
          this.stats.forwarded += rows
        } else {
          this.stats.dropped.refused += rows
          this.options.log.warn({ status, rows }, 'relay: the upstream refused a batch of usage; it is dropped')
        }
      } catch (error) {
        if (!(error instanceof UpstreamError)) throw error
        this.#keep(secret, pending)
      }
    }
  }

  /** Puts back what could not be sent, as far as it fits. */
  #keep (secret: string, unsent: Pending) {
    let pending = this.#pending.get(secret)
    if (pending === undefined) this.#pending.set(secret, (pending = { applications: new Map(), metrics: new Map() }))
    for (const application of unsent.applications.values()) this.#application(pending, application)
    for (const metric of unsent.metrics.values()) this.#metric(pending, metric)
  }
}
