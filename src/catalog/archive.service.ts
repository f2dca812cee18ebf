import { coversProject, type TokenScope } from '../access/scope.js'
import { groupBy } from '../db/rows.js'
import type { Database } from '../db/types.js'
import { haveDependencies, parentsAmong, parentsWithChildrenOutside } from '../dependencies/dependencies.store.js'
import { ApiError, notFound, permissionDenied } from '../errors.js'
import { readerOf, withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { lockFeatures, requirePresent } from '../features/features.store.js'
import { tagsOfFeatures } from '../tags/tags.store.js'
import { archiveFeature, reviveFeatures } from './catalog.service.js'
import { deleteFeature, featureNamed, featureRecord } from './catalog.store.js'

/** Children before their parents: a parent goes (archived, deleted) only once its children have. */
async function childrenFirst (db: Parameters<typeof parentsAmong>[0], names: readonly string[]) {
  const parents = new Set(await parentsAmong(db, names))
  return [...names.filter((n) => !parents.has(n)), ...names.filter((n) => parents.has(n))]
}

/**
 * What archiving these features would do, as Unleash's archive dialog asks: which of them have
 * children not in the list (archiving is then refused), and whether any has dependencies at all.
 * Reads only.
 */
export async function validateArchive (db: Database, project: string, names: readonly string[]) {
  await requirePresent(db, { project })
  return {
    parentsWithChildFeatures: await parentsWithChildrenOutside(db, names),
    hasDeletedDependencies: await haveDependencies(db, names),
  }
}

/**
 * Archives features of a project, all or none: each as the single archive does (its refusal
 * when features not archived depend on it, its event), locked first in name order, children
 * before their parents so that a parent archived with all its children is not refused. 404
 * naming the first that is not in the project.
 */
export function archiveFeatures (writer: Writer, project: string, names: readonly string[], createdBy: Author) {
  return withChange(writer, async (change) => {
    const locked = (await lockFeatures(change.trx, project, names)).map((f) => f.name)
    for (const feature of await childrenFirst(change.trx, locked)) await archiveFeature(change, { project, feature }, createdBy)
  })
}

/**
 * Deletes archived features of a project for good, all or none (as Unleash: one that is not
 * archived is left alone): each records feature-deleted with the feature and its tags as
 * preData; their strategies, variants, tags, links, lifecycle and favourites go with them.
 * Refused (409) when a feature not deleted with them depends on one of them. 404 naming the
 * first that is not in the project.
 */
export function deleteFeatures (writer: Writer, project: string, names: readonly string[], createdBy: Author) {
  return withChange(writer, async (change) => {
    const { trx } = change
    const archived = (await lockFeatures(trx, project, names)).filter((f) => f.archived).map((f) => f.name)
    if (archived.length === 0) return
    const orphaning = await parentsWithChildrenOutside(trx, archived)
    if (orphaning.length > 0) {
      throw new ApiError('InUseError', `${orphaning.join(', ')} cannot be deleted: features that are not deleted with ${orphaning.length === 1 ? 'it' : 'them'} depend on ${orphaning.length === 1 ? 'it' : 'them'} (delete those first, or with ${orphaning.length === 1 ? 'it' : 'them'})`)
    }
    const tags = groupBy(await tagsOfFeatures(trx, archived), (t) => t.featureName, (t) => ({ type: t.tagType, value: t.tagValue }))
    for (const name of await childrenFirst(trx, archived)) {
      const record = await featureRecord(trx, name)
      await deleteFeature(trx, name)
      change.record({ type: 'feature-deleted', createdBy, project, featureName: name, preData: toJsonText({ ...record, tags: tags.get(name) ?? [] }) })
    }
  })
}

/** The project of a feature named outside a project's path, when the token covers it; undefined when there is no such feature. */
async function projectOf (writer: Writer, name: string, token: TokenScope) {
  const found = await featureNamed(readerOf(writer), name)
  if (found && !coversProject(token, found.project)) throw permissionDenied(`API token ${token.name} has no access to project ${found.project}`)
  return found?.project
}

/**
 * Deletes one archived feature for good, named without its project (Terraform's provider calls
 * this after archiving): as deleteFeatures. As Unleash, a feature that does not exist or is not
 * archived is left alone (200).
 */
export async function deleteArchivedFeature (writer: Writer, name: string, token: TokenScope, createdBy: Author) {
  const project = await projectOf(writer, name, token)
  if (project !== undefined) await deleteFeatures(writer, project, [name], createdBy)
}

/** Revives one feature named without its project, as reviveFeatures does; 404 when there is no such feature. */
export async function reviveArchivedFeature (writer: Writer, name: string, token: TokenScope, createdBy: Author) {
  const project = await projectOf(writer, name, token)
  if (project === undefined) throw notFound(`Feature ${name} does not exist`)
  await reviveFeatures(writer, project, [name], createdBy)
}
