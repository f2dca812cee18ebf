import type { Static } from '@sinclair/typebox'
import { sql, type Transaction } from 'kysely'
import { ALL, type TokenScope } from '../access/scope.js'
import { isUniqueViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import { nameExists } from '../errors.js'
import type { Variant } from '../variants/variants.schemas.js'
import type { NewFeature } from './catalog.schemas.js'
import { groupBy } from '../db/rows.js'

const featureColumns = ['name', 'project_id', 'description', 'type', 'stale', 'impression_data', 'created_at'] as const

const toFeature = (row: {
  name: string
  project_id: string
  description: string | null
  type: string
  stale: boolean
  impression_data: boolean
  created_at: Date
}) => ({
  name: row.name,
  project: row.project_id,
  description: row.description,
  type: row.type,
  stale: row.stale,
  impressionData: row.impression_data,
  createdAt: row.created_at,
})

/** Creates the feature in an existing project, with its feature-environments (off, no variants); `createdBy` is the person who did (null for an API token). */
export async function insertFeature (trx: Transaction<DB>, project: string, feature: Static<typeof NewFeature>, createdBy: number | null) {
  let row: Parameters<typeof toFeature>[0]
  try {
    row = await trx
      .insertInto('features')
      .values({
        name: feature.name,
        project_id: project,
        description: feature.description ?? null,
        type: feature.type ?? 'release',
        impression_data: feature.impressionData ?? false,
        created_by_user_id: createdBy,
      })
      .returning(featureColumns)
      .executeTakeFirstOrThrow()
  } catch (error) {
    if (isUniqueViolation(error)) throw nameExists(`A feature named ${feature.name} already exists`)
    throw error
  }
  await trx
    .insertInto('feature_environments')
    .columns(['feature_name', 'environment_name'])
    .expression((eb) =>
      eb
        .selectFrom('project_environments')
        .select([eb.val(feature.name).as('feature_name'), 'environment_name'])
        .where('project_id', '=', project)
    )
    .execute()
  return toFeature(row)
}

export async function listFeatures (db: Queryable, project: string) {
  const rows = await db
    .selectFrom('features')
    .select(featureColumns)
    .where('project_id', '=', project)
    .where('archived_at', 'is', null)
    .orderBy('name')
    .execute()
  return rows.map(toFeature)
}

/** A feature in one environment, as lists show it. */
export interface FeatureEnvironmentSummary {
  name: string
  type: string
  enabled: boolean
  variantCount: number
  lastSeenAt: Date | null
  hasStrategies: boolean
  hasEnabledStrategies: boolean
}

/**
 * Each feature of a project that is not archived (or the one named) in every environment the
 * token may see: on or off, its variant count, its strategies, when SDKs last evaluated it; by
 * feature name, environments in name order.
 */
export async function listFeatureEnvironments (db: Queryable, project: string, token: TokenScope, feature?: string) {
  let query = db
    .selectFrom('feature_environments as fe')
    .innerJoin('features as f', 'f.name', 'fe.feature_name')
    .innerJoin('environments as e', 'e.name', 'fe.environment_name')
    .leftJoin('usage_evaluations as u', (join) => join.onRef('u.feature_name', '=', 'fe.feature_name').onRef('u.environment', '=', 'fe.environment_name'))
    .select(['fe.feature_name', 'fe.environment_name', 'fe.enabled', 'e.type', 'u.last_seen_at'])
    .select((eb) => [
      sql<number>`json_array_length(fe.variants)`.as('variant_count'),
      eb.exists(eb.selectFrom('feature_strategies as s').select('s.id').whereRef('s.feature_name', '=', 'fe.feature_name').whereRef('s.environment_name', '=', 'fe.environment_name')).as('has_strategies'),
      eb
        .exists(eb.selectFrom('feature_strategies as s').select('s.id').whereRef('s.feature_name', '=', 'fe.feature_name').whereRef('s.environment_name', '=', 'fe.environment_name').where('s.disabled', '=', false))
        .as('has_enabled_strategies'),
    ])
    .where('f.project_id', '=', project)
    .orderBy('fe.environment_name')
  query = feature === undefined ? query.where('f.archived_at', 'is', null) : query.where('f.name', '=', feature)
  if (!token.environments.includes(ALL)) query = query.where('fe.environment_name', 'in', token.environments)
  return groupBy(await query.execute(), (row) => row.feature_name, (row): FeatureEnvironmentSummary => ({
    name: row.environment_name,
    type: row.type,
    enabled: row.enabled,
    variantCount: Number(row.variant_count),
    lastSeenAt: row.last_seen_at === null ? null : new Date(row.last_seen_at),
    hasStrategies: Boolean(row.has_strategies),
    hasEnabledStrategies: Boolean(row.has_enabled_strategies),
  }))
}

/** Each environment's sortOrder, by name. */
export async function environmentSortOrders (db: Queryable) {
  const rows = await db.selectFrom('environments').select(['name', 'sort_order']).execute()
  return new Map(rows.map((r) => [r.name, r.sort_order]))
}

/** The feature of the project (archived or not). */
export async function findFeatureRow (db: Queryable, project: string, name: string) {
  const row = await db
    .selectFrom('features')
    .select(featureColumns)
    .where('project_id', '=', project)
    .where('name', '=', name)
    .executeTakeFirst()
  return row && toFeature(row)
}

/** The feature of the project with the environments (and their variants) the token may see. */
export async function findFeature (db: Queryable, project: string, name: string, token: TokenScope) {
  const feature = await findFeatureRow(db, project, name)
  if (!feature) return undefined
  let environments = db
    .selectFrom('feature_environments as fe')
    .leftJoin('usage_evaluations as ue', (join) => join.onRef('ue.feature_name', '=', 'fe.feature_name').onRef('ue.environment', '=', 'fe.environment_name'))
    .select(['fe.environment_name', 'fe.enabled', 'fe.variants', 'ue.last_seen_at'])
    .where('fe.feature_name', '=', name)
    .orderBy('fe.environment_name')
  if (!token.environments.includes(ALL)) {
    environments = environments.where('fe.environment_name', 'in', token.environments)
  }
  return {
    ...feature,
    environments: (await environments.execute()).map((e) => ({
      name: e.environment_name,
      enabled: e.enabled,
      variants: JSON.parse(e.variants) as Variant[],
      lastSeenAt: e.last_seen_at,
    })),
  }
}

export async function setArchived (trx: Transaction<DB>, feature: string, archived: boolean) {
  await trx.updateTable('features').set({ archived_at: archived ? new Date() : null }).where('name', '=', feature).execute()
}

/** Changes a feature's description, type, stale and impressionData; returns it as it is now. */
export async function updateFeature (trx: Transaction<DB>, name: string, fields: { description: string | null; type: string; stale: boolean; impressionData: boolean }) {
  const row = await trx
    .updateTable('features')
    .set({ description: fields.description, type: fields.type, stale: fields.stale, impression_data: fields.impressionData })
    .where('name', '=', name)
    .returning(featureColumns)
    .executeTakeFirstOrThrow()
  return toFeature(row)
}

/** Whether a feature of this name exists (archived or not), in any project. */
export async function featureNamed (db: Queryable, name: string) {
  const row = await db.selectFrom('features').select(['project_id', 'archived_at']).where('name', '=', name).executeTakeFirst()
  return row && { project: row.project_id, archived: row.archived_at !== null }
}

/** Deletes an archived feature for good: everything that belongs to it goes with it (foreign keys cascade). */
export async function deleteFeature (trx: Transaction<DB>, name: string) {
  await trx.deleteFrom('features').where('name', '=', name).execute()
}

/** The full row an event of a deleted feature keeps (Unleash's preData). */
export async function featureRecord (db: Queryable, name: string) {
  const row = await db
    .selectFrom('features')
    .select([...featureColumns, 'archived_at'])
    .where('name', '=', name)
    .executeTakeFirstOrThrow()
  return { ...toFeature(row), archived: row.archived_at !== null, archivedAt: row.archived_at }
}
