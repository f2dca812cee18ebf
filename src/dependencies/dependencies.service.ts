import { lockFeature, lockFeaturesByName, requirePresent } from '../features/features.store.js'
import type { FeatureRef } from '../features/missing.js'
import type { Database } from '../db/types.js'
import { invalidField, refusedAt } from '../errors.js'
import { withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import type { NewDependency } from './dependencies.schemas.js'
import { childrenOf, deleteDependencies, type Dependency, parentsOf, parentsOfFeatures, parentVariantNames, possibleParents, projectHasDependencies, upsertDependency } from './dependencies.store.js'

const eventOf = (ref: FeatureRef, createdBy: Author) => ({ createdBy, project: ref.project, featureName: ref.feature })

/**
 * Makes `ref` (the child) depend on a parent of the same project: the child is on only when the
 * parent is (or off, with enabled false; or on with one of `variants`). Several parents are
 * allowed (unlike Unleash 8.2, which replaces the first); no cycles and no chains: a parent
 * cannot have parents, and a feature others depend on cannot depend on one (400 naming the
 * rule). Both features are locked, in name order, so that concurrent writers cannot build a
 * chain or a cycle between them. The same dependency again changes nothing.
 */
export function addDependency (writer: Writer, ref: FeatureRef, body: NewDependency, createdBy: Author) {
  const parent = body.feature
  if (parent === ref.feature) throw invalidField('/body/feature', 'cannot be the feature itself: a feature cannot depend on itself')
  return withChange(writer, async ({ trx, record }) => {
    const locked = await lockFeaturesByName(trx, [ref.feature, parent])
    // Locked already: this explains a missing child (404) or an archived one (409).
    await lockFeature(trx, ref)
    const parentRow = locked.find((f) => f.feature === parent)
    if (!parentRow || parentRow.project !== ref.project) {
      throw invalidField('/body/feature', `names ${parent}, which is not a feature of project ${ref.project}: the parent feature must exist in the child's project`)
    }
    const archived = await lockFeature(trx, { project: ref.project, feature: parent }, true)
    if (archived) throw invalidField('/body/feature', `names an archived feature: revive ${parent} first`)
    const grandparents = await parentsOf(trx, parent)
    if (grandparents.length > 0) {
      throw invalidField('/body/feature', `names ${parent}, which depends on ${grandparents.map((g) => g.feature).join(', ')} itself: no chains, a parent cannot have parents`)
    }
    const children = await childrenOf(trx, ref.feature)
    if (children.length > 0) {
      throw invalidField('/body/feature', `cannot be added: ${children.join(', ')} depend on ${ref.feature}, and a feature others depend on cannot depend on another (no chains)`)
    }
    const dependency: Dependency = { feature: parent, enabled: body.enabled ?? true, ...(body.variants !== undefined && { variants: body.variants }) }
    const current = (await parentsOf(trx, ref.feature)).find((d) => d.feature === parent)
    if (current && JSON.stringify(current) === JSON.stringify(dependency)) return
    await upsertDependency(trx, ref.feature, dependency)
    record({ ...eventOf(ref, createdBy), type: 'feature-dependency-added', data: toJsonText(dependency), ...(current && { preData: toJsonText(current) }) })
  })
}

/** Removes the dependency on one parent (feature-dependency-removed); none there, nothing changes. */
export function removeDependency (writer: Writer, ref: FeatureRef, parent: string, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    await lockFeature(trx, ref, true)
    const [removed] = await deleteDependencies(trx, ref.feature, parent)
    if (removed !== undefined) record({ ...eventOf(ref, createdBy), type: 'feature-dependency-removed', data: toJsonText({ feature: removed }) })
  })
}

/** Removes every dependency of a feature (feature-dependencies-removed); none, nothing changes. */
export function removeDependencies (writer: Writer, ref: FeatureRef, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    await lockFeature(trx, ref, true)
    const removed = await deleteDependencies(trx, ref.feature)
    if (removed.length > 0) record({ ...eventOf(ref, createdBy), type: 'feature-dependencies-removed', preData: toJsonText({ features: removed }) })
  })
}

/**
 * The dependencies of these features (of one project) become the listed ones: every parent a
 * child has that is not listed is removed first, from all of them (feature-dependency-removed),
 * then each listed one is added as addDependency adds one (its rules and event; one that is
 * there already changes nothing). Removing first lets one call turn A → B into B → A. A refusal
 * names the element at `rootOf(child index, parent index)`.
 */
export function setDependencies (
  writer: Writer,
  project: string,
  children: readonly { feature: string; dependencies: readonly NewDependency[] }[],
  createdBy: Author,
  rootOf: (child: number, parent: number) => string = (child, parent) => `/body/${child}/dependencies/${parent}`
) {
  return withChange(writer, async (change) => {
    const current = await parentsOfFeatures(change.trx, children.map((c) => c.feature))
    for (const { feature, dependencies } of children) {
      const wanted = new Set(dependencies.map((d) => d.feature))
      for (const parent of current.get(feature) ?? []) {
        if (!wanted.has(parent.feature)) await removeDependency(change, { project, feature }, parent.feature, createdBy)
      }
    }
    for (const [c, { feature, dependencies }] of children.entries()) {
      for (const [p, dependency] of dependencies.entries()) await refusedAt(rootOf(c, p), () => addDependency(change, { project, feature }, dependency, createdBy))
    }
  })
}

/** A feature's parents and children, for its read model. */
export async function dependencyLinks (db: Database, ref: FeatureRef) {
  await requirePresent(db, ref)
  const [parents, children] = await Promise.all([parentsOf(db, ref.feature), childrenOf(db, ref.feature)])
  return { dependencies: parents.map((d) => ({ ...d, variants: d.variants ?? [] })), children }
}

/** The features `ref` may depend on (Unleash's parent options); empty for a feature that does not exist. */
export async function parentOptions (db: Database, ref: FeatureRef): Promise<string[]> {
  await requirePresent(db, { project: ref.project })
  return possibleParents(db, ref.project, ref.feature)
}

/** The variant names of a parent a dependency may ask for; empty for a feature that does not exist. */
export async function parentVariantOptions (db: Database, ref: FeatureRef): Promise<string[]> {
  await requirePresent(db, { project: ref.project })
  return parentVariantNames(db, ref.project, ref.feature)
}

/** Whether any flag of the project (archived too) depends on another; 404 for a project that does not exist. */
export async function dependenciesExist (db: Database, project: string): Promise<boolean> {
  if (await projectHasDependencies(db, project)) return true
  await requirePresent(db, { project })
  return false
}
