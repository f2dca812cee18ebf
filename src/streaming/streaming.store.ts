import { type ExpressionBuilder, sql } from 'kysely'
import type { DB, Queryable } from '../db/types.js'

/**
 * Events that can change what the client API serves: every event about a feature, the segment
 * events, and the wide ones that change which features an environment or project serves
 * without naming them (an import, an environment added to a project or created).
 */
export const SEGMENT_EVENTS = ['segment-created', 'segment-updated', 'segment-deleted'] as const
export const WIDE_EVENTS = ['features-imported', 'project-environment-added', 'environment-created'] as const

const forClients = (eb: ExpressionBuilder<DB, 'events'>) =>
  eb.or([eb('events.feature_name', 'is not', null), eb('events.type', 'in', [...SEGMENT_EVENTS, ...WIDE_EVENTS])])

/** What a reader reads just before its snapshot (see readWatermark). */
export interface Horizon {
  /** Every transaction id below it had been given out (its snapshot's xmax: latest completed + 1). */
  assigned: bigint
  /** The transactions of this database running then, by their 32-bit id. */
  running: Set<bigint>
}

const XID_MASK = (1n << 32n) - 1n

/** Read in a statement of its own, before the reader's repeatable-read transaction begins. */
export async function readHorizon (q: Queryable): Promise<Horizon> {
  const { rows } = await sql<{ assigned: string; running: string[] }>`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS assigned,
    ARRAY(SELECT backend_xid::text FROM pg_stat_activity WHERE datname = current_database() AND backend_xid IS NOT NULL) AS running`.execute(q)
  return { assigned: BigInt(rows[0]!.assigned), running: new Set(rows[0]!.running.map((x) => BigInt(x))) }
}

/**
 * The watermark of the reader's snapshot: every transaction of this database with a smaller id
 * has finished, so no event below it can still appear. It is the smallest of `horizon.assigned`
 * and the ids of the snapshot's running transactions that ran in this database at the horizon
 * (transactions of other databases on the same server do not hold it back). Safe: a
 * transaction below `assigned` that still runs at the snapshot was given its id before the
 * horizon and ran then too, so it is in `running`; one given its id later is not below
 * `assigned`. Read first in the caller's repeatable-read transaction, so that the rest of its
 * reads see that snapshot.
 */
export async function readWatermark (q: Queryable, horizon: Horizon): Promise<bigint> {
  const { rows } = await sql<{ xmax: string; xip: string[] }>`SELECT pg_snapshot_xmax(s)::text AS xmax, ARRAY(SELECT x::text FROM pg_snapshot_xip(s) AS x) AS xip
    FROM (SELECT pg_current_snapshot() AS s) AS snapshot`.execute(q)
  let watermark = BigInt(rows[0]!.xmax) < horizon.assigned ? BigInt(rows[0]!.xmax) : horizon.assigned
  for (const text of rows[0]!.xip) {
    const xid = BigInt(text)
    if (xid < watermark && horizon.running.has(xid & XID_MASK)) watermark = xid
  }
  return watermark
}

/**
 * The revision of everything below `watermark`: one more than the transaction id of the last
 * event there that clients care about (1 when there is none). It names a set of events, so it
 * is the same on every instance that has read them, and only moves when one is added.
 */
export async function revisionBelow (q: Queryable, watermark: bigint): Promise<bigint> {
  const row = await q
    .selectFrom('events')
    .select('xact_id')
    .where('xact_id', '<', watermark.toString())
    .where(forClients)
    .orderBy('xact_id', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row === undefined ? 1n : BigInt(row.xact_id) + 1n
}

/** Whether an event clients care about has a transaction id `op` `xactId`. */
async function anyClientEvent (q: Queryable, op: '=' | '>=', xactId: bigint): Promise<boolean> {
  const row = await q
    .selectFrom('events')
    .select('id')
    .where('xact_id', op, xactId.toString())
    .where(forClients)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** Whether `revision` is one this database has given out: one more than an event's transaction id. */
export const isRevision = (q: Queryable, revision: bigint): Promise<boolean> => anyClientEvent(q, '=', revision - 1n)

/** Whether an event clients care about is visible at or above `watermark` (committed, held back by an older transaction still running). */
export const anyEventFrom = (q: Queryable, watermark: bigint): Promise<boolean> => anyClientEvent(q, '>=', watermark)

export interface ChangeRow {
  xact_id: string
  type: string
  project: string | null
  feature_name: string | null
  environment: string | null
  /** For segment events: the segment's id. */
  segment_id: string | null
}

/**
 * The events clients care about from `from` (inclusive) to below `watermark`, in transaction
 * order (and the order each wrote them), at most `limit`.
 */
export async function changesBetween (q: Queryable, from: bigint, watermark: bigint, limit: number): Promise<ChangeRow[]> {
  return q
    .selectFrom('events')
    .select(['xact_id', 'type', 'project', 'feature_name', 'environment'])
    .select(sql<string | null>`CASE WHEN type IN ('segment-created', 'segment-updated', 'segment-deleted') THEN coalesce(data, pre_data)::json->>'id' END`.as('segment_id'))
    .where('xact_id', '>=', from.toString())
    .where('xact_id', '<', watermark.toString())
    .where(forClients)
    .orderBy('xact_id')
    .orderBy('id')
    .limit(limit)
    .execute()
}

/** The names of the API tokens deleted, or given a new expiry, by transactions from `from` to below `watermark`. */
export async function tokensDeletedBetween (q: Queryable, from: bigint, watermark: bigint): Promise<string[]> {
  const rows = await q
    .selectFrom('events')
    .select(sql<string>`data::json->>'tokenName'`.as('name'))
    .where('type', 'in', ['api-token-deleted', 'api-token-updated'])
    .where('xact_id', '>=', from.toString())
    .where('xact_id', '<', watermark.toString())
    .execute()
  return rows.map((r) => r.name)
}
