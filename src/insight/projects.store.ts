import { sql, type Transaction } from 'kysely'
import type { DB, Queryable } from '../db/types.js'

/** The project as a health report names it. */
export async function projectRow (db: Queryable, project: string) {
  return db.selectFrom('projects').select(['id', 'name', 'description', 'created_at']).where('id', '=', project).executeTakeFirst()
}

/** The environments enabled in the project, by name. */
export async function projectEnvironments (db: Queryable, project: string) {
  const rows = await db.selectFrom('project_environments').select('environment_name').where('project_id', '=', project).orderBy('environment_name').execute()
  return rows.map((r) => r.environment_name)
}

/** The project's features that are not archived, with their type's expected lifetime: what its health is made of. */
export async function agingFeatures (db: Queryable, project: string) {
  return db
    .selectFrom('features as f')
    .innerJoin('feature_types as ft', 'ft.id', 'f.type')
    .select(['f.name', 'f.type', 'f.description', 'f.stale', 'f.impression_data', 'f.created_at', 'ft.lifetime_days'])
    .where('f.project_id', '=', project)
    .where('f.archived_at', 'is', null)
    .orderBy('f.name')
    .execute()
}

/** Each feature-environment of the project's features that are not archived, with what a health report shows of it. */
export async function featureEnvironments (db: Queryable, project: string) {
  return db
    .selectFrom('feature_environments as fe')
    .innerJoin('features as f', 'f.name', 'fe.feature_name')
    .innerJoin('environments as env', 'env.name', 'fe.environment_name')
    .leftJoin('usage_evaluations as ue', (join) => join.onRef('ue.feature_name', '=', 'fe.feature_name').onRef('ue.environment', '=', 'fe.environment_name'))
    .select((eb) => [
      'fe.feature_name', 'fe.environment_name', 'fe.enabled', 'env.type', 'ue.last_seen_at',
      sql<number>`json_array_length(${eb.ref('fe.variants')}::json)`.as('variant_count'),
      eb.exists(eb.selectFrom('feature_strategies as s').select('s.id').whereRef('s.feature_name', '=', 'fe.feature_name').whereRef('s.environment_name', '=', 'fe.environment_name')).as('has_strategies'),
      eb.exists(eb.selectFrom('feature_strategies as s').select('s.id').whereRef('s.feature_name', '=', 'fe.feature_name').whereRef('s.environment_name', '=', 'fe.environment_name').where('s.disabled', '=', false)).as('has_enabled_strategies'),
    ])
    .where('f.project_id', '=', project)
    .where('f.archived_at', 'is', null)
    .execute()
}

/** The tags of the project's features that are not archived, in the order they were added. */
export async function featureTags (db: Queryable, project: string) {
  return db
    .selectFrom('feature_tags as t')
    .innerJoin('features as f', 'f.name', 't.feature_name')
    .select(['t.feature_name', 't.tag_type', 't.tag_value'])
    .where('f.project_id', '=', project)
    .where('f.archived_at', 'is', null)
    .orderBy('t.created_at')
    .execute()
}

/** Features created (not archived since) and archived in [from, to), and events of the project in it. */
export async function activity (db: Queryable, project: string, from: Date, to: Date) {
  const row = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('features').select((e) => e.fn.countAll<string>().as('n')).where('project_id', '=', project).where('archived_at', 'is', null)
        .where('created_at', '>=', from).where('created_at', '<', to).as('created'),
      eb.selectFrom('features').select((e) => e.fn.countAll<string>().as('n')).where('project_id', '=', project).where('archived_at', 'is not', null)
        .where('archived_at', '>=', from).where('archived_at', '<', to).as('archived'),
      eb.selectFrom('events').select((e) => e.fn.countAll<string>().as('n')).where('project', '=', project)
        .where('created_at', '>=', from).where('created_at', '<', to).as('events'),
    ])
    .executeTakeFirstOrThrow()
  return { created: Number(row.created), archived: Number(row.archived), events: Number(row.events) }
}

/**
 * When each release feature of the project was first switched on in an environment of type
 * production (after it was created), and when it was created: Unleash's lead time.
 */
export async function firstProductionEnables (db: Queryable, project: string) {
  return db
    .selectFrom('events as e')
    .innerJoin('environments as env', 'env.name', 'e.environment')
    .innerJoin('features as f', 'f.name', 'e.feature_name')
    .distinctOn('e.feature_name')
    .select(['e.feature_name', 'e.created_at as enabled_at', 'f.created_at', 'f.archived_at'])
    .where('e.type', '=', 'feature-environment-enabled')
    .where('env.type', '=', 'production')
    .where('f.type', '=', 'release')
    .where('f.project_id', '=', project)
    .whereRef('e.created_at', '>', 'f.created_at')
    .orderBy('e.feature_name')
    .orderBy('e.created_at')
    .execute()
}

/** The people with a role in the project (their own or a group's), and how many got it since `since`. */
export async function members (db: Queryable, project: string, since: Date) {
  const users = db
    .selectFrom('project_roles').select(['user_id', 'created_at']).where('project_id', '=', project)
    .union(
      db.selectFrom('group_project_roles as g').innerJoin('group_users as u', 'u.group_id', 'g.group_id')
        .select(['u.user_id', 'g.created_at']).where('g.project_id', '=', project)
    )
  const row = await db
    .selectFrom(users.as('m'))
    .select((eb) => [
      eb.fn.count<string>('m.user_id').distinct().as('current'),
      eb.fn.count<string>('m.user_id').distinct().filterWhere('m.created_at', '>=', since).as('added'),
    ])
    .executeTakeFirstOrThrow()
  return { current: Number(row.current), added: Number(row.added) }
}

/** How many features of each type the project has (not archived). */
export async function typeCounts (db: Queryable, project: string) {
  const rows = await db
    .selectFrom('features')
    .select((eb) => ['type', eb.fn.countAll<string>().as('count')])
    .where('project_id', '=', project)
    .where('archived_at', 'is', null)
    .groupBy('type')
    .orderBy('type')
    .execute()
  return rows.map((r) => ({ type: r.type, count: Number(r.count) }))
}

/** Marks these features stale or not (the caller holds their locks). */
export async function setStaleFlags (trx: Transaction<DB>, features: readonly string[], stale: boolean) {
  if (features.length === 0) return
  await trx.updateTable('features').set({ stale }).where('name', 'in', features).execute()
}

/** Whether each of these features is marked stale (read under their locks). */
export async function staleFlags (trx: Transaction<DB>, features: readonly string[]) {
  if (features.length === 0) return new Map<string, boolean>()
  const rows = await trx.selectFrom('features').select(['name', 'stale']).where('name', 'in', features).execute()
  return new Map(rows.map((r) => [r.name, r.stale]))
}
