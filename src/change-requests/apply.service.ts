/**
 * What a change does: the single write it stands for, called with the request's Change, never a
 * second implementation of it. Adding a change tries its write out (in a savepoint rolled back),
 * so that it is refused as the direct write would be; applying a request runs every write in
 * one transaction, all or nothing, after checking that nothing it changes has moved.
 */
import { archiveFeature, setFeatureEnabled } from '../catalog/catalog.service.js'
import { addDependency, removeDependencies, removeDependency } from '../dependencies/dependencies.service.js'
import type { NewDependency } from '../dependencies/dependencies.schemas.js'
import { ApiError, type DocumentPlaces, type ErrorDetail, invalidField, refusedAt, RuleError } from '../errors.js'
import type { Change } from '../events/events.service.js'
import type { Author } from '../events/events.schemas.js'
import { lockFeaturesByName, readFeatureEnvironment } from '../features/features.store.js'
import type { FeatureEnvironmentRef } from '../features/missing.js'
import type { UpsertSegment } from '../segments/segments.schemas.js'
import { changeSegment, removeSegment } from '../segments/segments.service.js'
import { findSegment, lockSegment } from '../segments/segments.store.js'
import type { NewStrategy, updateStrategySchema } from '../strategies/strategies.schemas.js'
import { addStrategy, patchStrategy, removeStrategy, reorderStrategies, replaceStrategy } from '../strategies/strategies.service.js'
import { listStrategies } from '../strategies/strategies.store.js'
import { STRATEGY_PLACES } from '../strategies/strategies.schemas.js'
import { replaceVariants } from '../variants/variants.service.js'
import type { Static } from '@sinclair/typebox'
import type { StoredChange, StoredRequest } from './change-requests.schemas.js'
import { currentState, releaseSavepoint, rollbackTo, savepoint } from './change-requests.store.js'
import { conflictOf, type Target, targetOf } from './change-rules.js'
import type { ChangeRules, CheckedChange } from './payloads.js'

type UpdateStrategy = Static<ReturnType<typeof updateStrategySchema>> & { id: string }

/** Where the write of each action refuses its documents, below the change's payload. */
const PLACES: DocumentPlaces = { ...STRATEGY_PLACES, variants: '/variants', segment: '' }

/** A change's place in the request (what its refusal names). */
export const describeChange = (c: Pick<CheckedChange, 'action' | 'feature' | 'segmentId'> & { id?: number }) =>
  `${c.id === undefined ? '' : `Change ${c.id} `}(${c.action} of ${c.feature === null ? `segment ${c.segmentId}` : c.feature})`

/** Runs the single write a change stands for, as one step of `change`, on behalf of `author`. */
export async function writeOne (change: Change, where: { project: string; environment: string }, c: CheckedChange, author: Author, rules: ChangeRules): Promise<void> {
  const ref: FeatureEnvironmentRef = { project: where.project, feature: c.feature ?? '', environment: where.environment }
  const feature = { project: where.project, feature: c.feature ?? '' }
  const conditions = { ifMatch: undefined, createdBy: author }
  switch (c.action) {
    case 'updateEnabled': {
      const { enabled, shouldActivateDisabledStrategies } = c.payload as { enabled: boolean; shouldActivateDisabledStrategies?: boolean }
      if (enabled && shouldActivateDisabledStrategies === true) {
        const strategies = (await listStrategies(change.trx, ref)).map((s) => s.strategy)
        if (!strategies.some((s) => !s.disabled)) {
          for (const s of strategies) await patchStrategy(change, ref, s.id, [{ op: 'replace', path: '/disabled', value: false }], rules.strategies, conditions)
        }
      }
      await setFeatureEnabled(change, ref, enabled, author)
      return
    }
    case 'addStrategy':
      await addStrategy(change, ref, c.payload as NewStrategy, rules.strategies, author)
      return
    case 'updateStrategy': {
      const { id, ...body } = c.payload as UpdateStrategy
      await replaceStrategy(change, ref, id, body, rules.strategies, conditions)
      return
    }
    case 'deleteStrategy':
      await removeStrategy(change, ref, (c.payload as { id: string }).id, conditions)
      return
    case 'reorderStrategy':
      await reorderStrategies(change, ref, c.payload as { id: string; sortOrder: number }[], author)
      return
    case 'patchVariant':
      await replaceVariants(change, ref, (c.payload as { variants: unknown }).variants, rules.variants, { ...conditions, dryRun: false })
      return
    case 'archiveFeature':
      await archiveFeature(change, feature, author)
      return
    case 'addDependency':
      await addDependency(change, feature, c.payload as NewDependency, author)
      return
    case 'deleteDependency': {
      const parent = (c.payload as { feature?: string } | undefined)?.feature
      await (parent === undefined ? removeDependencies(change, feature, author) : removeDependency(change, feature, parent, author))
      return
    }
    case 'updateSegment':
      await changeSegment(change, c.segmentId!, c.payload as UpsertSegment & { id: number }, rules.segments, author)
      return
    case 'deleteSegment':
      await removeSegment(change, c.segmentId!, author)
  }
}

/** Only a project's own segments are changed through its change requests; others are changed directly. */
async function requireProjectSegment (change: Change, project: string, id: number, at: string) {
  const segment = await findSegment(change.trx, id)
  if (!segment) throw invalidField(at, `names no segment: ${id}`)
  if (segment.project === null) throw invalidField(at, `names segment ${segment.name}, which belongs to no project: change it directly (only a project's segments go through its change requests)`)
  if (segment.project !== project) throw invalidField(at, `names segment ${segment.name} of project ${segment.project}, not of ${project}`)
}

let trials = 0

/**
 * The change's write tried out in `change`'s transaction and undone (a savepoint rolled back,
 * its events dropped): refused as the direct write refuses it, placed at `root`
 * (`/body/2`): a feature missing or archived at `<root>/feature`, the write's own refusals of its
 * body below `<root>/payload`. Returns the target the change remembers: what it changes, as
 * it is now.
 */
export async function tryOut (change: Change, where: { project: string; environment: string }, c: CheckedChange, author: Author, rules: ChangeRules, root: string): Promise<Target> {
  if (c.feature !== null) await refusedAt(`${root}/feature`, () => readFeatureEnvironment(change.trx, { ...where, feature: c.feature! }))
  if (c.segmentId !== null) await requireProjectSegment(change, where.project, c.segmentId, `${root}/payload/id`)
  const target = targetOf(c, await currentState(change.trx, where.environment, [c]))
  const name = `trial_${++trials}`
  await savepoint(change.trx, name)
  try {
    await refusedAt(`${root}/payload`, () => writeOne({ trx: change.trx, record: () => {} }, where, c, author, rules), PLACES)
  } finally {
    await rollbackTo(change.trx, name)
    await releaseSavepoint(change.trx, name)
  }
  return target
}

/** The conflicts of a request's changes: each change that cannot be applied as reviewed, and why. */
export async function conflictsOf (change: Change, request: StoredRequest, changes: readonly StoredChange[]) {
  const now = await currentState(change.trx, request.environment, changes)
  return changes.flatMap((c) => {
    const why = conflictOf(JSON.parse(c.target) as Target, targetOf(c, now))
    return why === undefined ? [] : [{ change: c, why }]
  })
}

/**
 * Why a request was not applied (409): what its changes change moved since they were added
 * (`moved`: a schedule is then suspended), or a write refused (a schedule then fails).
 */
export class ApplyRefusal extends ApiError {
  constructor (readonly moved: boolean, request: StoredRequest, details: [ErrorDetail, ...ErrorDetail[]]) {
    super('ChangeRequestConflictError', `Change request ${request.id} cannot be applied: ${details[0].message}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}; nothing was applied`, details)
  }
}

/**
 * Applies every change of the request, in the order they were added, as one step of `change`
 * (the caller records the request's own state and event). The features they change are locked
 * first, in name order, then their segments; a change whose target moved since it was added or
 * edited (see conflictOf) is a 409 naming each conflict, and so is a write that refuses
 * (its sentence, after the change it belongs to): then nothing is applied. The writes' events
 * carry the request and both its author and `applier`.
 */
export async function applyChanges (change: Change, request: StoredRequest, changes: readonly StoredChange[], applier: Author, rules: ChangeRules) {
  await lockFeaturesByName(change.trx, [...new Set(changes.flatMap((c) => (c.feature === null ? [] : [c.feature])))])
  for (const id of [...new Set(changes.flatMap((c) => (c.segmentId === null ? [] : [c.segmentId])))].sort((a, b) => a - b)) await lockSegment(change.trx, id)
  const conflicts = await conflictsOf(change, request, changes)
  if (conflicts.length > 0) {
    const [first, ...rest] = conflicts.map(({ change: c, why }) => ({ message: `${describeChange(c)}: ${why}` }))
    throw new ApplyRefusal(true, request, [first!, ...rest])
  }
  const author: Author = { ...applier, changeRequest: { id: request.id, author: request.authorName } }
  for (const c of changes) {
    try {
      await writeOne(change, request, c, author, rules)
    } catch (error) {
      const refusal = error instanceof RuleError ? error.toApiError('') : error
      if (!(refusal instanceof ApiError) || refusal.status >= 500) throw error
      throw new ApplyRefusal(false, request, [{ message: `${describeChange(c)}: ${refusal.message}` }])
    }
  }
}
