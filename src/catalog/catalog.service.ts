import type { Static } from '@sinclair/typebox'
import { ALL, type TokenScope } from '../access/scope.js'
import type { Database } from '../db/types.js'
import { ApiError, invalidField, nameExists, notFound } from '../errors.js'
import { dependencyLinks } from '../dependencies/dependencies.service.js'
import { childrenOf } from '../dependencies/dependencies.store.js'
import { type Change, readerOf, withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { currentStage, currentStagesOfProject } from '../lifecycle/lifecycle.store.js'
import { transition } from '../lifecycle/lifecycle.service.js'
import { addDefaultStrategyIfNone, patchStrategy, type StrategyRules } from '../strategies/strategies.service.js'
import { strategiesOfFeature } from '../strategies/strategies.store.js'
import { tagsOfProject } from '../tags/tags.store.js'
import { favoriteFeaturesAmong } from '../favourites/favourites.store.js'
import { linksOf } from '../feature-links/feature-links.store.js'
import { listStrategies } from '../strategies/strategies.store.js'
import type { PatchOperation } from '../variants/variants.schemas.js'
import type { FeatureUpdate, NewFeature } from './catalog.schemas.js'
import {
  environmentSortOrders,
  featureNamed,
  findFeature,
  findFeatureRow,
  insertFeature,
  listFeatureEnvironments,
  listFeatures,
  setArchived,
  updateFeature,
} from './catalog.store.js'
import { type FeatureDocument, patchFeatureDocument } from './feature-patch.js'
import { switchEnvironment } from '../features/features.service.js'
import { enabledEnvironments, lockFeature, lockFeatureEnvironment, lockFeatures, requirePresent } from '../features/features.store.js'
import type { FeatureEnvironmentRef, FeatureRef } from '../features/missing.js'

/** Creates a feature: its feature-environments (off, no variants), the stage initial, feature-created. */
export async function createFeature (writer: Writer, project: string, body: Static<typeof NewFeature>, createdBy: Author) {
  await requirePresent(readerOf(writer), { project })
  return withChange(writer, async (change) => {
    const created = await insertFeature(change.trx, project, body, createdBy.userId ?? null)
    await transition(change, { project, feature: created.name }, { kind: 'created' }, createdBy)
    change.record({
      type: 'feature-created',
      createdBy,
      project,
      featureName: created.name,
      data: toJsonText({ name: created.name, description: created.description, type: created.type, impressionData: created.impressionData }),
    })
    return created
  })
}

/** Who reads, for what depends on them: the person's id (favourites), none for an API token. */
export interface Reader {
  token: TokenScope
  userId: number | undefined
}

/**
 * The features of a project that are not archived, in Unleash's shape: each in the environments
 * the token may see (on or off, variants, strategies, last seen), its tags, whether it is one of
 * the person's favourites, and (`withLifecycle`) its current lifecycle stage.
 */
export async function features (db: Database, project: string, { token, userId }: Reader, withLifecycle = false) {
  const list = await listFeatures(db, project)
  if (list.length === 0) await requirePresent(db, { project })
  const [environments, stages, tags, favorites, order] = await Promise.all([
    listFeatureEnvironments(db, project, token),
    withLifecycle ? currentStagesOfProject(db, project) : undefined,
    tagsOfProject(db, project),
    userId === undefined ? new Set<string>() : favoriteFeaturesAmong(db, userId, list.map((f) => f.name)),
    environmentOrder(db),
  ])
  // A feature created between the statements has no stage or environments yet: it shows as just created.
  return list.map((f) => ({
    name: f.name,
    type: f.type,
    description: f.description,
    stale: f.stale,
    favorite: favorites.has(f.name),
    impressionData: f.impressionData,
    createdAt: f.createdAt,
    environments: (environments.get(f.name) ?? []).map((e) => ({ ...e, sortOrder: order(e.name) })),
    tags: tags.get(f.name) ?? [],
    ...(stages && { lifecycle: stages.get(f.name) ?? { stage: 'initial' as const, enteredStageAt: f.createdAt } }),
  }))
}

/** An environment's place in lists: its sortOrder (PUT /api/admin/environments/sort-order). */
async function environmentOrder (db: Database) {
  const order = await environmentSortOrders(db)
  return (name: string) => order.get(name) ?? 0
}

/** A feature with its current lifecycle stage, the environments the token may see, its links, and whether it is the person's favourite. */
export async function featureDetails (db: Database, ref: FeatureRef, { token, userId }: Reader) {
  const found = await findFeature(db, ref.project, ref.feature, token)
  if (!found) {
    await requirePresent(db, ref)
    throw notFound(`Feature ${ref.feature} does not exist in project ${ref.project}`)
  }
  const strategies = await strategiesOfFeature(db, ref.feature, token.environments.includes(ALL) ? undefined : token.environments)
  const favorite = userId !== undefined && (await favoriteFeaturesAmong(db, userId, [ref.feature])).has(ref.feature)
  return {
    ...found,
    ...(await dependencyLinks(db, ref)),
    lifecycle: await currentStage(db, ref.feature),
    environments: found.environments.map((e) => ({ ...e, strategies: strategies.get(e.name) ?? [] })),
    favorite,
    links: await linksOf(db, ref.feature),
  }
}

/** A feature (archived ones too) in one environment of its project: on or off, variants, strategies, when SDKs last evaluated it there. */
export async function featureInEnvironment (db: Database, ref: FeatureEnvironmentRef) {
  await requirePresent(db, ref)
  const all: TokenScope = { name: '', type: 'admin', projects: [ALL], environments: [ref.environment] }
  const [summary] = (await listFeatureEnvironments(db, ref.project, all, ref.feature)).get(ref.feature) ?? []
  const found = await findFeature(db, ref.project, ref.feature, all)
  const state = found?.environments[0]
  if (!summary || !state) throw notFound(`Feature ${ref.feature} has no environment ${ref.environment}`)
  return {
    name: ref.feature,
    featureName: ref.feature,
    environment: ref.environment,
    type: summary.type,
    enabled: state.enabled,
    variantCount: state.variants.length,
    variants: state.variants,
    strategies: (await listStrategies(db, ref)).map((s) => s.strategy),
    lastSeenAt: summary.lastSeenAt,
  }
}

/** 200 when a feature could be created with this name; 409 when one has it (archived or not), as Unleash says it. */
export async function checkFeatureName (db: Database, name: string) {
  const found = await featureNamed(db, name)
  if (found) throw nameExists(found.archived ? 'An archived flag with that name already exists' : 'A flag with that name already exists')
}

/**
 * Switches a feature on or off in one environment. Switching to the state it is in changes
 * nothing and records no event. Switched on with no active strategy, it gets a flexibleRollout
 * at 100 % first (feature-strategy-add), as Unleash does; with `activate` (Unleash's
 * shouldActivateDisabledStrategies), switching on first enables its disabled strategies.
 */
export function setFeatureEnabled (writer: Writer, ref: FeatureEnvironmentRef, enabled: boolean, createdBy: Author, activate?: StrategyRules) {
  return withChange(writer, async (change) => {
    const state = await lockFeatureEnvironment(change.trx, ref)
    if (enabled && activate) await activateStrategies(change, ref, activate, createdBy)
    if (state.enabled === enabled) return
    if (enabled) await addDefaultStrategyIfNone(change, ref, createdBy)
    await switchEnvironment(change, ref, enabled, createdBy)
  })
}

/**
 * Archives a feature (stage archived, feature-archived); archiving an archived feature changes
 * nothing. A feature that live features depend on cannot be archived (409 naming them).
 */
export function archiveFeature (writer: Writer, ref: FeatureRef, createdBy: Author) {
  return withChange(writer, async (change) => {
    if (await lockFeature(change.trx, ref, true)) return
    const children = await childrenOf(change.trx, ref.feature, true)
    if (children.length > 0) {
      throw new ApiError('InUseError', `Feature ${ref.feature} cannot be archived: ${children.join(', ')} depend on it (remove their dependencies first)`)
    }
    await setArchived(change.trx, ref.feature, true)
    await transition(change, ref, { kind: 'archive' }, createdBy)
    change.record({ type: 'feature-archived', createdBy, project: ref.project, featureName: ref.feature })
  })
}

/** Its disabled strategies become active, each as a strategy PATCH of /disabled does it (feature-strategy-update). */
async function activateStrategies (change: Change, ref: FeatureEnvironmentRef, rules: StrategyRules, createdBy: Author) {
  for (const { strategy } of await listStrategies(change.trx, ref)) {
    if (strategy.disabled) await patchStrategy(change, ref, strategy.id, [{ op: 'replace', path: '/disabled', value: false }], rules, { ifMatch: undefined, createdBy })
  }
}

type Metadata = Omit<FeatureDocument, 'name' | 'project'>

/**
 * Writes a feature's metadata (the caller holds the feature's lock and read `before`):
 * feature-metadata-updated with data and preData when its description, type or impressionData
 * change, feature-stale-on or -off when stale does (as Unleash); the same values change nothing.
 */
async function writeMetadata (change: Change, ref: FeatureRef, before: Awaited<ReturnType<typeof updateFeature>>, next: Metadata, createdBy: Author) {
  const data = (f: Metadata) => toJsonText({ name: ref.feature, description: f.description, type: f.type, impressionData: f.impressionData })
  if (data(next) === data(before) && next.stale === before.stale) return before
  const after = await updateFeature(change.trx, ref.feature, next)
  if (data(after) !== data(before)) {
    change.record({ type: 'feature-metadata-updated', createdBy, project: ref.project, featureName: ref.feature, data: data(after), preData: data(before) })
  }
  if (after.stale !== before.stale) change.record({ type: after.stale ? 'feature-stale-on' : 'feature-stale-off', createdBy, project: ref.project, featureName: ref.feature })
  return after
}

/** The feature of the path, locked (archived ones too: their metadata may change). */
async function lockedFeature (trx: Change['trx'], ref: FeatureRef) {
  await lockFeature(trx, ref, true)
  const before = await findFeatureRow(trx, ref.project, ref.feature)
  if (!before) throw notFound(`Feature ${ref.feature} does not exist in project ${ref.project}`)
  return before
}

/**
 * Changes a feature's description, type and impressionData (feature-metadata-updated with data
 * and preData); a feature cannot be renamed. The same values again change nothing.
 */
export async function updateFeatureMetadata (writer: Writer, ref: FeatureRef, body: Static<typeof FeatureUpdate>, createdBy: Author) {
  if (body.name !== undefined && body.name !== ref.feature) throw invalidField('/body/name', `must be ${ref.feature}, the name in the path: a feature cannot be renamed`)
  return withChange(writer, async (change) => {
    const before = await lockedFeature(change.trx, ref)
    return writeMetadata(change, ref, before, {
      description: body.description === undefined ? before.description : body.description,
      type: body.type ?? before.type,
      stale: before.stale,
      impressionData: body.impressionData ?? before.impressionData,
    }, createdBy)
  })
}

/**
 * RFC 6902 operations on a feature's metadata (description, type, stale, impressionData), all
 * or nothing (patchFeatureDocument); written as updateFeatureMetadata writes, with
 * feature-stale-on or -off when stale changes.
 */
export function patchFeature (writer: Writer, ref: FeatureRef, operations: readonly PatchOperation[], createdBy: Author) {
  return withChange(writer, async (change) => {
    const before = await lockedFeature(change.trx, ref)
    const { name: _name, project: _project, ...next } = patchFeatureDocument(
      { name: before.name, project: before.project, description: before.description, type: before.type, stale: before.stale, impressionData: before.impressionData },
      operations
    )
    return writeMetadata(change, ref, before, next, createdBy)
  })
}

/** Marks a feature stale or not (feature-stale-on or -off); the same value again changes nothing. */
export function setFeatureStale (writer: Writer, ref: FeatureRef, stale: boolean, createdBy: Author) {
  return withChange(writer, async (change) => {
    const before = await lockedFeature(change.trx, ref)
    return writeMetadata(change, ref, before, { description: before.description, type: before.type, stale, impressionData: before.impressionData }, createdBy)
  })
}

/**
 * Switches several features of a project on or off in one environment, all or none: each as
 * setFeatureEnabled switches one (its rules and events), locked first in name order; 404 naming
 * the first that is not in the project, 409 for an archived one.
 */
export function setFeaturesEnabled (writer: Writer, project: string, environment: string, names: readonly string[], enabled: boolean, createdBy: Author, activate?: StrategyRules) {
  return withChange(writer, async (change) => {
    const locked = await lockFeatures(change.trx, project, names)
    if (locked.length === 0) await requirePresent(change.trx, { project, environment })
    for (const { name } of locked) await setFeatureEnabled(change, { project, feature: name, environment }, enabled, createdBy, activate)
  })
}

/**
 * Revives features of a project, all or none: each archived one records feature-revived and,
 * as Unleash, is switched off in every environment where it was on (feature-environment-disabled
 * each); one that is not archived is left alone.
 */
export function reviveFeatures (writer: Writer, project: string, names: readonly string[], createdBy: Author) {
  return withChange(writer, async (change) => {
    for (const { name, archived } of await lockFeatures(change.trx, project, names)) {
      if (!archived) continue
      await setArchived(change.trx, name, false)
      await transition(change, { project, feature: name }, { kind: 'revive' }, createdBy)
      change.record({ type: 'feature-revived', createdBy, project, featureName: name })
      for (const environment of await enabledEnvironments(change.trx, name)) await switchEnvironment(change, { project, feature: name, environment }, false, createdBy)
    }
  })
}
