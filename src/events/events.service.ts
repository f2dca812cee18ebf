import type { Transaction } from 'kysely'
import { ALL, isAdmin, type TokenScope } from '../access/scope.js'
import type { Database, DB, Queryable } from '../db/types.js'
import { type EventFilter, type EventsPage, type NewEvent, type Visibility } from './events.schemas.js'
import { insertEvents, listEvents } from './events.store.js'
import { eventCreators, searchEvents } from './event-search.store.js'
import { eventSearch, type EventSearchQuery } from './event-search.js'

/** What the work of a change gets: its transaction, and where to announce its events. */
export interface Change {
  trx: Transaction<DB>
  /** Announces an event of this change; it is written in the change's transaction, before the commit. */
  record(event: NewEvent): void
}

/**
 * Where a write runs: a database (the write is a change of its own, in a transaction of its
 * own) or a caller's change (the write is one step of it, committed or rolled back with the
 * rest, its events recorded with the caller's).
 */
export type Writer = Database | Change

/**
 * The one way a change is written: `work` runs in a transaction, announces the events of what
 * it changed, and they are inserted in the same transaction just before it commits. So every
 * change a reader can see (admin reads, SDKs, webhooks) has its events exactly when it is
 * committed, and a refusal (anything thrown) writes neither. A change that announces nothing
 * changed nothing readers can see.
 */
export function writeChange<T> (db: Database, work: (change: Change) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const events: NewEvent[] = []
    const result = await work({ trx, record: (event) => { events.push(event) } })
    if (events.length > 0) await insertEvents(trx, events)
    return result
  })
}

const isChange = (writer: Writer): writer is Change => 'record' in writer && 'trx' in writer

/**
 * Runs `work` in the writer's change, or in a change of its own. Every write service takes a
 * Writer and runs through this, so that the single routes call it with the database and a
 * caller that composes several writes (an import) calls each with its one change: all of them
 * commit, with their events, or none does.
 */
export function withChange<T> (writer: Writer, work: (change: Change) => Promise<T>): Promise<T> {
  return isChange(writer) ? work(writer) : writeChange(writer, work)
}

/** What a read runs on: the database, or the transaction of the change it is a step of. */
export const readerOf = (writer: Writer): Queryable => (isChange(writer) ? writer.trx : writer)

/**
 * What a caller may see of the events: those of its token's projects, in its environments or
 * in none; the events about tokens, webhooks and people (names, scopes, URLs, emails) only with
 * access to everything (`adminEvents`: a token scoped to everything, or an Admin).
 */
export const visibilityOf = (token: TokenScope, adminEvents = isAdmin(token)): Visibility => ({
  projects: token.projects.includes(ALL) ? undefined : token.projects,
  environments: token.environments.includes(ALL) ? undefined : token.environments,
  adminEvents,
})

/** A page of the events the caller may see, newest first. */
export const eventsPage = (db: Database, filter: EventFilter, token: TokenScope, adminEvents?: boolean): Promise<EventsPage> =>
  listEvents(db, filter, visibilityOf(token, adminEvents))

/** The events a search finds that the caller may see (Unleash's event log), and how many in all; 400 naming a filter not in Unleash's form. */
export const eventsFound = (db: Database, query: EventSearchQuery, token: TokenScope, adminEvents?: boolean) =>
  searchEvents(db, eventSearch(query), visibilityOf(token, adminEvents))

/** The newest 50 events of a feature the caller may see, and how many it has in all (Unleash's deprecated per-feature read). */
export const featureEvents = (db: Database, feature: string, token: TokenScope, adminEvents?: boolean) =>
  searchEvents(db, { features: { values: [feature], negated: false }, limit: 50, offset: 0 }, visibilityOf(token, adminEvents))

/** Who made the events the caller may see. */
export const creatorsOfEvents = (db: Database, token: TokenScope, adminEvents?: boolean) => eventCreators(db, visibilityOf(token, adminEvents))
