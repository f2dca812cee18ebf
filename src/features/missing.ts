import { ApiError, notFound } from '../errors.js'

/** A feature in its project. */
export interface FeatureRef {
  project: string
  feature: string
}

/** A feature in one environment, in its project. */
export interface FeatureEnvironmentRef extends FeatureRef {
  environment: string
}

export const archivedFeature = (feature: string) =>
  new ApiError('FeatureArchivedError', `Feature ${feature} is archived; revive it first`)

/** What one snapshot of the database says about the parts of a request's path. */
export interface Presence {
  project: boolean
  /** The project of the feature of that name, null when there is none. */
  featureProject: string | null
  archived: boolean
  environment: boolean
  /** The environment is enabled in the project. */
  enabled: boolean
}

/**
 * Why a path does not name a usable feature (or feature-environment), from one snapshot: the
 * 404 for the first of project and feature in that project that is missing, 409 for an
 * archived feature (unless `archivedIsFine`), then the 404 for an environment that does not
 * exist or (unless not `mustBeEnabled`) is not enabled in the project. Undefined when nothing is missing.
 */
export function absence (
  presence: Presence,
  target: { project: string; feature?: string; environment?: string },
  { archivedIsFine = false, mustBeEnabled = true } = {}
): ApiError | undefined {
  const { project, feature, environment } = target
  if (!presence.project) return notFound(`Project ${project} does not exist`)
  if (feature !== undefined && presence.featureProject !== project) {
    return notFound(`Feature ${feature} does not exist in project ${project}`)
  }
  if (feature !== undefined && presence.archived && !archivedIsFine) return archivedFeature(feature)
  if (environment !== undefined) {
    if (!presence.environment) return notFound(`Environment ${environment} does not exist`)
    if (!presence.enabled && mustBeEnabled) return notFound(`Environment ${environment} is not enabled in project ${project}`)
  }
  return undefined
}
