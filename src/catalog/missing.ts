import type { Queryable } from '../db/types.js'
import { ApiError, notFound } from '../errors.js'

interface Target {
  project: string
  feature?: string
  environment?: string
}

/**
 * Explains why a lookup of project / feature-in-project / enabled environment found nothing,
 * in one query. Only called on the error path; the happy path finds its row directly.
 */
export async function explainMissing (db: Queryable, target: Target): Promise<ApiError> {
  return (
    (await findMissing(db, target, true)) ?? notFound(`Not found in project ${target.project}`)
  )
}

/** The 404 for the first of project, feature in project, environment (enabled) that is missing; 409 for an archived feature. */
export async function findMissing (
  db: Queryable,
  target: Target,
  environmentMustBeEnabled: boolean
): Promise<ApiError | undefined> {
  const { project, feature = '', environment = '' } = target
  const found = await db
    .selectNoFrom((eb) => [
      eb.exists(eb.selectFrom('projects').select('id').where('id', '=', project)).as('project'),
      eb.selectFrom('features').select('project_id').where('name', '=', feature).as('feature_project'),
      eb.exists(eb.selectFrom('features').select('name').where('name', '=', feature).where('archived_at', 'is not', null)).as('archived'),
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
    ])
    .executeTakeFirstOrThrow()
  if (!found.project) return notFound(`Project ${project} does not exist`)
  if (target.feature !== undefined && found.feature_project !== project) {
    return notFound(`Feature ${feature} does not exist in project ${project}`)
  }
  if (target.feature !== undefined && found.archived) {
    return new ApiError('FeatureArchivedError', `Feature ${feature} is archived; revive it first`)
  }
  if (target.environment !== undefined) {
    if (!found.environment) return notFound(`Environment ${environment} does not exist`)
    if (environmentMustBeEnabled && !found.enabled) {
      return notFound(`Environment ${environment} is not enabled in project ${project}`)
    }
  }
  return undefined
}
