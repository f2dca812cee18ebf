/**
 * The reads of change requests, in Unleash's shapes: one request (with stateTimestamps), the
 * lists (without), counts, what is actionable, what is scheduled, reviewers. Conflicts are
 * told on the changes of open requests, read afresh: what a change changes, compared with what
 * it remembered.
 */
import type { Database, Queryable } from '../db/types.js'
import { notFound } from '../errors.js'
import { requirePresent } from '../features/features.store.js'
import { type Person, personMay } from '../users/roles.js'
import { OPEN_STATES, type ChangeRequestState } from '../vocabulary/change-requests.js'
import type { ChangeRequestListItem, ChangeRequestView, StoredChange, StoredRequest } from './change-requests.schemas.js'
import {
  changesOf,
  commentsOf,
  currentState,
  findRequest,
  listRequests,
  people,
  type RequestFilter,
  requestedReviewers,
  requestsTouching,
  reviewsOf,
  segmentNames,
  statesOf,
  subjectsOf,
} from './change-requests.store.js'
import { conflictOf, countStates, featureConflict, type Target, targetOf } from './change-rules.js'

/** At most this many requests in the project's list (its newest), as Unleash. */
export const LIST_LIMIT = 300

const personOf = (id: number | null, name: string) => ({ ...(id !== null && { id }), username: name })

const isOpen = (state: ChangeRequestState) => (OPEN_STATES as readonly string[]).includes(state)

const scheduleOf = (request: StoredRequest) => {
  const s = request.schedule
  if (request.state !== 'Scheduled' || s === null) return {}
  if (s.status === 'pending') return { schedule: { scheduledAt: s.scheduledAt, status: s.status } }
  const reason = s.reason ?? s.status
  return { schedule: { scheduledAt: s.scheduledAt, status: s.status, reason, ...(s.status === 'failed' && { failureReason: reason }) } }
}

/** The conflict of each change of open requests (by change id), and of each feature (by request and feature). */
async function conflicts (db: Queryable, requests: readonly StoredRequest[], changes: readonly StoredChange[]) {
  const byChange = new Map<number, string>()
  const byFeature = new Map<string, string>()
  const open = new Map(requests.filter((r) => isOpen(r.state)).map((r) => [r.id, r]))
  const environments = new Set([...open.values()].map((r) => r.environment))
  for (const environment of environments) {
    const mine = changes.filter((c) => open.get(c.requestId)?.environment === environment)
    if (mine.length === 0) continue
    const now = await currentState(db, environment, mine)
    for (const c of mine) {
      const remembered = JSON.parse(c.target) as Target
      const current = targetOf(c, now)
      const why = conflictOf(remembered, current)
      if (why !== undefined) byChange.set(c.id, why)
      const onFeature = featureConflict(remembered, current)
      if (onFeature !== undefined && c.feature !== null) byFeature.set(`${c.requestId}\u0000${c.feature}`, onFeature)
    }
  }
  return { byChange, byFeature }
}

/**
 * The requests in Unleash's shape: with every change (`full`), or their features without
 * changes (the project's list); stateTimestamps only for a request read alone.
 */
async function shape<T extends boolean> (db: Queryable, requests: readonly StoredRequest[], full: boolean, timestamps: T): Promise<(T extends true ? ChangeRequestView : ChangeRequestListItem)[]> {
  const ids = requests.map((r) => r.id)
  const changes = await changesOf(db, full ? ids : [])
  const subjects = full ? [] : await subjectsOf(db, ids)
  // Segment changes are listed in full in every list (the shape has no room for a segment without its change).
  const segmentChanges = full ? changes.filter((c) => c.segmentId !== null) : await changesOf(db, ids, true)
  const [reviews, comments, names, told] = await Promise.all([
    reviewsOf(db, ids),
    commentsOf(db, ids),
    segmentNames(db, [...new Set(segmentChanges.map((c) => c.segmentId!))]),
    conflicts(db, requests, full ? changes : segmentChanges),
  ])
  const changeView = (c: StoredChange) => ({
    id: c.id,
    action: c.action,
    ...(c.payload !== undefined && { payload: c.payload }),
    ...(told.byChange.has(c.id) && { conflict: told.byChange.get(c.id)! }),
    createdBy: personOf(c.authorId, c.authorName),
    createdAt: c.createdAt,
  })
  return requests.map((r) => {
    const features = new Map<string, StoredChange[]>()
    if (full) {
      for (const c of changes) if (c.requestId === r.id && c.feature !== null) features.set(c.feature, [...(features.get(c.feature) ?? []), c])
    } else {
      for (const s of subjects) if (s.change_request_id === r.id) features.set(s.feature_name!, [])
    }
    const review = (verdict: 'approved' | 'rejected') =>
      reviews.filter((v) => v.change_request_id === r.id && v.verdict === verdict).map((v) => ({ createdBy: personOf(v.user_id, v.user_name), createdAt: v.created_at }))
    return {
      id: r.id,
      ...(r.title !== null && { title: r.title }),
      environment: r.environment,
      minApprovals: r.minApprovals,
      project: r.project,
      features: [...features].map(([name, list]) => {
        const conflict = told.byFeature.get(`${r.id}\u0000${name}`)
        return { name, ...(conflict !== undefined && { conflict }), changes: list.map(changeView) }
      }),
      segments: segmentChanges
        .filter((c) => c.requestId === r.id)
        .map((c) => ({ ...changeView(c), payload: c.payload, name: names.get(c.segmentId!) ?? String((c.payload as { name?: unknown }).name ?? `segment ${c.segmentId}`) })),
      approvals: review('approved'),
      rejections: review('rejected'),
      comments: comments
        .filter((c) => c.change_request_id === r.id)
        .map((c) => ({ id: c.id, text: c.text, createdBy: personOf(c.user_id, c.user_name), createdAt: c.created_at })),
      createdBy: personOf(r.authorId, r.authorName),
      createdAt: r.createdAt,
      state: r.state,
      ...scheduleOf(r),
      ...(timestamps && { stateTimestamps: r.stateTimestamps }),
    } as T extends true ? ChangeRequestView : ChangeRequestListItem
  })
}

/** A request of the project, or 404 (through another project's path too). */
export async function requestIn (db: Queryable, project: string, id: number): Promise<StoredRequest> {
  const request = await findRequest(db, id)
  if (!request || request.project !== project) {
    await requirePresent(db, { project })
    throw notFound(`Change request ${id} does not exist in project ${project}`)
  }
  return request
}

/** GET …/change-requests/{id}. */
export async function requestView (db: Queryable, project: string, id: number): Promise<ChangeRequestView> {
  const [view] = await shape(db, [await requestIn(db, project, id)], true, true)
  return view!
}

const listOf = async (db: Database, filter: RequestFilter, full: boolean) => {
  const requests = await listRequests(db, filter)
  if (requests.length === 0) await requirePresent(db, { project: filter.project })
  return shape(db, requests, full, false)
}

/** GET …/change-requests: the project's newest requests (others' Drafts left out), their features without changes. */
export const projectRequests = (db: Database, project: string, viewer: number | null) => listOf(db, { project, viewer, limit: LIST_LIMIT }, false)

/** GET …/pending (and …/open): the caller's own open requests (Draft, In review, Approved, Scheduled), with their changes. */
export const pendingFor = async (db: Database, project: string, viewer: number | null) => {
  if (viewer === null) {
    await requirePresent(db, { project })
    return []
  }
  return listOf(db, { project, viewer, authorId: viewer, states: OPEN_STATES, limit: LIST_LIMIT }, true)
}

/** GET …/pending/{feature}: open requests with a change to the feature (others' Drafts left out), with their changes. */
export async function pendingForFeature (db: Database, project: string, feature: string, viewer: number | null) {
  await requirePresent(db, { project, feature })
  const ids = (await requestsTouching(db, project, OPEN_STATES, { features: [feature], strategyIds: [], variantsOf: [] })).map((r) => r.id)
  return listOf(db, { project, viewer, ids, states: OPEN_STATES, limit: LIST_LIMIT }, true)
}

/** GET …/count. */
export async function counts (db: Database, project: string) {
  await requirePresent(db, { project })
  return countStates(await statesOf(db, project))
}

/**
 * GET …/actionable: how many requests the caller can move on: In review ones of others they have
 * not approved yet (approve), Approved ones (apply), if they may write in the project.
 */
export async function actionable (db: Database, project: string, person: Person | null) {
  await requirePresent(db, { project })
  if (person === null || !personMay(person, 'editor', project)) return { total: 0 }
  const requests = await listRequests(db, { project, viewer: person.id, states: ['In review', 'Approved'], limit: 10_000 })
  const approvedBy = new Set((await reviewsOf(db, requests.map((r) => r.id))).filter((v) => v.user_id === person.id && v.verdict === 'approved').map((v) => v.change_request_id))
  const total = requests.filter((r) => r.state === 'Approved' || (r.authorId !== person.id && !approvedBy.has(r.id))).length
  return { total }
}

/** GET …/scheduled: Scheduled requests touching any of these features, strategies, features' variants (none asked: none). */
export async function scheduled (db: Database, project: string, query: { feature?: string[]; strategyId?: string[]; variantForFlag?: string[] }) {
  await requirePresent(db, { project })
  return requestsTouching(db, project, ['Scheduled'], { features: query.feature ?? [], strategyIds: query.strategyId ?? [], variantsOf: query.variantForFlag ?? [] })
}

const reviewerOf = (u: { id: number; email: string | null; username: string | null; name: string | null }) => ({ id: u.id, email: u.email ?? '', username: u.username, name: u.name })

/** GET …/{id}/approvers: the people the author asked to review. */
export async function approvers (db: Database, project: string, id: number) {
  await requestIn(db, project, id)
  return { reviewers: (await requestedReviewers(db, id)).map(reviewerOf) }
}

/** The most people a list of reviewers reads. */
const MAX_PEOPLE = 10_000

/** GET …/available-reviewers/{environment}: the people who may approve requests in the project (Admins, Editors, its Members). */
export async function availableReviewers (db: Database, project: string, environment: string) {
  await requirePresent(db, { project, environment })
  return { reviewers: (await people(db, MAX_PEOPLE)).filter((p) => personMay(p, 'editor', project)).map(reviewerOf) }
}
