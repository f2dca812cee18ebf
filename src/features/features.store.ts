import { sql, type Transaction } from 'kysely'
import { type Param, prepare, queryBuilder } from '../db/prepared.js'
import type { DB, Queryable } from '../db/types.js'
import { notFound } from '../errors.js'
import { absence, archivedFeature, type FeatureEnvironmentRef, type FeatureRef, type Presence } from './missing.js'

export type { FeatureEnvironmentRef, FeatureRef }

/** A feature-environment as the write paths read it. */
export interface FeatureEnvironmentState {
  /** The variants as stored: JSON text in the form serializeVariants makes. */
  variants: string
  revision: number
  enabled: boolean
}

interface Target {
  project: string
  feature?: string
  environment?: string
}

/**
 * One statement, so one snapshot: the feature-environment (when the path names one) and
 * everything that explains its absence. A 404 or 409 is then never contradicted by a change
 * committed between a lookup and its explanation.
 */
async function lookUp (db: Queryable, target: Target) {
  const { project, feature = '', environment = '' } = target
  const row = await db
    .selectFrom(sql<{ one: number }>`(select 1 as one)`.as('one'))
    .leftJoin('features as f', (join) => join.on('f.name', '=', feature))
    .leftJoin('feature_environments as fe', (join) =>
      join.onRef('fe.feature_name', '=', 'f.name').on('fe.environment_name', '=', environment)
    )
    .select((eb) => [
      eb.exists(eb.selectFrom('projects').select('id').where('id', '=', project)).as('project'),
      'f.project_id',
      'f.archived_at',
      eb.exists(eb.selectFrom('environments').select('name').where('name', '=', environment)).as('environment'),
      eb
        .exists(
          eb
            .selectFrom('project_environments')
            .select('project_id')
            .where('project_id', '=', project)
            .where('environment_name', '=', environment)
        )
        .as('enabled'),
      'fe.variants',
      'fe.revision',
      'fe.enabled as fe_enabled',
    ])
    .executeTakeFirstOrThrow()
  const presence: Presence = {
    project: Boolean(row.project),
    featureProject: row.project_id,
    archived: row.archived_at !== null,
    environment: Boolean(row.environment),
    enabled: Boolean(row.enabled),
  }
  const state =
    row.variants === null || row.revision === null || row.fe_enabled === null
      ? undefined
      : { variants: row.variants, revision: row.revision, enabled: row.fe_enabled }
  return { presence, state }
}

/** The feature-environment, without a lock; 404 naming what is missing, 409 when archived. */
export async function readFeatureEnvironment (db: Queryable, ref: FeatureEnvironmentRef): Promise<FeatureEnvironmentState> {
  const { presence, state } = await lookUp(db, ref)
  const refusal = absence(presence, ref)
  if (refusal) throw refusal
  if (!state) throw notFound(`Feature ${ref.feature} has no environment ${ref.environment}`)
  return state
}

/** 404 naming the missing part, or 409 when archived (unless archived is fine), from one snapshot. */
async function explain (db: Queryable, target: Target, options: Parameters<typeof absence>[2] = {}) {
  const { presence } = await lookUp(db, target)
  return absence(presence, target, options)
}

/**
 * 404 naming what is missing among the project, the feature in it (archived or not) and the
 * environment (enabled there, unless not `mustBeEnabled`), from one snapshot.
 */
export async function requirePresent (db: Queryable, target: Target, mustBeEnabled = true): Promise<void> {
  const refusal = await explain(db, target, { archivedIsFine: true, mustBeEnabled })
  if (refusal) throw refusal
}

/**
 * Locks the feature's row (FOR NO KEY UPDATE) until the transaction ends. Every write to a
 * feature or anything that belongs to it takes this lock first: it is the mutex that
 * serialises them with each other and with archive and revive. 404 naming what is missing;
 * 409 when the feature is archived, unless `archivedIsFine` (archive and revive themselves).
 * Returns whether it is archived.
 */
export async function lockFeature (trx: Transaction<DB>, ref: FeatureRef, archivedIsFine = false): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    const row = await trx
      .selectFrom('features')
      .select('archived_at')
      .where('name', '=', ref.feature)
      .where('project_id', '=', ref.project)
      .forNoKeyUpdate()
      .executeTakeFirst()
    if (row) {
      if (row.archived_at !== null && !archivedIsFine) throw archivedFeature(ref.feature)
      return row.archived_at !== null
    }
    // Not found when locking: say why from one snapshot; if nothing is missing any more (the
    // feature was created meanwhile), lock it after all.
    const refusal = await explain(trx, ref, { archivedIsFine })
    if (refusal || attempt > 0) throw refusal ?? notFound(`Feature ${ref.feature} does not exist in project ${ref.project}`)
  }
}

/**
 * Locks the feature's row and then its feature-environment's row, in one statement (the
 * feature first, as every writer does), and reads the feature-environment as the previous
 * holder of the locks left it. 404 naming what is missing; 409 when archived.
 */
export async function lockFeatureEnvironment (trx: Transaction<DB>, ref: FeatureEnvironmentRef): Promise<FeatureEnvironmentState> {
  for (let attempt = 0; ; attempt++) {
    const [row] = await lockedFeatureEnvironment(trx, ref)
    if (row?.archived_at === null) return { variants: row.variants, revision: row.revision, enabled: row.enabled }
    if (row) throw archivedFeature(ref.feature)
    const refusal = await explain(trx, ref)
    if (refusal || attempt > 0) throw refusal ?? notFound(`Feature ${ref.feature} has no environment ${ref.environment}`)
  }
}

/** The statement of lockFeatureEnvironment (every write of the hot path runs it): prepared. */
const lockedFeatureEnvironment = prepare((param: Param<FeatureEnvironmentRef>) =>
  queryBuilder
    .selectFrom('features as f')
    .innerJoin('feature_environments as fe', 'fe.feature_name', 'f.name')
    .innerJoin('project_environments as pe', (join) =>
      join.onRef('pe.project_id', '=', 'f.project_id').onRef('pe.environment_name', '=', 'fe.environment_name')
    )
    .select(['f.archived_at', 'fe.variants', 'fe.revision', 'fe.enabled'])
    .where('f.name', '=', param('feature'))
    .where('f.project_id', '=', param('project'))
    .where('fe.environment_name', '=', param('environment'))
    .forNoKeyUpdate(['f', 'fe'])
)

/**
 * Locks several features of a project, in name order (so that two such writers cannot
 * deadlock), archived or not; 404 naming the project when it does not exist, else the first
 * feature, in the order given, that is not in it. Returns whether each is archived.
 */
export async function lockFeatures (trx: Transaction<DB>, project: string, names: readonly string[]) {
  if (names.length === 0) {
    const refusal = await explain(trx, { project })
    if (refusal) throw refusal
    return []
  }
  const rows = await trx
    .selectFrom('features')
    .select(['name', 'archived_at'])
    .where('project_id', '=', project)
    .where('name', 'in', names)
    .orderBy('name')
    .forNoKeyUpdate()
    .execute()
  const missing = names.find((name) => !rows.some((r) => r.name === name))
  if (missing !== undefined) {
    throw (await explain(trx, { project, feature: missing }, { archivedIsFine: true })) ?? notFound(`Feature ${missing} does not exist in project ${project}`)
  }
  return rows.map((r) => ({ name: r.name, archived: r.archived_at !== null }))
}

/** Locks features by name, wherever they are, in name order; those that do not exist are left out. */
export async function lockFeaturesByName (trx: Transaction<DB>, names: readonly string[]): Promise<FeatureRef[]> {
  if (names.length === 0) return []
  const rows = await trx
    .selectFrom('features')
    .select(['name', 'project_id'])
    .where('name', 'in', names)
    .orderBy('name')
    .forNoKeyUpdate()
    .execute()
  return rows.map((r) => ({ project: r.project_id, feature: r.name }))
}

/** Writes whether a feature is on in an environment; callers hold the feature-environment lock. */
export async function setEnvironmentEnabled (trx: Transaction<DB>, ref: FeatureEnvironmentRef, enabled: boolean) {
  await trx
    .updateTable('feature_environments')
    .set({ enabled })
    .where('feature_name', '=', ref.feature)
    .where('environment_name', '=', ref.environment)
    .execute()
}

/** The environments where a feature is on; callers hold the feature's lock. */
export async function enabledEnvironments (trx: Transaction<DB>, feature: string): Promise<string[]> {
  const rows = await trx
    .selectFrom('feature_environments')
    .select('environment_name')
    .where('feature_name', '=', feature)
    .where('enabled', '=', true)
    .orderBy('environment_name')
    .execute()
  return rows.map((r) => r.environment_name)
}
