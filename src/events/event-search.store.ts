import { type ExpressionBuilder, type ExpressionWrapper, type SqlBool, sql } from 'kysely'
import type { DB, Queryable } from '../db/types.js'
import { containsPattern, type EventSearch, SYSTEM_CREATOR, TOKEN_CREATOR, type ValueFilter } from './event-search.js'
import { EVENTS_PAGE_BYTES, type StoredEvent, type Visibility } from './events.schemas.js'
import { toStoredEvent, visibleTo } from './events.store.js'

type Events = ExpressionBuilder<DB, 'events'>
type Condition = ExpressionWrapper<DB, 'events', SqlBool>

/** The name of the server's own events' author (a user made at the first start, for one). */
export const SYSTEM_AUTHOR = 'system'

/** A filter's values as one condition, turned about when negated. */
const either = (eb: Events, filter: ValueFilter, one: (value: string) => Condition) => {
  const any = eb.or(filter.values.map(one))
  return filter.negated ? eb.not(any) : any
}

/** Who made an event, by a creator id of event-creators, or by name. */
function madeBy (eb: Events, value: string): Condition {
  if (value === String(TOKEN_CREATOR)) return eb.and([eb('created_by_user_id', 'is', null), eb('created_by', '!=', SYSTEM_AUTHOR)])
  if (value === String(SYSTEM_CREATOR)) return eb.and([eb('created_by_user_id', 'is', null), eb('created_by', '=', SYSTEM_AUTHOR)])
  if (/^-?\d{1,9}$/.test(value)) return eb('created_by_user_id', '=', Number(value))
  return eb('created_by', '=', value)
}

/** Every condition of a search (and the caller's visibility). */
function matching (search: EventSearch, visibility: Visibility) {
  return (eb: Events) => {
    const all: Condition[] = [visibleTo(visibility)(eb)]
    const column = (filter: ValueFilter | undefined, name: 'feature_name' | 'project' | 'type' | 'environment') => {
      if (filter) all.push(either(eb, filter, (v) => eb(name, '=', v)))
    }
    if (search.ids) all.push(either(eb, search.ids, (v) => eb('id', '=', v)))
    if (search.groupIds) all.push(either(eb, search.groupIds, (v) => eb('xact_id', '=', v as never)))
    column(search.features, 'feature_name')
    column(search.projects, 'project')
    column(search.types, 'type')
    column(search.environments, 'environment')
    if (search.creators) all.push(either(eb, search.creators, (v) => madeBy(eb, v)))
    if (search.from) all.push(eb('created_at', '>=', search.from))
    if (search.before) all.push(eb('created_at', '<', search.before))
    if (search.text !== undefined) {
      const pattern = containsPattern(search.text)
      all.push(eb.or([eb(sql`data::text`, 'ilike', pattern), eb(sql`pre_data::text`, 'ilike', pattern)]))
    }
    return eb.and(all)
  }
}

export interface FoundEvent extends StoredEvent {
  /** The id of the change (transaction) that recorded it: the events of one change share it. */
  groupId: string
}

/**
 * A page of the events a search finds, newest first, from `offset`, of at most `limit` events
 * and EVENTS_PAGE_BYTES of event data (a page always holds one); and how many it finds in all.
 */
export async function searchEvents (db: Queryable, search: EventSearch, visibility: Visibility): Promise<{ events: FoundEvent[]; total: number }> {
  const where = matching(search, visibility)
  const [counted, sizes] = await Promise.all([
    db.selectFrom('events').select((eb) => eb.fn.countAll<string>().as('n')).where(where).executeTakeFirstOrThrow(),
    db
      .selectFrom('events')
      .select(['id', sql<string>`coalesce(octet_length(data::text), 0) + coalesce(octet_length(pre_data::text), 0)`.as('size')])
      .where(where)
      .orderBy('id', 'desc')
      .offset(search.offset)
      .limit(search.limit)
      .execute(),
  ])
  const ids: (string | number)[] = []
  let bytes = 0
  for (const row of sizes) {
    bytes += Number(row.size)
    if (ids.length > 0 && bytes > EVENTS_PAGE_BYTES) break
    ids.push(row.id)
  }
  const rows = ids.length === 0 ? [] : await db.selectFrom('events').selectAll().where('id', 'in', ids).orderBy('id', 'desc').execute()
  return {
    total: Number(counted.n),
    events: rows.map((row) => ({ ...toStoredEvent(row), groupId: String(row.xact_id) })),
  }
}

/**
 * Who made the events the caller may see: each person by their user id and name (else
 * username, else email; a deleted user by the name the event recorded); the server itself and
 * API tokens each as one creator, with Unleash's ids for them.
 */
export async function eventCreators (db: Queryable, visibility: Visibility): Promise<{ id: number; name: string }[]> {
  const creators = await db
    .selectFrom('events')
    .select([
      sql<number>`CASE WHEN created_by_user_id IS NOT NULL THEN created_by_user_id WHEN created_by = ${SYSTEM_AUTHOR} THEN ${SYSTEM_CREATOR}::integer ELSE ${TOKEN_CREATOR}::integer END`.as('id'),
      sql<string>`min(created_by)`.as('recorded'),
    ])
    .where(visibleTo(visibility))
    .groupBy(sql`1`)
    .orderBy(sql`1`)
    .execute()
  const userIds = creators.map((c) => Number(c.id)).filter((id) => id > 0)
  const users = userIds.length === 0 ? [] : await db.selectFrom('users').select(['id', 'name', 'username', 'email']).where('id', 'in', userIds).execute()
  const names = new Map(users.map((u) => [u.id, u.name ?? u.username ?? u.email]))
  return creators.map(({ id, recorded }) => {
    const creator = Number(id)
    if (creator === SYSTEM_CREATOR) return { id: creator, name: 'Unleash System' }
    if (creator === TOKEN_CREATOR) return { id: creator, name: 'API tokens' }
    return { id: creator, name: names.get(creator) ?? recorded }
  })
}
