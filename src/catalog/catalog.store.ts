import type { Static } from '@sinclair/typebox'
import type { Transaction } from 'kysely'
import { ALL, type TokenScope } from '../access/scope.js'
import { isUniqueViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import { nameExists } from '../errors.js'
import type { Variant } from '../variants/variants.schemas.js'
import type { NewEnvironment, NewFeature, NewProject } from './catalog.schemas.js'
import { groupBy } from '../db/rows.js'

const projectColumns = ['id', 'name', 'description', 'created_at'] as const

const toProject = (row: { id: string; name: string; description: string | null; created_at: Date }) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  createdAt: row.created_at,
})

export async function listProjects (db: Queryable, token: TokenScope) {
  let query = db.selectFrom('projects').select(projectColumns)
  if (!token.projects.includes(ALL)) query = query.where('id', 'in', token.projects)
  const rows = await query.orderBy('id').execute()
  return rows.map(toProject)
}

export async function findProject (db: Queryable, id: string) {
  const row = await db.selectFrom('projects').select(projectColumns).where('id', '=', id).executeTakeFirst()
  return row && toProject(row)
}

export async function insertProject (trx: Transaction<DB>, project: Static<typeof NewProject>) {
  try {
    const row = await trx
      .insertInto('projects')
      .values({ id: project.id, name: project.name, description: project.description ?? null })
      .returning(projectColumns)
      .executeTakeFirstOrThrow()
    return toProject(row)
  } catch (error) {
    if (isUniqueViolation(error)) throw nameExists(`A project with id ${project.id} already exists`)
    throw error
  }
}

export async function listEnvironments (db: Queryable) {
  const rows = await db.selectFrom('environments').select(['name', 'type', 'created_at']).orderBy('name').execute()
  return rows.map((r) => ({ name: r.name, type: r.type, createdAt: r.created_at }))
}

export async function insertEnvironment (trx: Transaction<DB>, environment: Static<typeof NewEnvironment>) {
  try {
    const row = await trx
      .insertInto('environments')
      .values(environment)
      .returning(['name', 'type', 'created_at'])
      .executeTakeFirstOrThrow()
    return { name: row.name, type: row.type, createdAt: row.created_at }
  } catch (error) {
    if (isUniqueViolation(error)) throw nameExists(`An environment named ${environment.name} already exists`)
    throw error
  }
}

/**
 * Enables an existing environment in an existing project and gives each of the project's
 * features its feature-environment there. Returns false when it was enabled already (then
 * nothing is written).
 */
export async function addProjectEnvironment (trx: Transaction<DB>, project: string, environment: string): Promise<boolean> {
  const added = await trx
    .insertInto('project_environments')
    .values({ project_id: project, environment_name: environment })
    .onConflict((oc) => oc.doNothing())
    .returning('project_id')
    .executeTakeFirst()
  if (!added) return false
  await trx
    .insertInto('feature_environments')
    .columns(['feature_name', 'environment_name'])
    .expression((eb) =>
      eb.selectFrom('features').select(['name', eb.val(environment).as('environment_name')]).where('project_id', '=', project)
    )
    .onConflict((oc) => oc.doNothing())
    .execute()
  return true
}

const featureColumns = ['name', 'project_id', 'description', 'type', 'impression_data', 'created_at', 'stale'] as const

const toFeature = (row: {
  name: string
  project_id: string
  description: string | null
  type: string
  impression_data: boolean
  created_at: Date
  stale: boolean
}) => ({
  name: row.name,
  project: row.project_id,
  description: row.description,
  type: row.type,
  impressionData: row.impression_data,
  createdAt: row.created_at,
  stale: row.stale,
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
    .leftJoin('usage_evaluations as ue', (join) =>
      join.onRef('ue.feature_name', '=', 'feature_environments.feature_name').onRef('ue.environment', '=', 'feature_environments.environment_name'))
    .select(['feature_environments.feature_name', 'feature_environments.environment_name', 'feature_environments.enabled', 'ue.last_seen_at'])
    .where('features.project_id', '=', project)
    .where('features.archived_at', 'is', null)
    .orderBy('feature_environments.environment_name')
  if (!token.environments.includes(ALL)) query = query.where('feature_environments.environment_name', 'in', token.environments)
  return groupBy(await query.execute(), (row) => row.feature_name, (row) => ({ name: row.environment_name, enabled: row.enabled, lastSeenAt: row.last_seen_at }))
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
