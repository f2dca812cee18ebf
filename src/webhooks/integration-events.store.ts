import { sql } from 'kysely'
import type { DeliveryState, Queryable } from '../db/types.js'
import { EVENTS_PAGE_BYTES, type StoredEvent } from '../events/events.schemas.js'
import { toStoredEvent } from '../events/events.store.js'

/** One delivery of a webhook that has been tried at least once, with its event and attempts. */
export interface TriedDelivery {
  id: string
  webhookId: number
  state: DeliveryState
  messageId: string
  nextAttemptAt: Date
  event: StoredEvent
  /** Oldest first; never empty. */
  attempts: { attempt: number; startedAt: Date; durationMs: number | null; status: number | null; error: string | null }[]
}

/**
 * A page of a webhook's deliveries that were tried (Unleash's integration events), newest
 * first, from `offset`: at most `limit` of them and EVENTS_PAGE_BYTES of event data (a page
 * always holds one).
 */
export async function triedDeliveries (db: Queryable, webhookId: number, page: { limit: number; offset: number }): Promise<TriedDelivery[]> {
  const sizes = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.id', sql<string>`coalesce(octet_length(e.data::text), 0) + coalesce(octet_length(e.pre_data::text), 0)`.as('size')])
    .where('d.webhook_id', '=', webhookId)
    .where((eb) => eb.exists(eb.selectFrom('webhook_attempts as a').select('a.attempt').whereRef('a.delivery_id', '=', 'd.id')))
    .orderBy('d.id', 'desc')
    .offset(page.offset)
    .limit(page.limit)
    .execute()
  const ids: string[] = []
  let bytes = 0
  for (const row of sizes) {
    bytes += Number(row.size)
    if (ids.length > 0 && bytes > EVENTS_PAGE_BYTES) break
    ids.push(row.id)
  }
  if (ids.length === 0) return []
  const [rows, attempts] = await Promise.all([
    db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select(['d.id as delivery_id', 'd.webhook_id', 'd.state', 'd.message_id', 'd.next_attempt_at'])
      .select(['e.id', 'e.type', 'e.created_at', 'e.created_by', 'e.created_by_user_id', 'e.project', 'e.feature_name', 'e.environment', 'e.data', 'e.pre_data'])
      .where('d.id', 'in', ids)
      .orderBy('d.id', 'desc')
      .execute(),
    db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', ids).orderBy('delivery_id').orderBy('attempt').execute(),
  ])
  return rows.map((r) => ({
    id: String(r.delivery_id),
    webhookId: r.webhook_id,
    state: r.state,
    messageId: r.message_id,
    nextAttemptAt: r.next_attempt_at,
    event: toStoredEvent(r),
    attempts: attempts
      .filter((a) => a.delivery_id === r.delivery_id)
      .map((a) => ({ attempt: a.attempt, startedAt: a.started_at, durationMs: a.duration_ms, status: a.status, error: a.error })),
  }))
}
