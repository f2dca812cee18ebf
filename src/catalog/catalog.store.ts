import type { Static } from '@sinclair/typebox'
import { ALL, type TokenScope } from '../auth/tokens.js'
import { isForeignKeyViolation, isUniqueViolation } from '../db/errors.js'
import type { Queryable } from '../db/types.js'
import { nameExists, notFound } from '../errors.js'
import type { Variant } from '../variants/variants.schemas.js'
import type { NewEnvironment, NewFeature, NewProject } from './catalog.schemas.js'
import { explainMissing, findMissing } from './missing.js'

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

export async function getProject (db: Queryable, id: string) {
  const row = await db.selectFrom('projects').select(projectColumns).where('id', '=', id).executeTakeFirst()
  if (!row) throw notFound(`Project ${id} does not exist`)
  return toProject(row)
}

export async function insertProject (db: Queryable, project: Static<typeof NewProject>) {
  try {
    const row = await db
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

export async function insertEnvironment (db: Queryable, environment: Static<typeof NewEnvironment>) {
  try {
    const row = await db
      .insertInto('environments')
      .values(environment)
      .returning(['name', 'type', 'created_at'])
      .executeTakeFirstOrThrow()
    return { name: row.name, type: row.type, createdAt: row.created_at }
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw nameExists(`An environment named ${environment.name} already exists`)
    }
    throw error
  }
}

/**
 * Enables an environment in a project and gives each of the project's features its
 * feature-environment there. Enabling twice changes nothing. Call inside a transaction.
 */
export async function enableEnvironment (db: Queryable, project: string, environment: string) {
  const missing = await findMissing(db, { project, environment }, false)
  if (missing) throw missing
  await db
    .insertInto('project_environments')
    .values({ project_id: project, environment_name: environment })
    .onConflict((oc) => oc.doNothing())
    .execute()
  await db
    .insertInto('feature_environments')
    .columns(['feature_name', 'environment_name'])
    .expression((eb) =>
      eb.selectFrom('features').select(['name', eb.val(environment).as('environment_name')]).where('project_id', '=', project)
    )
    .onConflict((oc) => oc.doNothing())
    .execute()
}

const featureColumns = ['name', 'project_id', 'description', 'type', 'created_at'] as const

const toFeature = (row: {
  name: string
  project_id: string
  description: string | null
  type: string
  created_at: Date
}) => ({
  name: row.name,
  project: row.project_id,
  description: row.description,
  type: row.type,
  createdAt: row.created_at,
})

/** Creates the feature, its feature-environments and its `initial` lifecycle stage. Call inside a transaction. */
export async function insertFeature (db: Queryable, project: string, feature: Static<typeof NewFeature>) {
  let row: Parameters<typeof toFeature>[0]
  try {
    row = await db
      .insertInto('features')
      .values({
        name: feature.name,
        project_id: project,
        description: feature.description ?? null,
        type: feature.type ?? 'release',
      })
      .returning(featureColumns)
      .executeTakeFirstOrThrow()
  } catch (error) {
    if (isUniqueViolation(error)) throw nameExists(`A feature named ${feature.name} already exists`)
    if (isForeignKeyViolation(error)) throw notFound(`Project ${project} does not exist`)
    throw error
  }
  await db
    .insertInto('feature_environments')
    .columns(['feature_name', 'environment_name'])
    .expression((eb) =>
      eb
        .selectFrom('project_environments')
        .select([eb.val(feature.name).as('feature_name'), 'environment_name'])
        .where('project_id', '=', project)
    )
    .execute()
  await db
    .insertInto('feature_lifecycles')
    .values({ feature_name: feature.name, stage: 'initial', status: null, status_value: null })
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
  if (rows.length === 0) await getProject(db, project)
  return rows.map(toFeature)
}

/** A feature with its current lifecycle stage and the environments (with variants) the token may see. */
export async function getFeatureDetails (db: Queryable, project: string, name: string, token: TokenScope) {
  const row = await db
    .selectFrom('features')
    .select(featureColumns)
    .where('project_id', '=', project)
    .where('name', '=', name)
    .executeTakeFirst()
  if (!row) throw await explainMissing(db, { project, feature: name })
  let environments = db
    .selectFrom('feature_environments')
    .select(['environment_name', 'enabled', 'variants'])
    .where('feature_name', '=', name)
    .orderBy('environment_name')
  if (!token.environments.includes(ALL)) {
    environments = environments.where('environment_name', 'in', token.environments)
  }
  const [visible, stage] = await Promise.all([
    environments.execute(),
    db
      .selectFrom('feature_lifecycles')
      .select(['stage', 'entered_stage_at', 'status', 'status_value'])
      .where('feature_name', '=', name)
      .orderBy('entered_stage_at', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow(),
  ])
  return {
    ...toFeature(row),
    lifecycle: {
      stage: stage.stage,
      enteredStageAt: stage.entered_stage_at,
      ...(stage.status !== null && { status: stage.status }),
      ...(stage.status_value !== null && { statusValue: stage.status_value }),
    },
    environments: visible.map((e) => ({
      name: e.environment_name,
      enabled: e.enabled,
      variants: JSON.parse(e.variants) as Variant[],
    })),
  }
}
