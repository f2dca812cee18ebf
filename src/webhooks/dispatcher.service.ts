import type { FastifyBaseLogger } from 'fastify'
import { every, type Worker } from '../background/worker.js'
import type { Config } from '../config.js'
import type { Database } from '../db/types.js'
import { renderBody } from './payload.js'
import { postOnce, type SendResult } from './send.js'
import { signatures } from './signing.js'
import { checkTarget, RefusedTarget, type Resolve } from './ssrf.js'
import { claimDeliveries, type ClaimedDelivery, type Outcome, pruneDeliveries, recordAttempt } from './deliveries.store.js'
import { anyEnabledWebhook } from './webhooks.store.js'

/** Deliveries one instance sends at once, and of them at most this many to one webhook. */
export const MAX_IN_FLIGHT = 16
export const MAX_IN_FLIGHT_PER_WEBHOOK = 4
/** Retry delays stop doubling here. */
const MAX_RETRY_DELAY_MS = 3_600_000
/** Largest body a template may render; a larger one fails the delivery. */
const MAX_BODY_BYTES = 1024 * 1024
const PRUNE_EVERY_MS = 3_600_000
/**
 * How long whether any webhook is enabled is believed: while none is, a commit's wake claims
 * nothing (no query per commit where nobody listens). A webhook enabled through this instance
 * is seen at once (`webhooksChanged`), one enabled through another instance within this.
 */
const ENABLED_KNOWN_MS = 1000

/**
 * The delay before attempt `n + 1` after `n` failed ones: base × 2^(n−1), at most an hour, with
 * "equal jitter" (between half and all of it), so that receivers coming back are not hit by
 * every retry at once.
 */
export function retryDelay (failedAttempts: number, baseMs: number, random = Math.random): number {
  const full = Math.min(baseMs * 2 ** Math.min(failedAttempts - 1, 40), MAX_RETRY_DELAY_MS)
  return Math.round(full / 2 + random() * (full / 2))
}

/** What a claimed delivery's outcome is, given this attempt's result. */
export function outcomeOf (result: SendResult, attemptInSeries: number, config: Pick<Config['webhooks'], 'maxAttempts' | 'retryBaseMs'>): Outcome {
  if (result.error === undefined) return { state: 'delivered' }
  if (attemptInSeries >= config.maxAttempts) return { state: 'dead' }
  return { state: 'pending', retryInMs: retryDelay(attemptInSeries, config.retryBaseMs) }
}

/**
 * Sends webhook deliveries; one runs in every instance. It claims due deliveries for the slots
 * it has free (MAX_IN_FLIGHT, of them MAX_IN_FLIGHT_PER_WEBHOOK per webhook), each under a lease
 * of WEBHOOK_LEASE_MS, sends them concurrently, and records each attempt. It claims when woken
 * (`wake()`: a change committed on any instance, or one of its sends finished and freed a slot)
 * and every WEBHOOK_POLL_MS (retries coming due, a missed wake). Claims are coalesced: one at a
 * time, and one more right after it when woken meanwhile. Each webhook's due deliveries are
 * claimed oldest first (due time, then event order). No database connection or transaction is
 * held while a receiver answers, and a receiver that hangs holds at most its own slots for
 * WEBHOOK_TIMEOUT_MS: requests and other webhooks go on.
 */
export class Dispatcher implements Worker {
  readonly #inFlight = new Map<string, Promise<void>>()
  readonly #perWebhook = new Map<number, number>()
  readonly #abort = new AbortController()
  readonly #poll: Worker
  #claiming: Promise<number> | undefined
  /** Woken while a claim was under way: claim again when it ends. */
  #again = false
  /** Whether any webhook is enabled, as last read, and until when that is believed. */
  #enabled = { value: true, until: 0 }
  #running = false

  constructor (
    private readonly db: Database,
    private readonly config: Config['webhooks'],
    private readonly log: FastifyBaseLogger,
    private readonly resolve: Resolve
  ) {
    // The first poll comes within one interval: instances started together do not poll in step.
    this.#poll = every(config.pollMs, () => this.claimDue(), {
      firstAfterMs: Math.random() * config.pollMs,
      onError: (err) => log.warn({ err }, 'claiming webhook deliveries failed; tried again at the next poll'),
    })
  }

  start (): void {
    if (this.#running) return
    this.#running = true
    this.#poll.start()
  }

  /** Stops polling and aborts the sends in flight (each is recorded as failed and retried later). */
  async stop (): Promise<void> {
    this.#running = false
    const polling = this.#poll.stop()
    this.#abort.abort()
    await polling
    await this.#claiming?.catch(() => {})
    await Promise.all(this.#inFlight.values())
  }

  /**
   * Something may be due (a change committed, a slot freed): claim now, or right after the
   * claim under way. Cheap to call often.
   */
  wake (): void {
    if (!this.#running || (!this.#enabled.value && this.#enabled.until > Date.now())) return
    if (this.#claiming) {
      this.#again = true
      return
    }
    this.claimDue().catch((err: unknown) => this.log.warn({ err }, 'claiming webhook deliveries failed; tried again at the next poll'))
  }

  /** A webhook was created, changed or a delivery requeued through this instance: look again now. */
  webhooksChanged (): void {
    this.#enabled.until = 0
    this.wake()
  }

  /**
   * Claims due deliveries for the free slots and starts sending them; resolves with how many
   * were claimed (without waiting for the sends). One claim at a time per instance.
   */
  claimDue (): Promise<number> {
    this.#claiming ??= this.#claim().finally(() => {
      this.#claiming = undefined
      if (this.#again) {
        this.#again = false
        this.wake()
      }
    })
    return this.#claiming
  }

  /** Until nothing is due or in flight: every delivery that is due now has been attempted (for tests and tools). */
  async settle (): Promise<void> {
    for (;;) {
      const claimed = await this.claimDue()
      if (claimed === 0 && this.#inFlight.size === 0) return
      await Promise.race([...this.#inFlight.values(), new Promise((resolve) => setTimeout(resolve, 20))])
    }
  }

  async #claim (): Promise<number> {
    const free = MAX_IN_FLIGHT - this.#inFlight.size
    if (free <= 0 || this.#abort.signal.aborted) return 0
    const now = Date.now()
    if (this.#enabled.until <= now) this.#enabled = { value: await anyEnabledWebhook(this.db), until: now + ENABLED_KNOWN_MS }
    if (!this.#enabled.value) return 0
    const claimed = await claimDeliveries(this.db, {
      limit: free,
      perWebhook: MAX_IN_FLIGHT_PER_WEBHOOK,
      inFlight: Object.fromEntries(this.#perWebhook),
      leaseMs: this.config.leaseMs,
    })
    for (const delivery of claimed) {
      this.#perWebhook.set(delivery.webhookId, (this.#perWebhook.get(delivery.webhookId) ?? 0) + 1)
      const sending = this.#deliver(delivery)
        .catch((err: unknown) => this.log.error({ err, deliveryId: delivery.id }, 'recording a webhook attempt failed; it is retried when its lease ends'))
        .finally(() => {
          this.#inFlight.delete(delivery.id)
          const left = (this.#perWebhook.get(delivery.webhookId) ?? 1) - 1
          if (left === 0) this.#perWebhook.delete(delivery.webhookId)
          else this.#perWebhook.set(delivery.webhookId, left)
          // A slot is free: the next due delivery goes now, not at the next poll.
          this.wake()
        })
      this.#inFlight.set(delivery.id, sending)
    }
    return claimed.length
  }

  async #deliver (delivery: ClaimedDelivery): Promise<void> {
    if (delivery.staleLease !== null && delivery.attempt > 1) {
      // The instance that made the previous attempt stopped before it recorded a result.
      await recordAttempt(this.db, {
        deliveryId: delivery.id,
        attempt: delivery.attempt - 1,
        startedAt: new Date(delivery.staleLease.getTime() - this.config.leaseMs),
        durationMs: null,
        status: null,
        error: 'no result: the instance sending it stopped before its lease ended',
      })
    }
    const startedAt = new Date()
    const started = performance.now()
    const record = (result: SendResult, outcome: Outcome) =>
      recordAttempt(this.db, {
        deliveryId: delivery.id,
        attempt: delivery.attempt,
        startedAt,
        durationMs: Math.round(performance.now() - started),
        status: result.status ?? null,
        error: result.error ?? null,
      }, outcome)

    let body: string
    try {
      body = renderBody(delivery.event, delivery.bodyTemplate)
    } catch (error) {
      return record({ error: `the body template failed: ${(error as Error).message}` }, { state: 'dead' })
    }
    if (Buffer.byteLength(body) > MAX_BODY_BYTES) {
      return record({ error: `the rendered body is larger than ${MAX_BODY_BYTES} bytes` }, { state: 'dead' })
    }
    let result: SendResult
    try {
      const target = await checkTarget(delivery.url, {
        allowedNetworks: this.config.allowedNetworks,
        resolve: this.resolve,
        timeoutMs: this.config.timeoutMs,
      })
      const timestamp = Math.floor(Date.now() / 1000)
      const headers: Record<string, string> = {
        ...(delivery.customHeaders === null ? {} : (JSON.parse(delivery.customHeaders) as Record<string, string>)),
        'content-type': delivery.contentType ?? 'application/json',
        'user-agent': 'feature-flag-admin-api-webhooks',
        'webhook-id': delivery.messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatures(delivery.secrets, delivery.messageId, timestamp, body),
        ...(delivery.authorization === null ? {} : { authorization: delivery.authorization }),
      }
      const timeout = {
        ms: Math.max(1, this.config.timeoutMs - Math.round(performance.now() - started)),
        error: `no answer within ${this.config.timeoutMs} ms`,
      }
      result = await postOnce(target, headers, body, timeout, this.#abort.signal)
    } catch (error) {
      if (!(error instanceof RefusedTarget)) throw error
      // A name that does not resolve now may later: a failed attempt. A refused address is a
      // rule, not a passing failure: the delivery is dead, with the reason.
      if (!error.transient) return record({ error: `refused: ${error.rule}` }, { state: 'dead' })
      result = { error: error.rule }
    }
    const outcome = outcomeOf(result, delivery.attemptInSeries, this.config)
    if (result.error !== undefined) {
      this.log.info({ deliveryId: delivery.id, addonId: delivery.webhookId, attempt: delivery.attempt, status: result.status, error: result.error, next: outcome.state }, 'webhook attempt failed')
    }
    await record(result, outcome)
  }

  /** Deletes delivered and dead deliveries older than WEBHOOK_RETENTION_DAYS. */
  async prune (): Promise<number> {
    let total = 0
    for (;;) {
      const deleted = await pruneDeliveries(this.db, this.config.retentionDays)
      total += deleted
      if (deleted === 0) return total
    }
  }
}

/** Prunes old deliveries every hour, on every instance, the first time within a minute of start-up. */
export const deliveryPruner = (dispatcher: Dispatcher, log: FastifyBaseLogger): Worker =>
  every(PRUNE_EVERY_MS, () => dispatcher.prune(), {
    firstAfterMs: Math.random() * 60_000,
    onError: (err) => log.warn({ err }, 'pruning webhook deliveries failed; tried again in an hour'),
  })
