import { ALL, type TokenScope } from '../access/scope.js'
import type { Queryable } from '../db/types.js'

/** The feature's project, if it exists (archived or not). */
export async function projectOfFeature (db: Queryable, feature: string) {
  const row = await db.selectFrom('features').select('project_id').where('name', '=', feature).executeTakeFirst()
  return row?.project_id
}

/**
 * A feature's counts from `since` on, per environment, app name and hour (applications of
 * several tokens with one app name summed), with each row's variant counts; only environments
 * the token covers.
 */
export async function featureCounts (db: Queryable, feature: string, since: Date, token: TokenScope) {
  let query = db
    .selectFrom('usage_counts as c')
    .innerJoin('usage_applications as a', 'a.id', 'c.application_id')
    .select(['a.environment', 'a.app_name', 'c.hour', 'c.yes', 'c.no', 'c.variants'])
    .where('c.feature_name', '=', feature)
    .where('c.hour', '>=', since)
  if (!token.environments.includes(ALL)) query = query.where('a.environment', 'in', token.environments)
  return query.execute()
}

/** The app names that reported the feature from `since` on, by name. */
export async function appsOfFeature (db: Queryable, feature: string, since: Date, token: TokenScope) {
  let query = db
    .selectFrom('usage_counts as c')
    .innerJoin('usage_applications as a', 'a.id', 'c.application_id')
    .select('a.app_name')
    .distinct()
    .where('c.feature_name', '=', feature)
    .where('c.hour', '>=', since)
    .orderBy('a.app_name')
  if (!token.environments.includes(ALL)) query = query.where('a.environment', 'in', token.environments)
  return (await query.execute()).map((r) => r.app_name)
}

/**
 * App names, reported by SDKs or described by people, that contain any of `query` (all when
 * empty), in name order, one page of them, and how many there are.
 */
export async function appNames (db: Queryable, query: string[], order: 'asc' | 'desc', offset: number, limit: number) {
  const names = db
    .selectFrom('usage_applications')
    .select('app_name')
    .union(db.selectFrom('applications').select('app_name'))
  const matching = db
    .selectFrom(names.as('n'))
    .where((eb) => (query.length === 0 ? eb.lit(true) : eb.or(query.map((q) => eb('n.app_name', 'ilike', q)))))
  const [page, counted] = await Promise.all([
    matching.select('n.app_name').orderBy('n.app_name', order).offset(offset).limit(limit).execute(),
    matching.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ])
  return { names: page.map((r) => r.app_name), total: Number(counted.total) }
}

/** What people said of these applications. */
export async function describedApps (db: Queryable, names: readonly string[]) {
  if (names.length === 0) return []
  return db
    .selectFrom('applications')
    .select(['app_name', 'description', 'url', 'color', 'icon', 'strategies', 'created_at', 'created_by'])
    .where('app_name', 'in', names)
    .execute()
}

/** The registrations of these app names: each token's environment and projects, and when it was first stored. */
export async function reportedApps (db: Queryable, names: readonly string[]) {
  if (names.length === 0) return []
  return db
    .selectFrom('usage_applications')
    .select(['id', 'app_name', 'environment', 'projects', 'last_seen_at'])
    .where('app_name', 'in', names)
    .orderBy('app_name')
    .orderBy('environment')
    .execute()
}

/** The instances of these app names, newest first; only those seen since `since` when given. */
export async function instancesOfApps (db: Queryable, names: readonly string[], since?: Date, environment?: string) {
  if (names.length === 0) return []
  let query = db
    .selectFrom('usage_instances as i')
    .innerJoin('usage_applications as a', 'a.id', 'i.application_id')
    .select(['a.app_name', 'a.environment', 'i.instance_id', 'i.sdk_version', 'i.strategies', 'i.started_at', 'i.last_seen_at'])
    .where('a.app_name', 'in', names)
    .orderBy('i.last_seen_at', 'desc')
    .orderBy('i.instance_id')
    .limit(1000)
  if (since) query = query.where('i.last_seen_at', '>=', since)
  if (environment !== undefined) query = query.where('a.environment', '=', environment)
  return query.execute()
}

/** The features an app name reported from `since` on, per environment, with each feature's project (null: no such feature now). */
export async function featuresOfApp (db: Queryable, appName: string, since: Date) {
  return db
    .selectFrom('usage_counts as c')
    .innerJoin('usage_applications as a', 'a.id', 'c.application_id')
    .leftJoin('features as f', 'f.name', 'c.feature_name')
    .select(['a.environment', 'c.feature_name', 'f.project_id', 'f.type', 'f.description', 'f.stale'])
    .distinct()
    .where('a.app_name', '=', appName)
    .where('c.hour', '>=', since)
    .orderBy('a.environment')
    .orderBy('c.feature_name')
    .execute()
}

/** The names of the strategy definitions, and which of them are deprecated. */
export async function definitionNames (db: Queryable) {
  return db.selectFrom('strategy_definitions').select(['name', 'description', 'deprecated']).execute()
}

/** Every SDK version instances reported, with the app names that run it (of apps that reported the project's features, when given). */
export async function sdkVersions (db: Queryable, project?: string) {
  let query = db
    .selectFrom('usage_instances as i')
    .innerJoin('usage_applications as a', 'a.id', 'i.application_id')
    .select(['i.sdk_version', 'a.app_name'])
    .distinct()
    .where('i.sdk_version', 'is not', null)
    .orderBy('i.sdk_version')
    .orderBy('a.app_name')
  if (project !== undefined) {
    query = query.where((eb) => eb.exists(
      eb.selectFrom('usage_counts as c')
        .innerJoin('usage_applications as ca', 'ca.id', 'c.application_id')
        .innerJoin('features as f', 'f.name', 'c.feature_name')
        .select('c.feature_name')
        .whereRef('ca.app_name', '=', 'a.app_name')
        .where('f.project_id', '=', project)
    ))
  }
  return query.execute()
}

/** Unknown flags (names no feature has), each report, names in order; at most `limit` names. */
export async function unknownFlags (db: Queryable, limit: number) {
  const names = db
    .selectFrom('unknown_flags as u')
    .select('u.name')
    .distinct()
    .where((eb) => eb.not(eb.exists(eb.selectFrom('features as f').select('f.name').whereRef('f.name', '=', 'u.name'))))
    .orderBy('u.name')
    .limit(limit)
  return db
    .selectFrom('unknown_flags as u')
    .select((eb) => [
      'u.name', 'u.app_name', 'u.environment', 'u.last_seen_at',
      eb.selectFrom('events as e').select((e) => e.fn.max('e.created_at').as('at')).whereRef('e.feature_name', '=', 'u.name').as('last_event_at'),
    ])
    .where('u.name', 'in', names)
    .orderBy('u.name')
    .orderBy('u.app_name')
    .orderBy('u.environment')
    .execute()
}

/** The unknown flags one app name reported in one environment. */
export async function unknownFlagsOf (db: Queryable, appName: string) {
  return db.selectFrom('unknown_flags').select(['name', 'environment']).where('app_name', '=', appName).orderBy('name').execute()
}
