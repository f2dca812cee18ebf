import type { Static } from '@sinclair/typebox'
import { ALL, type TokenScope } from '../access/scope.js'
import type { Database } from '../db/types.js'
import { ApiError, invalidField, notFound } from '../errors.js'
import { dependencyLinks } from '../dependencies/dependencies.service.js'
import { childrenOf } from '../dependencies/dependencies.store.js'
import { readerOf, withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { currentStage, currentStagesOfProject } from '../lifecycle/lifecycle.store.js'
import { transition } from '../lifecycle/lifecycle.service.js'
import { addDefaultStrategyIfNone } from '../strategies/strategies.service.js'
import { strategiesOfFeature } from '../strategies/strategies.store.js'
import { tagsOfProject } from '../tags/tags.store.js'
import type { FeatureUpdate, NewFeature } from './catalog.schemas.js'
import {
  findFeature,
  findFeatureRow,
  insertFeature,
  listFeatures,
  listFeatureStates,
  setArchived,
  updateFeature,
} from './catalog.store.js'
import { switchEnvironment } from '../features/features.service.js'
import { lockFeature, lockFeatureEnvironment, lockFeatures, requirePresent } from '../features/features.store.js'
import type { FeatureEnvironmentRef, FeatureRef } from '../features/missing.js'

/** Creates a feature: its feature-environments (off, no variants), the stage initial, feature-created. */
export async function createFeature (writer: Writer, project: string, body: Static<typeof NewFeature>, createdBy: Author) {
  await requirePresent(readerOf(writer), { project })
  return withChange(writer, async (change) => {
    const created = await insertFeature(change.trx, project, body)
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

/**
 * The features of a project that are not archived, each with whether it is on in the
 * environments the token may see and its current lifecycle stage: what a list screen filters on.
 */
export async function features (db: Database, project: string, token: TokenScope) {
  const list = await listFeatures(db, project)
  if (list.length === 0) await requirePresent(db, { project })
  const states = await listFeatureStates(db, project, token)
  const stages = await currentStagesOfProject(db, project)
  const tags = await tagsOfProject(db, project)
  // A feature created between the statements has no stage or states yet: it shows as just created.
  return list.map((f) => ({
    ...f,
    environments: states.get(f.name) ?? [],
    lifecycle: stages.get(f.name) ?? { stage: 'initial' as const, enteredStageAt: f.createdAt },
    tags: tags.get(f.name) ?? [],
  }))
}

/** A feature with its current lifecycle stage and the environments the token may see. */
export async function featureDetails (db: Database, ref: FeatureRef, token: TokenScope) {
  const found = await findFeature(db, ref.project, ref.feature, token)
  if (!found) {
    await requirePresent(db, ref)
    throw notFound(`Feature ${ref.feature} does not exist in project ${ref.project}`)
  }
  const strategies = await strategiesOfFeature(db, ref.feature, token.environments.includes(ALL) ? undefined : token.environments)
  return {
    ...found,
    ...(await dependencyLinks(db, ref)),
    lifecycle: await currentStage(db, ref.feature),
    environments: found.environments.map((e) => ({ ...e, strategies: strategies.get(e.name) ?? [] })),
  }
}

/**
 * Switches a feature on or off in one environment. Switching to the state it is in changes
 * nothing and records no event. Switched on with no active strategy, it gets a flexibleRollout
 * at 100 % first (feature-strategy-add), as Unleash does.
 */
export function setFeatureEnabled (writer: Writer, ref: FeatureEnvironmentRef, enabled: boolean, createdBy: Author) {
  return withChange(writer, async (change) => {
    const state = await lockFeatureEnvironment(change.trx, ref)
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

/**
 * Changes a feature's description, type and impressionData (feature-metadata-updated with data
 * and preData); a feature cannot be renamed. The same values again change nothing.
 */
export async function updateFeatureMetadata (writer: Writer, ref: FeatureRef, body: Static<typeof FeatureUpdate>, createdBy: Author) {
  if (body.name !== undefined && body.name !== ref.feature) throw invalidField('/body/name', `must be ${ref.feature}, the name in the path: a feature cannot be renamed`)
  return withChange(writer, async ({ trx, record }) => {
    await lockFeature(trx, ref, true)
    const before = await findFeatureRow(trx, ref.project, ref.feature)
    if (!before) throw notFound(`Feature ${ref.feature} does not exist in project ${ref.project}`)
    const after = await updateFeature(trx, ref.feature, {
      description: body.description === undefined ? before.description : body.description,
      type: body.type ?? before.type,
      impressionData: body.impressionData ?? before.impressionData,
    })
    const data = (f: typeof after) => toJsonText({ name: f.name, description: f.description, type: f.type, impressionData: f.impressionData })
    if (data(after) !== data(before)) {
      record({ type: 'feature-metadata-updated', createdBy, project: ref.project, featureName: ref.feature, data: data(after), preData: data(before) })
    }
    return after
  })
}

/** Revives features of a project, all or none: each archived one records feature-revived. */
export function reviveFeatures (writer: Writer, project: string, names: readonly string[], createdBy: Author) {
  return withChange(writer, async (change) => {
    for (const { name, archived } of await lockFeatures(change.trx, project, names)) {
      if (!archived) continue
      await setArchived(change.trx, name, false)
      await transition(change, { project, feature: name }, { kind: 'revive' }, createdBy)
      change.record({ type: 'feature-revived', createdBy, project, featureName: name })
    }
  })
}
