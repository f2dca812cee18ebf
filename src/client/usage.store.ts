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

const byKey = (key: ApplicationKey) => ({
  token_name: key.tokenName,
  environment: key.environment,
  projects: key.projects,
  app_name: key.appName,
})

/** The application's id after marking it seen, or undefined when it is not known yet. */
export async function touchApplication (db: Queryable, key: ApplicationKey, now: Date): Promise<number | undefined> {
  const row = await db
    .updateTable('usage_applications')
    .set({ last_seen_at: now })
    .where('token_name', '=', key.tokenName)
    .where('environment', '=', key.environment)
    .where('projects', '=', key.projects)
    .where('app_name', '=', key.appName)
    .returning('id')
    .executeTakeFirst()
  return row?.id
}

/**
 * Locks the token's row until the transaction ends, so that the applications and instances
 * counted against its caps cannot be added concurrently by another report of the same token.
 */
export async function lockTokenUsage (trx: Transaction<DB>, tokenName: string) {
  await trx.selectFrom('api_tokens').select('name').where('name', '=', tokenName).forNoKeyUpdate().execute()
}

export async function countApplications (trx: Transaction<DB>, tokenName: string): Promise<number> {
  const row = await trx
    .selectFrom('usage_applications')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('token_name', '=', tokenName)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function insertApplication (trx: Transaction<DB>, key: ApplicationKey, now: Date): Promise<number> {
  const row = await trx
    .insertInto('usage_applications')
    .values({ ...byKey(key), last_seen_at: now })
    .onConflict((oc) => oc.columns(['token_name', 'environment', 'projects', 'app_name']).doUpdateSet({ last_seen_at: now }))
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export interface InstanceFacts {
  instanceId: string
  sdkVersion: string | null
  strategies: string
  intervalMs: number
  startedAt: Date
}

const instanceValues = (facts: InstanceFacts, now: Date) => ({
  sdk_version: facts.sdkVersion,
  strategies: facts.strategies,
  interval_ms: facts.intervalMs,
  started_at: facts.startedAt,
  last_seen_at: now,
})

/** Refreshes a known instance; false when the application has no such instance yet. */
export async function updateInstance (db: Queryable, applicationId: number, facts: InstanceFacts, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('usage_instances')
    .set(instanceValues(facts, now))
    .where('application_id', '=', applicationId)
    .where('instance_id', '=', facts.instanceId)
    .returning('instance_id')
    .executeTakeFirst()
  return row !== undefined
}

export async function countInstances (trx: Transaction<DB>, tokenName: string): Promise<number> {
  const row = await trx
    .selectFrom('usage_instances as i')
    .innerJoin('usage_applications as a', 'a.id', 'i.application_id')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('a.token_name', '=', tokenName)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function insertInstance (trx: Transaction<DB>, applicationId: number, facts: InstanceFacts, now: Date) {
  const values = instanceValues(facts, now)
  await trx
    .insertInto('usage_instances')
    .values({ application_id: applicationId, instance_id: facts.instanceId, ...values })
    .onConflict((oc) => oc.columns(['application_id', 'instance_id']).doUpdateSet(values))
    .execute()
}

/** One feature's counts in a report: what the SDK sent, variant counts as JSON text. */
export interface ReportedCounts {
  feature: string
  yes: number
  no: number
  /** `{name: count}` */
  variants: Record<string, number>
}

/**
 * Adds a report's counts to the application's bucket of `hour`, for the features that exist,
 * are not archived, have a feature-environment in `environment` and are in `projects` (all
 * when undefined); others are ignored. One statement whatever the report's size (the report is
 * one JSON parameter), rows in feature order so that concurrent reports lock them in the same
 * order. Variant counts are merged by name, keeping at most MAX_VARIANT_NAMES names per row.
 * Returns the features counted.
 */
export async function addCounts (
  db: Database,
  target: { applicationId: number; environment: string; projects: readonly string[] | undefined },
  hour: Date,
  now: Date,
  counts: readonly ReportedCounts[]
): Promise<string[]> {
  const reported = sql<{ feature: string; yes: string; no: string; variants: Record<string, number> }>`(
    SELECT * FROM json_to_recordset(${JSON.stringify(counts)}::json) AS r (feature text, yes bigint, no bigint, variants jsonb)
  )`
  let rows = db
    .selectFrom(reported.as('r'))
    .innerJoin('features as f', 'f.name', 'r.feature')
    .innerJoin('feature_environments as fe', (join) =>
      join.onRef('fe.feature_name', '=', 'f.name').on('fe.environment_name', '=', target.environment)
    )
    .select((eb) => [
      'r.feature as feature_name',
      eb.val(target.applicationId).as('application_id'),
      eb.val(hour).as('hour'),
      'r.yes',
      'r.no',
      'r.variants',
      eb.val(now).as('last_seen_at'),
    ])
    .where('f.archived_at', 'is', null)
    .orderBy('r.feature')
  if (target.projects !== undefined) rows = rows.where('f.project_id', 'in', target.projects)
  const counted = await db
    .insertInto('usage_counts')
    .columns(['feature_name', 'application_id', 'hour', 'yes', 'no', 'variants', 'last_seen_at'])
    .expression(rows)
    .onConflict((oc) =>
      oc.columns(['feature_name', 'application_id', 'hour']).doUpdateSet((eb) => ({
        yes: sql`usage_counts.yes + ${eb.ref('excluded.yes')}`,
        no: sql`usage_counts.no + ${eb.ref('excluded.no')}`,
        variants: sql`(
          SELECT coalesce(jsonb_object_agg(name, total), '{}'::jsonb) FROM (
            SELECT name, sum(count) AS total FROM (
              SELECT key AS name, value::bigint AS count, 0 AS seen FROM jsonb_each_text(usage_counts.variants)
              UNION ALL
              SELECT key, value::bigint, 1 FROM jsonb_each_text(excluded.variants)
            ) AS each_count
            GROUP BY name ORDER BY min(seen), name LIMIT ${MAX_VARIANT_NAMES}
          ) AS kept
        )`,
        last_seen_at: eb.ref('excluded.last_seen_at'),
      }))
    )
    .returning('feature_name')
    .execute()
  return counted.map((r) => r.feature_name)
}

/** Whether the environment is of type production (usage there makes features live). */
export async function isProduction (db: Queryable, environment: string): Promise<boolean> {
  const row = await db.selectFrom('environments').select('type').where('name', '=', environment).executeTakeFirst()
  return row?.type === 'production'
}

/**
 * Deletes usage older than the retention: counts of hours before `countsBefore`, instances
 * not seen since `instancesBefore`, applications not seen since `countsBefore` (with all that
 * is theirs). Returns how many rows of each went.
 */
export async function deleteUsage (db: Database, countsBefore: Date, instancesBefore: Date) {
  const counts = await db.deleteFrom('usage_counts').where('hour', '<', countsBefore).executeTakeFirst()
  const instances = await db.deleteFrom('usage_instances').where('last_seen_at', '<', instancesBefore).executeTakeFirst()
  const applications = await db.deleteFrom('usage_applications').where('last_seen_at', '<', countsBefore).executeTakeFirst()
  return {
    counts: Number(counts.numDeletedRows),
    instances: Number(instances.numDeletedRows),
    applications: Number(applications.numDeletedRows),
  }
}
