import type { Static } from '@sinclair/typebox'
import type { Transaction } from 'kysely'
import { ALL, type TokenScope } from '../access/scope.js'
import { isUniqueViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import { nameExists } from '../errors.js'
import type { Variant } from '../variants/variants.schemas.js'
import type { NewFeature } from './catalog.schemas.js'
import { groupBy } from '../db/rows.js'

const featureColumns = ['name', 'project_id', 'description', 'type', 'impression_data', 'created_at'] as const

const toFeature = (row: {
  name: string
  project_id: string
  description: string | null
  type: string
  impression_data: boolean
  created_at: Date
}) => ({
  name: row.name,
  project: row.project_id,
  description: row.description,
  type: row.type,
  impressionData: row.impression_data,
  createdAt: row.created_at,
})

/** Creates the feature in an existing project, with its feature-environments (off, no variants). */
export async function insertFeature (trx: Transaction<DB>, project: string, feature: Static<typeof NewFeature>) {
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

/**
 * Whether each feature of a project that is not archived is on, per environment the token may
 * see, by feature name (environments in name order).
 */
export async function listFeatureStates (db: Queryable, project: string, token: TokenScope) {
  let query = db
    .selectFrom('feature_environments')
    .innerJoin('features', 'features.name', 'feature_environments.feature_name')
    .select(['feature_environments.feature_name', 'feature_environments.environment_name', 'feature_environments.enabled'])
    .where('features.project_id', '=', project)
    .where('features.archived_at', 'is', null)
    .orderBy('feature_environments.environment_name')
  if (!token.environments.includes(ALL)) query = query.where('feature_environments.environment_name', 'in', token.environments)
  return groupBy(await query.execute(), (row) => row.feature_name, (row) => ({ name: row.environment_name, enabled: row.enabled }))
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
    .selectFrom('feature_environments')
    .select(['environment_name', 'enabled', 'variants'])
    .where('feature_name', '=', name)
    .orderBy('environment_name')
  if (!token.environments.includes(ALL)) {
    environments = environments.where('environment_name', 'in', token.environments)
  }
  return {
    ...feature,
    environments: (await environments.execute()).map((e) => ({
      name: e.environment_name,
      enabled: e.enabled,
      variants: JSON.parse(e.variants) as Variant[],
    })),
  }
}

export async function setArchived (trx: Transaction<DB>, feature: string, archived: boolean) {
  await trx.updateTable('features').set({ archived_at: archived ? new Date() : null }).where('name', '=', feature).execute()
}

/** Changes a feature's description, type and impressionData; returns it as it is now. */
export async function updateFeature (trx: Transaction<DB>, name: string, fields: { description: string | null; type: string; impressionData: boolean }) {
  const row = await trx
    .updateTable('features')
    .set({ description: fields.description, type: fields.type, impression_data: fields.impressionData })
    .where('name', '=', name)
    .returning(featureColumns)
    .executeTakeFirstOrThrow()
  return toFeature(row)
}
