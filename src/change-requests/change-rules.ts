/**
 * The rules of change requests, as plain functions: which state change a person may make
 * (the state machine), which change in a request a new one replaces, and whether what a change
 * changes has moved since it was added (a conflict). No Fastify, no Kysely.
 */
import { ApiError, badData, permissionDenied } from '../errors.js'
import type { ChangeAction, ChangeRequestState } from '../vocabulary/change-requests.js'

/** What the state machine reads of a request. */
export interface RequestFacts {
  id: number
  state: ChangeRequestState
  /** The author's user id (null when their account was deleted). */
  authorId: number | null
  changes: number
  minApprovals: number
  /** The people who approved it (since its last edit). */
  approvers: readonly number[]
}

/** Who asks for the state change. */
export interface Actor {
  userId: number
  /** An Admin may cancel any person's request. */
  admin: boolean
}

export type StateWish =
  | { state: Exclude<ChangeRequestState, 'Scheduled'>; comment?: string }
  | { state: 'Scheduled'; scheduledAt: Date; comment?: string }

export type Decision =
  /** The request is in that state already (an approval given twice): nothing changes. */
  | { kind: 'none' }
  | { kind: 'send-to-review' }
  /** An approval; `completes` when it is the last one needed (the request becomes Approved). */
  | { kind: 'approve'; completes: boolean }
  | { kind: 'reject' }
  | { kind: 'cancel' }
  | { kind: 'apply' }
  | { kind: 'schedule'; scheduledAt: Date; reschedule: boolean }

const stateError = (message: string) => new ApiError('ChangeRequestStateError', message)

const CLOSED: readonly ChangeRequestState[] = ['Applied', 'Cancelled', 'Rejected']

/**
 * The one rule of state changes (PUT …/state), checked in this order: a closed request
 * (Applied, Cancelled, Rejected) changes no more (409); then each wish:
 * - In review: the author sends a Draft with at least one change;
 * - Approved: a person other than the author (403 for the author) approves a request In review
 *   (or Approved, adding an approval) that has changes; it becomes Approved with its
 *   minApprovals-th approval;
 * - Rejected: a person other than the author (who cancels instead: 403) rejects a request In
 *   review, Approved or Scheduled;
 * - Cancelled: the author, or an Admin, withdraws an open request;
 * - Applied: anyone who may write applies an Approved or Scheduled request (the author too);
 * - Scheduled: anyone who may write schedules an Approved request, or reschedules a Scheduled
 *   one, at a time still to come (400 otherwise);
 * - Draft: only where it is already (a request never goes back to Draft).
 * Wishing the state a request is in changes nothing, but for Scheduled (a new time).
 */
export function decide (request: RequestFacts, wish: StateWish, actor: Actor, now: Date): Decision {
  const { state, id } = request
  const isAuthor = request.authorId === actor.userId
  if (CLOSED.includes(state)) {
    if (state === wish.state) return { kind: 'none' }
    throw stateError(`Change request ${id} is ${state}: it cannot change any more`)
  }
  switch (wish.state) {
    case 'Draft':
      if (state === 'Draft') return { kind: 'none' }
      throw stateError(`Change request ${id} is ${state}: a request never goes back to Draft`)
    case 'In review':
      if (state === 'In review') return { kind: 'none' }
      if (state !== 'Draft') throw stateError(`Change request ${id} is ${state}: only a Draft is sent to review`)
      if (!isAuthor) throw permissionDenied(`Only the author of change request ${id} may send it to review`)
      if (request.changes === 0) throw stateError(`Change request ${id} has no changes: add one before sending it to review`)
      return { kind: 'send-to-review' }
    case 'Approved': {
      if (state !== 'In review' && state !== 'Approved') {
        throw stateError(`Change request ${id} is ${state}: only a request In review is approved`)
      }
      if (isAuthor) throw permissionDenied(`The author of change request ${id} may not approve it: another person must`)
      if (request.approvers.includes(actor.userId)) return { kind: 'none' }
      if (request.changes === 0) throw stateError(`Change request ${id} has no changes to approve`)
      return { kind: 'approve', completes: state === 'In review' && request.approvers.length + 1 >= request.minApprovals }
    }
    case 'Rejected':
      if (state === 'Draft') throw stateError(`Change request ${id} is a Draft: only a request sent to review is rejected`)
      if (isAuthor) throw permissionDenied(`The author of change request ${id} may not reject it: cancel it instead`)
      return { kind: 'reject' }
    case 'Cancelled':
      if (!isAuthor && !actor.admin) throw permissionDenied(`Only the author of change request ${id}, or an Admin, may cancel it`)
      return { kind: 'cancel' }
    case 'Applied':
      if (state !== 'Approved' && state !== 'Scheduled') throw stateError(`Change request ${id} is ${state}: it must be Approved to be applied`)
      return { kind: 'apply' }
    case 'Scheduled':
      if (state !== 'Approved' && state !== 'Scheduled') throw stateError(`Change request ${id} is ${state}: it must be Approved to be scheduled`)
      if (wish.scheduledAt.getTime() <= now.getTime()) {
        throw badData(`/body/scheduledAt must be in the future (it is ${wish.scheduledAt.toISOString()}; now is ${now.toISOString()})`, [
          { path: '/body/scheduledAt', message: '/body/scheduledAt must be in the future' },
        ])
      }
      return { kind: 'schedule', scheduledAt: wish.scheduledAt, reschedule: state === 'Scheduled' }
  }
}

/** The state an edit (a change added, edited or discarded) leaves a request in: an Approved one goes back to In review. */
export function stateAfterEdit (state: ChangeRequestState, id: number): ChangeRequestState {
  if (state === 'Draft' || state === 'In review' || state === 'Approved') return state === 'Approved' ? 'In review' : state
  throw stateError(`Change request ${id} is ${state}: its changes can no longer be edited${state === 'Scheduled' ? ' (reject it, or let it apply)' : ''}`)
}

/** What a change names besides its action. */
export interface ChangeSubject {
  action: ChangeAction
  feature: string | null
  segmentId: number | null
  payload: unknown
}

const member = (payload: unknown, name: string): unknown =>
  typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>)[name] : undefined

/**
 * The change a new one replaces in the same request: the same switch, variants, order,
 * archive of a feature; the same strategy (updated or deleted); the same dependency; the same
 * segment. A new strategy never replaces anything. Undefined: it replaces nothing.
 */
export function replacementKey (change: ChangeSubject): string | undefined {
  const f = change.feature
  switch (change.action) {
    case 'addStrategy':
      return undefined
    case 'updateStrategy':
    case 'deleteStrategy':
      return `${f}\u0000strategy\u0000${String(member(change.payload, 'id'))}`
    case 'addDependency':
      return `${f}\u0000dependency\u0000${String(member(change.payload, 'feature'))}`
    case 'deleteDependency': {
      const parent = member(change.payload, 'feature')
      return parent === undefined ? `${f}\u0000dependencies` : `${f}\u0000dependency\u0000${String(parent)}`
    }
    case 'updateSegment':
    case 'deleteSegment':
      return `segment\u0000${change.segmentId}`
    default:
      return `${f}\u0000${change.action}`
  }
}

/**
 * The version of what a change changes, kept with it when it is added or edited and read
 * again to tell a conflict: whether its feature is there and archived; the revision of the
 * strategy it updates or deletes (null: gone); the revision of the variants it replaces; the
 * strategies a reorder names that are still there; the segment as stored (null: gone).
 */
export interface Target {
  feature?: { archived: boolean } | null
  strategy?: number | null
  variants?: number | null
  strategies?: string[]
  segment?: string | null
}

/** What the database holds now, read for a batch of changes of one environment. */
export interface CurrentState {
  features: ReadonlyMap<string, { archived: boolean }>
  /** Strategy id → its revision, for strategies of the environment (and the feature the change names). */
  strategies: ReadonlyMap<string, { feature: string; revision: number }>
  /** Feature → the revision of its variants in the environment. */
  variants: ReadonlyMap<string, number>
  /** Segment id → a fingerprint of the segment as stored. */
  segments: ReadonlyMap<number, string>
}

/** The target of a change as the database now holds it. */
export function targetOf (change: ChangeSubject, now: CurrentState): Target {
  if (change.segmentId !== null) return { segment: now.segments.get(change.segmentId) ?? null }
  const feature = change.feature ?? ''
  const target: Target = { feature: now.features.get(feature) ?? null }
  const strategyRevision = (id: unknown) => {
    const found = typeof id === 'string' ? now.strategies.get(id) : undefined
    return found && found.feature === feature ? found.revision : null
  }
  switch (change.action) {
    case 'updateStrategy':
    case 'deleteStrategy':
      target.strategy = strategyRevision(member(change.payload, 'id'))
      break
    case 'patchVariant':
      target.variants = now.variants.get(feature) ?? null
      break
    case 'reorderStrategy':
      target.strategies = (Array.isArray(change.payload) ? change.payload : [])
        .map((entry) => member(entry, 'id'))
        .filter((id): id is string => strategyRevision(id) !== null)
      break
  }
  return target
}

/** A feature archived or gone since: told on the feature (and on each of its changes). */
export function featureConflict (remembered: Target, current: Target): string | undefined {
  if (remembered.feature === undefined) return undefined
  if (current.feature === null || current.feature === undefined) return 'Feature has been deleted'
  if (current.feature.archived && remembered.feature?.archived !== true) return 'Feature has been archived'
  return undefined
}

/**
 * Why a change cannot be applied as it was reviewed, or undefined: its feature archived or
 * deleted, its strategy updated or deleted, the variants updated, a strategy it reorders
 * deleted, its segment updated or deleted since it was added or last edited.
 */
export function conflictOf (remembered: Target, current: Target): string | undefined {
  const onFeature = featureConflict(remembered, current)
  if (onFeature) return onFeature
  if (remembered.strategy !== undefined) {
    if (current.strategy === null || current.strategy === undefined) return 'Strategy has been deleted'
    if (current.strategy !== remembered.strategy) return 'Strategy has been updated since this change was added'
  }
  if (remembered.variants !== undefined && current.variants !== remembered.variants) {
    return 'Variants have been updated since this change was added'
  }
  if (remembered.strategies !== undefined) {
    const gone = remembered.strategies.filter((id) => !(current.strategies ?? []).includes(id))
    if (gone.length > 0) return `Strategy ${gone[0]} has been deleted`
  }
  if (remembered.segment !== undefined) {
    if (current.segment === null || current.segment === undefined) return 'Segment has been deleted'
    if (current.segment !== remembered.segment) return 'Segment has been updated since this change was added'
  }
  return undefined
}

/** The counts of GET …/change-requests/count, from the states of a project's requests (Drafts are not counted). */
export function countStates (states: readonly ChangeRequestState[]) {
  const count = (state: ChangeRequestState) => states.filter((s) => s === state).length
  return {
    total: states.filter((s) => s !== 'Draft').length,
    applied: count('Applied'),
    rejected: count('Rejected'),
    reviewRequired: count('In review'),
    approved: count('Approved'),
    scheduled: count('Scheduled'),
  }
}

/** Required approvals as Unleash takes them: clamped into 1–10; absent: 1. */
export const clampApprovals = (requested: number | undefined) => Math.min(10, Math.max(1, requested ?? 1))
