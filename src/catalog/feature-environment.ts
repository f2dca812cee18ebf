import type { Queryable } from '../db/types.js'

/** A feature in one environment, in its project. */
export interface FeatureEnvironmentRef {
  project: string
  feature: string
  environment: string
}

/**
 * The feature-environment of a feature in the project, in an environment enabled there
 * (alias `fe`), unless the feature is archived; callers add their select and, to write,
 * `forUpdate('fe')`. When it finds nothing, explainMissing says why (archived is a 409).
 */
export function featureEnvironment (db: Queryable, ref: FeatureEnvironmentRef) {
  return db
    .selectFrom('feature_environments as fe')
    .innerJoin('features as f', 'f.name', 'fe.feature_name')
    .innerJoin('project_environments as pe', (join) =>
      join.onRef('pe.project_id', '=', 'f.project_id').onRef('pe.environment_name', '=', 'fe.environment_name')
    )
    .where('f.project_id', '=', ref.project)
    .where('fe.feature_name', '=', ref.feature)
    .where('fe.environment_name', '=', ref.environment)
    .where('f.archived_at', 'is', null)
}
