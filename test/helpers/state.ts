import type { Database } from '../../src/db/types.js'

/** What is stored for one feature: every feature-environment, its lifecycle, its events. */
export async function featureState (db: Database, feature: string) {
  const [environments, lifecycle, events] = await Promise.all([
    db
      .selectFrom('feature_environments')
      .select(['environment_name', 'variants', 'revision'])
      .where('feature_name', '=', feature)
      .orderBy('environment_name')
      .execute(),
    db
      .selectFrom('feature_lifecycles')
      .select(['stage', 'status', 'status_value', 'entered_stage_at'])
      .where('feature_name', '=', feature)
      .orderBy('stage')
      .execute(),
    db.selectFrom('events').select(['id']).where('feature_name', '=', feature).execute(),
  ])
  return { environments, lifecycle, eventCount: events.length }
}

export async function eventsOf (db: Database, feature: string) {
  const rows = await db
    .selectFrom('events')
    .selectAll()
    .where('feature_name', '=', feature)
    .orderBy('id')
    .execute()
  return rows
}
