import { type ExpressionBuilder, type QueryCreator, type Selectable, sql, type Transaction } from 'kysely'
import { type Param, prepare, queryBuilder } from '../db/prepared.js'
import type { DB, EventsTable, Queryable } from '../db/types.js'
import { CHANGES_CHANNEL } from './change-feed.js'
import { ADMIN_ONLY_EVENTS, EVENTS_PAGE_BYTES, type EventFilter, type EventsPage, type NewEvent, type StoredEvent, type Visibility } from './events.schemas.js'

/** The events table row of an event. */
export const eventRow = (event: NewEvent) => ({
  type: event.type,
  created_by: event.createdBy.name,
  created_by_user_id: event.createdBy.userId ?? null,
  project: event.project ?? null,
  feature_name: event.featureName ?? null,
  environment: event.environment ?? null,
  data: event.data ?? null,
  pre_data: event.preData ?? null,
  change_request_id: event.createdBy.changeRequest?.id ?? null,
  change_request_author: event.createdBy.changeRequest?.author ?? null,
})

/** Shards of the state version counter (see migration 0005); a connection bumps its own. */
const SHARDS = 256

/**
 * Adds one to the state version, in the change's transaction: the version moves when it commits.
 * Its RETURNING notifies the change feed's channel (see events/change-feed.ts): PostgreSQL
 * delivers the notification to every listening instance at the commit, never for a rollback,
 * and a statement the change runs anyway carries it (no round trip of its own).
 */
const bumpVersion = (db: QueryCreator<DB>) =>
  db
    .updateTable('state_version_shards')
    .set((eb) => ({ changes: eb('changes', '+', sql<string>`1`) }))
    .where('shard', '=', sql<number>`pg_backend_pid() % ${sql.lit(SHARDS)}`)
    .returning(['shard', sql<string>`pg_notify(${sql.lit(CHANGES_CHANNEL)}, '')::text`.as('notified')])

/**
 * The outbox: a delivery for every enabled webhook that wants an event of this type, project
 * and environment (an empty list means all; an event without a project or environment passes
 * that filter, as in Unleash), selected from the events just inserted. Part of the statement
 * that inserts the events, so an event commits exactly with its deliveries. Without webhooks
 * it reads an empty table.
 */
const deliveriesFor = (eb: ExpressionBuilder<WithInserted, 'webhook_deliveries'>) =>
  eb
    .selectFrom('inserted')
    .innerJoin('webhooks', (join) =>
      join
        .on('webhooks.enabled', '=', true)
        .on((on) => on(on.ref('inserted.type'), '=', on.fn.any('webhooks.events')))
        .on((on) =>
          on.or([
            on(on.fn('cardinality', ['webhooks.projects']), '=', 0),
            on('inserted.project', 'is', null),
            on(on.ref('inserted.project'), '=', on.fn.any('webhooks.projects')),
          ])
        )
        .on((on) =>
          on.or([
            on(on.fn('cardinality', ['webhooks.environments']), '=', 0),
            on('inserted.environment', 'is', null),
            on(on.ref('inserted.environment'), '=', on.fn.any('webhooks.environments')),
          ])
        )
    )
    .select(['webhooks.id as webhook_id', 'inserted.id as event_id'])

/** The events just inserted, as the outbox reads them. */
type WithInserted = DB & { inserted: { id: string | number; type: string; project: string | null; environment: string | null } }

const insertedColumns = ['id', 'type', 'project', 'environment'] as const

/**
 * Inserts the events of a change, their webhook deliveries, and moves the state version, in
 * one statement. Only the change's own transaction calls it (through writeChange in
 * events.service.ts), so an event and its deliveries exist exactly when its change does, and
 * the version moves exactly when they commit.
 */
export async function insertEvents (trx: Transaction<DB>, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 1) {
    await insertOne(trx, eventRow(events[0]!))
    return
  }
  // A large composed change (an import) records more events than one statement can carry
  // (PostgreSQL takes at most 65,535 parameters): the first statement moves the version once,
  // the others only insert.
  for (let start = 0; start < events.length; start += EVENTS_PER_STATEMENT) {
    const rows = events.slice(start, start + EVENTS_PER_STATEMENT).map(eventRow)
    if (start === 0) {
      await trx
        .with('bumped', (db) => bumpVersion(db))
        .with('inserted', (db) => db.insertInto('events').values(rows).returning(insertedColumns))
        .insertInto('webhook_deliveries')
        .columns(['webhook_id', 'event_id'])
        .expression(deliveriesFor)
        .execute()
    } else {
      await trx.with('inserted', (db) => db.insertInto('events').values(rows).returning(insertedColumns)).insertInto('webhook_deliveries').columns(['webhook_id', 'event_id']).expression(deliveriesFor).execute()
    }
  }
}

/** Events per insert statement: ten parameters each, well under PostgreSQL's 65,535. */
const EVENTS_PER_STATEMENT = 5000

/** Most changes record one event: that statement (version, event, deliveries) is prepared. */
const insertOne = prepare((param: Param<ReturnType<typeof eventRow>>) =>
  queryBuilder
    .with('bumped', (db) => bumpVersion(db))
    .with('inserted', (db) =>
      db
        .insertInto('events')
        .values({
          type: param('type'),
          created_by: param('created_by'),
          created_by_user_id: param('created_by_user_id'),
          project: param('project'),
          feature_name: param('feature_name'),
          environment: param('environment'),
          data: param('data'),
          pre_data: param('pre_data'),
          change_request_id: param('change_request_id'),
          change_request_author: param('change_request_author'),
        })
        .returning(insertedColumns)
    )
    .insertInto('webhook_deliveries')
    .columns(['webhook_id', 'event_id'])
    .expression(deliveriesFor)
)

/**
 * The version of everything readers see: the number of changes committed. Every change adds one
 * when it commits (insertEvents), so the version grows with every commit whatever the order in
 * which transactions commit, on this instance or any other; a snapshot sees a prefix of the
 * commits, so two different states never have the same version.
 */
export async function committedVersion (db: Queryable): Promise<string> {
  const row = await db
    .selectFrom('state_version_shards')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('changes'), sql<string>`0`).as('version'))
    .executeTakeFirstOrThrow()
  return String(row.version)
}

/** Events of those projects, in those environments or in none, and the admin-only ones when allowed. */
export function visibleTo (visibility: Visibility) {
  return (eb: ExpressionBuilder<DB, 'events'>) => {
    const conditions = []
    if (visibility.projects !== undefined) {
      conditions.push(eb('project', 'in', visibility.projects))
    }
    if (visibility.environments !== undefined) {
      conditions.push(
        eb.or([eb('environment', 'is', null), eb('environment', 'in', visibility.environments)])
      )
    }
    if (!visibility.adminEvents) {
      conditions.push(eb('type', 'not in', ADMIN_ONLY_EVENTS))
    }
    return eb.and(conditions)
  }
}

/**
 * A page of at most `limit` events, newest first, that also stops before EVENTS_PAGE_BYTES of
 * data: first the ids and stored sizes (read without reading the values), then the rows
 * that fit.
 */
export async function listEvents (
  db: Queryable,
  filter: EventFilter,
  visibility: Visibility
): Promise<EventsPage> {
  let matching = db.selectFrom('events').where(visibleTo(visibility))
  if (filter.project !== undefined) matching = matching.where('project', '=', filter.project)
  if (filter.feature !== undefined) matching = matching.where('feature_name', '=', filter.feature)
  if (filter.environment !== undefined) matching = matching.where('environment', '=', filter.environment)
  if (filter.type !== undefined) matching = matching.where('type', '=', filter.type)
  if (filter.createdBy !== undefined) matching = matching.where('created_by', '=', filter.createdBy)
  if (filter.createdByUserId !== undefined) matching = matching.where('created_by_user_id', '=', filter.createdByUserId)
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
    events: rows.map(toStoredEvent),
  }
}

/** An events row as the events API shows it (and as webhooks deliver it), members in that order. */
type ChangeRequestColumns = 'change_request_id' | 'change_request_author'
export const toStoredEvent = (row: Omit<Selectable<EventsTable>, 'xact_id' | ChangeRequestColumns> & Partial<Pick<Selectable<EventsTable>, ChangeRequestColumns>>): StoredEvent => ({
  id: Number(row.id),
  type: row.type,
  createdAt: row.created_at,
  createdBy: row.created_by,
  createdByUserId: row.created_by_user_id,
  project: row.project,
  featureName: row.feature_name,
  ...(row.environment !== null && { environment: row.environment }),
  data: row.data === null ? null : JSON.parse(row.data),
  ...(row.pre_data !== null && { preData: JSON.parse(row.pre_data) }),
  ...(row.change_request_id != null && {
    changeRequest: { id: row.change_request_id, createdBy: row.change_request_author ?? '', appliedBy: row.created_by },
  }),
})
