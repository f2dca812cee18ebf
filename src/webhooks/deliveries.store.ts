import { sql, type Transaction } from 'kysely'
import type { DB, Database, DeliveryState, Queryable } from '../db/types.js'
import { type StoredEvent } from '../events/events.schemas.js'
import { toStoredEvent } from '../events/events.store.js'

/*
 * The webhook delivery queue: its rows (one per event and webhook, inserted with the event by
 * events.store) are read for the deliveries list, claimed under a lease, recorded attempt by
 * attempt, requeued by a redelivery and pruned. The webhooks themselves are in webhooks.store.
 */

export interface DeliveryPage {
  deliveries: {
    id: number
    eventId: number
    eventType: string
    messageId: string
    state: DeliveryState
    attempts: { attempt: number; startedAt: Date; durationMs: number | null; status: number | null; error: string | null }[]
    nextAttemptAt: Date | null
    createdAt: Date
    finishedAt: Date | null
  }[]
  more: boolean
}

/** A page of a webhook's deliveries, newest first, with their attempts (oldest first). */
export async function listDeliveries (db: Queryable, webhookId: number, page: { limit: number; before?: number }): Promise<DeliveryPage> {
  let query = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.id', 'd.event_id', 'e.type', 'd.message_id', 'd.state', 'd.next_attempt_at', 'd.created_at', 'd.finished_at'])
    .where('d.webhook_id', '=', webhookId)
  if (page.before !== undefined) query = query.where('d.id', '<', String(page.before))
  const rows = await query.orderBy('d.id', 'desc').limit(page.limit + 1).execute()
  const shown = rows.slice(0, page.limit)
  const attempts = shown.length === 0
    ? []
    : await db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', 'in', shown.map((r) => r.id))
      .orderBy('delivery_id')
      .orderBy('attempt')
      .execute()
  return {
    more: rows.length > page.limit,
    deliveries: shown.map((r) => ({
      id: Number(r.id),
      eventId: Number(r.event_id),
      eventType: r.type,
      messageId: r.message_id,
      state: r.state,
      attempts: attempts
        .filter((a) => a.delivery_id === r.id)
        .map((a) => ({ attempt: a.attempt, startedAt: a.started_at, durationMs: a.duration_ms, status: a.status, error: a.error })),
      nextAttemptAt: r.state === 'pending' ? r.next_attempt_at : null,
      createdAt: r.created_at,
      finishedAt: r.finished_at,
    })),
  }
}

/**
 * Makes a delivery of this webhook due again now, with a fresh series of attempts; its
 * webhook-id stays. One in flight keeps its lease: it is not sent twice at once.
 */
export async function requeueDelivery (trx: Transaction<DB>, webhookId: number, deliveryId: number) {
  return trx
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      state: 'pending',
      next_attempt_at: sql<Date>`now()`,
      attempts_base: eb.ref('attempts'),
      finished_at: null,
    }))
    .where('id', '=', String(deliveryId))
    .where('webhook_id', '=', webhookId)
    .returning(['id', 'event_id', 'message_id'])
    .executeTakeFirst()
}

/** A delivery claimed for one attempt, with what sending it needs. */
export interface ClaimedDelivery {
  id: string
  webhookId: number
  messageId: string
  /** The number of this attempt (all attempts so far, this one included): it fences the result. */
  attempt: number
  /** Attempts in the current series (since creation or the last redelivery), this one included. */
  attemptInSeries: number
  /** Set when the previous attempt's instance stopped before recording it (its lease ran out). */
  staleLease: Date | null
  url: string
  contentType: string | null
  authorization: string | null
  customHeaders: string | null
  bodyTemplate: string | null
  secrets: string[]
  event: StoredEvent
}

/** Pending, due, and not leased to an instance that may still be sending it. */
const isDue = (table: string) =>
  sql<boolean>`${sql.ref(`${table}.state`)} = 'pending' AND ${sql.ref(`${table}.next_attempt_at`)} <= now() AND (${sql.ref(`${table}.leased_until`)} IS NULL OR ${sql.ref(`${table}.leased_until`)} <= now())`

/**
 * Claims up to `limit` due deliveries (at most `perWebhook` of one webhook, counting those
 * `inFlight`, none of a disabled one) for one attempt each: each gets a lease of
 * `leaseMs` and its attempt count goes up. Rows another instance is claiming are skipped
 * (FOR UPDATE SKIP LOCKED), and a leased row is not due, so no two instances send the same
 * delivery within a lease. One statement, committed on its own: no transaction is held open
 * while sending.
 */
export async function claimDeliveries (
  db: Database,
  options: {
    limit: number
    /** At most this many in flight per webhook, counting `inFlight`. */
    perWebhook: number
    /** Deliveries of each webhook (by id) this instance is sending now. */
    inFlight: Record<number, number>
    leaseMs: number
  }
): Promise<ClaimedDelivery[]> {
  // Webhooks with no slot left are left out at once (the rank below would leave them out too, later).
  const busy = Object.entries(options.inFlight).filter(([, n]) => n >= options.perWebhook).map(([id]) => Number(id))
  let candidates = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .select([
      'd.id',
      'd.webhook_id',
      sql<string>`row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at, d.id)`.as('rank'),
    ])
    .where('w.enabled', '=', true)
    .where(isDue('d'))
  if (busy.length > 0) candidates = candidates.where('d.webhook_id', 'not in', busy)
  const picked = db
    .selectFrom('webhook_deliveries')
    .select(['id', 'leased_until as stale_lease'])
    .where('id', 'in', (eb) => eb.selectFrom(candidates.as('c')).select('c.id').where(
      'c.rank',
      '<=',
      sql<string>`${options.perWebhook} - coalesce((${JSON.stringify(options.inFlight)}::jsonb ->> c.webhook_id::text)::integer, 0)`
    ))
    // Checked again on the locked row: a row another instance claimed meanwhile is no longer due.
    .where(isDue('webhook_deliveries'))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(options.limit)
    .forUpdate()
    .skipLocked()
  const rows = await db
    .updateTable('webhook_deliveries as d')
    .from([picked.as('p'), 'webhooks as w', 'events as e'])
    .set((eb) => ({
      attempts: eb('d.attempts', '+', 1),
      leased_until: sql<Date>`now() + ${options.leaseMs} * interval '1 millisecond'`,
    }))
    .whereRef('d.id', '=', 'p.id')
    .whereRef('w.id', '=', 'd.webhook_id')
    .whereRef('e.id', '=', 'd.event_id')
    .returning([
      'd.id',
      'd.webhook_id',
      'd.message_id',
      'd.attempts',
      'd.attempts_base',
      'p.stale_lease',
      'w.url',
      'w.content_type',
      'w.auth_header',
      'w.custom_headers',
      'w.body_template',
      'w.signing_secret',
      sql<string | null>`CASE WHEN w.previous_secret_until > now() THEN w.previous_secret END`.as('previous_secret'),
      'e.id as event_id',
      'e.type',
      'e.created_by',
      'e.created_by_user_id',
      'e.created_at',
      'e.feature_name',
      'e.project',
      'e.environment',
      'e.data',
      'e.pre_data',
      'e.change_request_id',
      'e.change_request_author',
    ])
    .execute()
  return rows.map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    messageId: r.message_id,
    attempt: r.attempts,
    attemptInSeries: r.attempts - r.attempts_base,
    staleLease: r.stale_lease,
    url: r.url,
    contentType: r.content_type,
    authorization: r.auth_header,
    customHeaders: r.custom_headers,
    bodyTemplate: r.body_template,
    secrets: r.previous_secret === null ? [r.signing_secret] : [r.signing_secret, r.previous_secret],
    event: toStoredEvent({
      id: r.event_id,
      type: r.type,
      created_by: r.created_by,
      created_by_user_id: r.created_by_user_id,
      created_at: r.created_at,
      feature_name: r.feature_name,
      project: r.project,
      environment: r.environment,
      data: r.data,
      pre_data: r.pre_data,
      change_request_id: r.change_request_id,
      change_request_author: r.change_request_author,
    }),
  }))
}

export interface AttemptRecord {
  deliveryId: string
  attempt: number
  startedAt: Date
  durationMs: number | null
  status: number | null
  error: string | null
}

export type Outcome = { state: 'delivered' } | { state: 'dead' } | { state: 'pending'; retryInMs: number }

/**
 * Records an attempt and, if the delivery is still on this attempt (nobody claimed it since),
 * its outcome: delivered, dead, or due again after `retryInMs`; the lease ends. One statement.
 */
export async function recordAttempt (db: Database, record: AttemptRecord, outcome?: Outcome) {
  const attempt = db
    .insertInto('webhook_attempts')
    .columns(['delivery_id', 'attempt', 'started_at', 'duration_ms', 'status', 'error'])
    .expression((eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select([
          'id',
          eb.val(record.attempt).as('attempt'),
          eb.val(record.startedAt).as('started_at'),
          eb.val(record.durationMs).as('duration_ms'),
          eb.val(record.status).as('status'),
          eb.val(record.error).as('error'),
        ])
        .where('id', '=', record.deliveryId)
    )
    .onConflict((oc) => oc.doNothing())
  if (outcome === undefined) {
    await attempt.execute()
    return
  }
  await db
    .with('attempt', () => attempt.returning('delivery_id'))
    .updateTable('webhook_deliveries')
    .set({
      state: outcome.state,
      next_attempt_at: outcome.state === 'pending' ? sql<Date>`now() + ${outcome.retryInMs} * interval '1 millisecond'` : sql<Date>`next_attempt_at`,
      leased_until: null,
      finished_at: outcome.state === 'pending' ? null : sql<Date>`now()`,
    })
    .where('id', '=', record.deliveryId)
    .where('attempts', '=', record.attempt)
    .execute()
}

/** Deletes delivered and dead deliveries (with their attempts) finished more than `retentionDays` ago, a batch at a time. */
export async function pruneDeliveries (db: Database, retentionDays: number, batch = 1000): Promise<number> {
  const deleted = await db
    .deleteFrom('webhook_deliveries')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('state', '<>', 'pending')
        .where('finished_at', '<', sql<Date>`now() - ${retentionDays} * interval '1 day'`)
        .limit(batch)
    )
    .executeTakeFirst()
  return Number(deleted.numDeletedRows)
}
