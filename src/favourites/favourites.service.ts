import { withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { lockFeature, requirePresent } from '../features/features.store.js'
import type { FeatureRef } from '../features/missing.js'
import { deleteFavoriteFeature, deleteFavoriteProject, insertFavoriteFeature, insertFavoriteProject } from './favourites.store.js'

/** Who marks favourites: a person (their id), named as events name them. */
export interface Marker {
  userId: number
  author: Author
}

/**
 * Marks a feature (archived ones too) as the person's favourite (feature-favorited), or
 * unmarks it (feature-unfavorited); marking it again, or unmarking one that is not, changes
 * nothing. 404 naming the project or the feature in it that does not exist.
 */
export function setFavoriteFeature (writer: Writer, ref: FeatureRef, favorite: boolean, { userId, author }: Marker) {
  return withChange(writer, async ({ trx, record }) => {
    await lockFeature(trx, ref, true)
    const changed = favorite ? await insertFavoriteFeature(trx, userId, ref.feature) : await deleteFavoriteFeature(trx, userId, ref.feature)
    if (changed) {
      record({ type: favorite ? 'feature-favorited' : 'feature-unfavorited', createdBy: author, project: ref.project, featureName: ref.feature, data: toJsonText({ feature: ref.feature }) })
    }
  })
}

/** Marks a project as the person's favourite (project-favorited), or unmarks it (project-unfavorited); 404 for a project that does not exist. */
export function setFavoriteProject (writer: Writer, project: string, favorite: boolean, { userId, author }: Marker) {
  return withChange(writer, async ({ trx, record }) => {
    await requirePresent(trx, { project })
    const changed = favorite ? await insertFavoriteProject(trx, userId, project) : await deleteFavoriteProject(trx, userId, project)
    if (changed) record({ type: favorite ? 'project-favorited' : 'project-unfavorited', createdBy: author, project, data: toJsonText({ project }) })
  })
}
