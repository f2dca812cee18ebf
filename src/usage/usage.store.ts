import { sql, type Transaction } from 'kysely'
import type { Database, DB, Queryable } from '../db/types.js'

/** An application: one app name reported with one client token (its environment and scope). */
export interface ApplicationKey {
  tokenName: string
  environment: string
  /** The token's project scope, JSON text. */
  projects: string
  appName: string
}

/** Most variant names kept per feature, application and hour (the first ones reported). */
export const MAX_VARIANT_NAMES = 100

/**
 * What is stored for one token: its applications and their instances (an application without
 * instances has `instanceId` null). One statement; at most CLIENT_MAX_APPLICATIONS +
 * CLIENT_MAX_INSTANCES rows, give or take what other instances of the service added together.
 */
export async function readTokenUsage (db: Queryable, tokenName: string) {
  return db
    .selectFrom('usage_applications as a')
    .leftJoin('usage_instances as i', 'i.application_id', 'a.id')
    .select(['a.environment', 'a.projects', 'a.app_name as appName', 'i.instance_id as instanceId'])
    .where('a.token_name', '=', tokenName)
    .execute()
}

/**
 * Locks the token's row until the transaction ends, so that what is counted against its caps
 * cannot be added concurrently by another instance's flush.
 */
export async function lockTokenUsage (trx: Transaction<DB>, tokenName: string) {
  await trx.selectFrom('api_tokens').select('name').where('name', '=', tokenName).forNoKeyUpdate().execute()
}

/** An application seen since the last flush, with when it was last seen. */
export interface SeenApplication extends ApplicationKey {
  lastSeenAt: Date
}

/**
 * Inserts the applications not stored yet and marks the others seen, in one statement (rows in
 * key order, so that two instances flushing at once lock them in the same order). Returns every
 * application's id.
 */
export async function upsertApplications (trx: Transaction<DB>, seen: readonly SeenApplication[]) {
  const rows = sql<{ token_name: string; environment: string; projects: string; app_name: string; last_seen_at: Date }>`(
    SELECT * FROM json_to_recordset(${JSON.stringify(seen)}::json)
      AS r ("tokenName" text, environment text, projects text, "appName" text, "lastSeenAt" timestamptz)
  )`
  return trx
    .insertInto('usage_applications')
    .columns(['token_name', 'environment', 'projects', 'app_name', 'last_seen_at'])
    .expression(
      trx
        .selectFrom(rows.as('r'))
        .select(sql<string>`"tokenName"`.as('token_name'))
        .select(['r.environment', 'r.projects'])
        .select([sql<string>`"appName"`.as('app_name'), sql<Date>`"lastSeenAt"`.as('last_seen_at')])
        .orderBy(sql`"tokenName", environment, projects, "appName"`)
    )
    .onConflict((oc) =>
      oc.columns(['token_name', 'environment', 'projects', 'app_name']).doUpdateSet({
        last_seen_at: sql`greatest(usage_applications.last_seen_at, excluded.last_seen_at)`,
      })
    )
    .returning(['id', 'token_name as tokenName', 'environment', 'projects', 'app_name as appName'])
    .execute()
}

/** An SDK instance as its latest registration describes it. */
export interface SeenInstance {
  applicationId: number
  instanceId: string
  sdkVersion: string | null
  /** JSON text */
  strategies: string
  intervalMs: number
  startedAt: Date
  lastSeenAt: Date
}

/** Inserts or refreshes instances, one statement, in key order. */
export async function upsertInstances (trx: Transaction<DB>, seen: readonly SeenInstance[]) {
  // The strategies go in as the array they are (JSON text inside the JSON would be stored as a string).
  const values = seen.map((i) => ({ ...i, strategies: JSON.parse(i.strategies) as unknown }))
  const rows = sql<{ application_id: number }>`(
    SELECT * FROM json_to_recordset(${JSON.stringify(values)}::json)
      AS r ("applicationId" integer, "instanceId" text, "sdkVersion" text, strategies json, "intervalMs" integer, "startedAt" timestamptz, "lastSeenAt" timestamptz)
  )`
  await trx
    .insertInto('usage_instances')
    .columns(['application_id', 'instance_id', 'sdk_version', 'strategies', 'interval_ms', 'started_at', 'last_seen_at'])
    .expression(
      trx
        .selectFrom(rows.as('r'))
        .select(sql<number>`"applicationId"`.as('application_id'))
        .select([
          sql<string>`"instanceId"`.as('instance_id'),
          sql<string | null>`"sdkVersion"`.as('sdk_version'),
          sql<string>`strategies`.as('strategies'),
          sql<number>`"intervalMs"`.as('interval_ms'),
          sql<Date>`"startedAt"`.as('started_at'),
          sql<Date>`"lastSeenAt"`.as('last_seen_at'),
        ])
        .orderBy(sql`"applicationId", "instanceId"`)
    )
    .onConflict((oc) =>
      oc.columns(['application_id', 'instance_id']).doUpdateSet((eb) => ({
        sdk_version: eb.ref('excluded.sdk_version'),
        strategies: eb.ref('excluded.strategies'),
        interval_ms: eb.ref('excluded.interval_ms'),
        started_at: eb.ref('excluded.started_at'),
        last_seen_at: sql`greatest(usage_instances.last_seen_at, excluded.last_seen_at)`,
      }))
    )
    .execute()
}

/** An SDK instance seen in a metrics report: known from its registration, or only from its reports. */
export interface TouchedInstance {
  applicationId: number
  instanceId: string
  /** What its metrics said (Unleash SDKs send it there too), if anything. */
  sdkVersion: string | null
  lastSeenAt: Date
}

/**
 * Marks instances seen by their metrics, one statement, in key order: a registered instance
 * keeps what its registration said (its SDK version when the report names none); one never
 * registered is stored with what its report said, no strategies, no interval and no start.
 */
export async function touchInstances (trx: Transaction<DB>, seen: readonly TouchedInstance[]) {
  const rows = sql<{ application_id: number }>`(
    SELECT * FROM json_to_recordset(${JSON.stringify(seen)}::json)
      AS r ("applicationId" integer, "instanceId" text, "sdkVersion" text, "lastSeenAt" timestamptz)
  )`
  await trx
    .insertInto('usage_instances')
    .columns(['application_id', 'instance_id', 'sdk_version', 'strategies', 'last_seen_at'])
    .expression(
      trx
        .selectFrom(rows.as('r'))
        .select(sql<number>`"applicationId"`.as('application_id'))
        .select([
          sql<string>`"instanceId"`.as('instance_id'),
          sql<string | null>`"sdkVersion"`.as('sdk_version'),
          sql<string>`'[]'`.as('strategies'),
          sql<Date>`"lastSeenAt"`.as('last_seen_at'),
        ])
        .orderBy(sql`"applicationId", "instanceId"`)
    )
    .onConflict((oc) =>
      oc.columns(['application_id', 'instance_id']).doUpdateSet({
        sdk_version: sql`coalesce(usage_instances.sdk_version, excluded.sdk_version)`,
        last_seen_at: sql`greatest(usage_instances.last_seen_at, excluded.last_seen_at)`,
      })
    )
    .execute()
}

/** Most names kept as unknown flags at once (a day of them): a flood of made-up names stops there. */
export const MAX_UNKNOWN_FLAGS = 10_000

/**
 * Records the names of these reports that are no feature at all (archived ones are features),
 * per application and environment, with when they were last reported; nothing past
 * MAX_UNKNOWN_FLAGS rows. One statement, rows in key order.
 */
export async function recordUnknownFlags (trx: Transaction<DB>, reported: readonly { name: string; appName: string; environment: string; at: Date }[]) {
  const rows = sql<{ name: string; app_name: string; environment: string; last_seen_at: Date }>`(
    SELECT name, "appName" AS app_name, environment, max(at) AS last_seen_at
    FROM json_to_recordset(${JSON.stringify(reported)}::json) AS r (name text, "appName" text, environment text, at timestamptz)
    GROUP BY name, "appName", environment
  )`
  await trx
    .insertInto('unknown_flags')
    .columns(['name', 'app_name', 'environment', 'last_seen_at'])
    .expression(
      trx
        .selectFrom(rows.as('r'))
        .select(['r.name', 'r.app_name', 'r.environment', 'r.last_seen_at'])
        .where((eb) => eb.not(eb.exists(eb.selectFrom('features as f').select('f.name').whereRef('f.name', '=', 'r.name'))))
        .where((eb) => eb(eb.selectFrom('unknown_flags').select((e) => e.fn.countAll<number>().as('n')), '<', MAX_UNKNOWN_FLAGS))
        .orderBy('r.name').orderBy('r.app_name').orderBy('r.environment')
    )
    .onConflict((oc) =>
      oc.columns(['name', 'app_name', 'environment']).doUpdateSet({
        last_seen_at: sql`greatest(unknown_flags.last_seen_at, excluded.last_seen_at)`,
      })
    )
    .execute()
}

/** Counts of one feature, application and hour, summed from the reports since the last flush. */
export interface PendingCounts {
  applicationId: number
  hour: Date
  feature: string
  yes: number
  no: number
  /** `{name: count}`, at most MAX_VARIANT_NAMES names */
  variants: Record<string, number>
  lastSeenAt: Date
  /** The features of the token's environment and projects are counted (all projects when undefined). */
  environment: string
  projects: readonly string[] | null
}

/**
 * Adds counts to their buckets, for the features that exist, are not archived, have a
 * feature-environment in the count's environment and are in its projects; others are ignored.
 * One statement whatever the size (the counts are one JSON parameter), rows in key order so
 * that concurrent flushes lock them in the same order. Variant counts are merged by name,
 * keeping at most MAX_VARIANT_NAMES names per row (those stored first, then new ones by name).
 * Returns the rows counted.
 */
export async function addCounts (trx: Transaction<DB>, counts: readonly PendingCounts[]) {
  const reported = sql<{ feature: string; application_id: number; hour: Date; yes: string; no: string; variants: Record<string, number>; last_seen_at: Date; environment: string; projects: string[] | null }>`(
    SELECT feature, "applicationId" AS application_id, hour, yes, no, variants, "lastSeenAt" AS last_seen_at, environment,
      (SELECT array_agg(p) FROM jsonb_array_elements_text(projects) AS p) AS projects
    FROM json_to_recordset(${JSON.stringify(counts)}::json)
      AS r (feature text, "applicationId" integer, hour timestamptz, yes bigint, no bigint, variants jsonb, "lastSeenAt" timestamptz, environment text, projects jsonb)
  )`
  const rows = trx
    .selectFrom(reported.as('r'))
    .innerJoin('features as f', 'f.name', 'r.feature')
    .innerJoin('feature_environments as fe', (join) =>
      join.onRef('fe.feature_name', '=', 'f.name').onRef('fe.environment_name', '=', 'r.environment')
    )
    .select(['r.feature as feature_name', 'r.application_id', 'r.hour', 'r.yes', 'r.no', 'r.variants'])
    .where('f.archived_at', 'is', null)
    .where((eb) => eb.or([eb('r.projects', 'is', null), sql<boolean>`f.project_id = ANY (r.projects)`]))
    .orderBy('r.application_id').orderBy('r.hour').orderBy('r.feature')
  const counted = await trx
    .insertInto('usage_counts')
    .columns(['feature_name', 'application_id', 'hour', 'yes', 'no', 'variants'])
    .expression(rows)
    .onConflict((oc) =>
      oc.columns(['application_id', 'hour', 'feature_name']).doUpdateSet((eb) => ({
        yes: sql`usage_counts.yes + ${eb.ref('excluded.yes')}`,
        no: sql`usage_counts.no + ${eb.ref('excluded.no')}`,
        variants: sql`CASE WHEN excluded.variants = '{}'::jsonb THEN usage_counts.variants ELSE (
          SELECT coalesce(jsonb_object_agg(name, total), '{}'::jsonb) FROM (
            SELECT name, sum(count) AS total FROM (
              SELECT key AS name, value::bigint AS count, 0 AS seen FROM jsonb_each_text(usage_counts.variants)
              UNION ALL
              SELECT key, value::bigint, 1 FROM jsonb_each_text(excluded.variants)
            ) AS each_count
            GROUP BY name ORDER BY min(seen), name LIMIT ${MAX_VARIANT_NAMES}
          ) AS kept
        ) END`,
      }))
    )
    .returning(['feature_name', 'application_id'])
    .execute()
  return counted
}

/** Marks features evaluated in environments (one row each), keeping the latest time. */
export async function markEvaluated (trx: Transaction<DB>, evaluated: readonly { feature: string; environment: string; at: Date }[]) {
  const rows = sql<{ feature_name: string; environment: string; last_seen_at: Date }>`(
    SELECT feature AS feature_name, environment, max(at) AS last_seen_at
    FROM json_to_recordset(${JSON.stringify(evaluated)}::json) AS r (feature text, environment text, at timestamptz)
    GROUP BY feature, environment
  )`
  await trx
    .insertInto('usage_evaluations')
    .columns(['feature_name', 'environment', 'last_seen_at'])
    .expression(trx.selectFrom(rows.as('r')).select(['r.feature_name', 'r.environment', 'r.last_seen_at']).orderBy('r.feature_name').orderBy('r.environment'))
    .onConflict((oc) =>
      oc.columns(['feature_name', 'environment']).doUpdateSet({
        last_seen_at: sql`greatest(usage_evaluations.last_seen_at, excluded.last_seen_at)`,
      })
    )
    .execute()
}

/** Whether the environment is of type production (usage there makes features live). */
export async function isProduction (db: Queryable, environment: string): Promise<boolean> {
  const row = await db.selectFrom('environments').select('type').where('name', '=', environment).executeTakeFirst()
  return row?.type === 'production'
}

/**
 * Deletes usage older than the retention: counts of hours before `countsBefore`, instances
 * not seen since `instancesBefore`, applications not seen since `countsBefore` (with all that
 * is theirs), unknown flags not reported since `unknownBefore`, and when features that no longer
 * exist were last seen. Returns how many rows of each went.
 */
export async function deleteUsage (db: Database, countsBefore: Date, instancesBefore: Date, unknownBefore: Date) {
  const counts = await db.deleteFrom('usage_counts').where('hour', '<', countsBefore).executeTakeFirst()
  // When a feature was last seen is kept as long as the feature (as Unleash shows it).
  await db.deleteFrom('usage_evaluations').where((eb) => eb.not(eb.exists(eb.selectFrom('features as f').select('f.name').whereRef('f.name', '=', 'usage_evaluations.feature_name')))).execute()
  await db.deleteFrom('unknown_flags').where('last_seen_at', '<', unknownBefore).execute()
  const instances = await db.deleteFrom('usage_instances').where('last_seen_at', '<', instancesBefore).executeTakeFirst()
  const applications = await db.deleteFrom('usage_applications').where('last_seen_at', '<', countsBefore).executeTakeFirst()
  return {
    counts: Number(counts.numDeletedRows),
    instances: Number(instances.numDeletedRows),
    applications: Number(applications.numDeletedRows),
  }
}
