import { type ExpressionBuilder, sql, type Transaction } from 'kysely'
import { ALL, isAdmin, type TokenScope } from '../auth/tokens.js'
import type { DB, Queryable } from '../db/types.js'

export type EventType =
  | 'project-created'
  | 'environment-created'
  | 'feature-created'
  | 'feature-environment-variants-updated'
  | 'feature-completed'
  | 'feature-uncompleted'
  | 'feature-environment-enabled'
  | 'feature-environment-disabled'
  | 'feature-archived'
  | 'feature-revived'
  | 'api-token-created'
  | 'api-token-deleted'
  | 'project-environment-added'
  | 'feature-lifecycle-stage-entered'

/** JSON already serialised, so that a large document is serialised once for its row, its event and the reply. */
export type JsonText = string & { readonly jsonText: unique symbol }
export const toJsonText = (value: unknown) => JSON.stringify(value) as JsonText
/** `{"<member>": <json>}` without parsing or serialising `json` again. */
export const jsonMember = (member: string, json: string) =>
  `{${JSON.stringify(member)}:${json}}` as JsonText

export interface NewEvent {
  type: EventType
  createdBy: string
  project?: string
  featureName?: string
  environment?: string
  data?: JsonText
  preData?: JsonText
}

export interface StoredEvent {
  id: number
  type: string
  createdAt: Date
  createdBy: string
  project: string | null
  featureName: string | null
  environment?: string
  data: unknown
  preData?: unknown
}

/** The events table row of an event. */
export const eventRow = (event: NewEvent) => ({
  type: event.type,
  created_by: event.createdBy,
  project: event.project ?? null,
  feature_name: event.featureName ?? null,
  environment: event.environment ?? null,
  data: event.data ?? null,
  pre_data: event.preData ?? null,
})

/**
 * Inserts the events of a change. Only the change's own transaction calls it (through
 * writeChange in events.service.ts), so an event exists exactly when its change does.
 */
export async function insertEvents (trx: Transaction<DB>, events: readonly NewEvent[]): Promise<void> {
  await trx.insertInto('events').values(events.map(eventRow)).execute()
}

/**
 * The version of everything readers see, commit-ordered: the newest transaction id among the
 * events written by transactions older than the oldest one still running. Every transaction
 * below that horizon has ended, so no change can later commit beneath a version already
 * reported, on this instance or any other; a change still in flight holds the version back
 * until it ends. One index lookup.
 */
export async function committedVersion (db: Queryable): Promise<string> {
  const row = await db
    .selectFrom('events')
    .select('txid')
    .where('txid', '<', sql<string>`pg_snapshot_xmin(pg_current_snapshot())`)
    .orderBy('txid', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row?.txid ?? '0'
}

export interface EventFilter {
  project?: string
  feature?: string
  environment?: string
  type?: string
  /** Only events older than this id (the cursor of the previous page). */
  before?: number
  limit: number
}

/** A page stops growing once its events hold this many bytes of data (it always has one event). */
export const EVENTS_PAGE_BYTES = 4 * 1024 * 1024

/**
 * Narrows the listing to what the token may see: events of its projects, in its
 * environments or in none; and the api-token events (every token's name and scope) only
 * for a token with access to everything.
 */
function inScope (token: TokenScope) {
  return (eb: ExpressionBuilder<DB, 'events'>) => {
    const conditions = []
    if (!token.projects.includes(ALL)) {
      conditions.push(eb('project', 'in', token.projects))
    }
    if (!token.environments.includes(ALL)) {
      conditions.push(
        eb.or([eb('environment', 'is', null), eb('environment', 'in', token.environments)])
      )
    }
    if (!isAdmin(token)) {
      conditions.push(eb('type', 'not in', ['api-token-created', 'api-token-deleted']))
    }
    return eb.and(conditions)
  }
}

export interface EventsPage {
  events: StoredEvent[]
  /** More events match: pass the last id as `before` for the next page. */
  more: boolean
}

/**
 * A page of at most `limit` events, newest first, that also stops before EVENTS_PAGE_BYTES of
 * data: first the ids and stored sizes (read without reading the values), then the rows
 * that fit.
 */
export async function listEvents (
  db: Queryable,
  filter: EventFilter,
  token: TokenScope
): Promise<EventsPage> {
  let matching = db.selectFrom('events').where(inScope(token))
  if (filter.project !== undefined) matching = matching.where('project', '=', filter.project)
  if (filter.feature !== undefined) matching = matching.where('feature_name', '=', filter.feature)
  if (filter.environment !== undefined) matching = matching.where('environment', '=', filter.environment)
  if (filter.type !== undefined) matching = matching.where('type', '=', filter.type)
  if (filter.before !== undefined) matching = matching.where('id', '<', filter.before)
  const sizes = await matching
    .select([
      'id',
      sql<string>`coalesce(octet_length(data::text), 0) + coalesce(octet_length(pre_data::text), 0)`.as('size'),
    ])
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute()
  const ids: (string | number)[] = []
  let bytes = 0
  for (const row of sizes.slice(0, filter.limit)) {
    bytes += Number(row.size)
    if (ids.length > 0 && bytes > EVENTS_PAGE_BYTES) break
    ids.push(row.id)
  }
  if (ids.length === 0) return { events: [], more: false }
  const rows = await db.selectFrom('events').selectAll().where('id', 'in', ids).orderBy('id', 'desc').execute()
  return {
    more: sizes.length > ids.length,
    events: rows.map((row) => ({
      id: Number(row.id),
      type: row.type,
      createdAt: row.created_at,
      createdBy: row.created_by,
      project: row.project,
      featureName: row.feature_name,
      ...(row.environment !== null && { environment: row.environment }),
      data: row.data === null ? null : JSON.parse(row.data),
      ...(row.pre_data !== null && { preData: JSON.parse(row.pre_data) }),
    })),
  }
}
