import { type ExpressionBuilder, sql, type Transaction } from 'kysely'
import { literal } from '../db/scripted-transaction.js'
import { ALL, type TokenScope } from '../auth/tokens.js'
import type { Database, DB, Queryable } from '../db/types.js'

export type EventType =
  | 'project-created'
  | 'environment-created'
  | 'feature-created'
  | 'feature-environment-variants-updated'
  | 'feature-completed'
  | 'feature-uncompleted'
  | 'api-token-created'
  | 'api-token-deleted'

export interface NewEvent {
  type: EventType
  createdBy: string
  project?: string
  featureName?: string
  environment?: string
  data?: unknown
  preData?: unknown
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

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value))

/** The INSERT of one event, as a statement for a transaction script (see scriptedTransaction). */
export function insertEventStatement (event: NewEvent): string {
  const values = [
    event.type,
    event.createdBy,
    event.project ?? null,
    event.featureName ?? null,
    event.environment ?? null,
    json(event.data),
    json(event.preData),
  ].map(literal)
  return `INSERT INTO events (type, created_by, project, feature_name, environment, data, pre_data)
    VALUES (${values.join(', ')})`
}

/** Call inside the transaction that makes the change, so the event exists exactly when it does. */
async function recordEvent (db: Queryable, event: NewEvent): Promise<void> {
  await sql.raw(insertEventStatement(event)).execute(db)
}

/**
 * Makes a change and records the event describing it in one transaction: both happen, or
 * neither does.
 */
export function withEvent<T> (
  db: Database,
  change: (trx: Transaction<DB>) => Promise<T>,
  describe: (result: T) => NewEvent
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const result = await change(trx)
    await recordEvent(trx, describe(result))
    return result
  })
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

/** Narrows the listing to what the token may see: its projects, and its environments or none. */
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
    return eb.and(conditions)
  }
}

export async function listEvents (
  db: Queryable,
  filter: EventFilter,
  token: TokenScope
): Promise<StoredEvent[]> {
  let query = db.selectFrom('events').selectAll().where(inScope(token))
  if (filter.project !== undefined) query = query.where('project', '=', filter.project)
  if (filter.feature !== undefined) query = query.where('feature_name', '=', filter.feature)
  if (filter.environment !== undefined) query = query.where('environment', '=', filter.environment)
  if (filter.type !== undefined) query = query.where('type', '=', filter.type)
  if (filter.before !== undefined) query = query.where('id', '<', filter.before)
  const rows = await query.orderBy('id', 'desc').limit(filter.limit).execute()
  return rows.map((row) => ({
    id: Number(row.id),
    type: row.type,
    createdAt: row.created_at,
    createdBy: row.created_by,
    project: row.project,
    featureName: row.feature_name,
    ...(row.environment !== null && { environment: row.environment }),
    data: row.data,
    ...(row.pre_data !== null && { preData: row.pre_data }),
  }))
}
