/**
 * The writes of change requests: a person's changes go into their open request for the
 * environment (made when there is none), each refused as the direct write would refuse it;
 * only the author edits, discards or deletes; the state moves as `decide` allows, and an
 * approved request is applied through the same single writes the API uses, all or nothing.
 * Every step records its event (Unleash's names) with the project and `data.changeRequestId`.
 */
import type { Database } from '../db/types.js'
import { ApiError, badData, invalidField, permissionDenied } from '../errors.js'
import { type Change, writeChange } from '../events/events.service.js'
import { type Author, type EventType, toJsonText } from '../events/events.schemas.js'
import { requirePresent } from '../features/features.store.js'
import { authorName, type Person, personMay } from '../users/roles.js'
import { MAX_CHANGES_PER_REQUEST, type ChangeRequestState } from '../vocabulary/change-requests.js'
import { applyChanges, tryOut } from './apply.service.js'
import type { NewChange, StoredChange, StoredRequest } from './change-requests.schemas.js'
import {
  changesOf,
  clearApprovals,
  deleteChanges,
  deleteRequest,
  findSetting,
  insertChange,
  insertComment,
  insertDraft,
  insertReview,
  lockOpenRequest,
  lockRequest,
  people,
  reviewsOf,
  setRequestedReviewers,
  requestedReviewers,
  updateRequest,
} from './change-requests.store.js'
import { decide, replacementKey, type StateWish, stateAfterEdit } from './change-rules.js'
import { type ChangeRules, type CheckedChange, checkChange } from './payloads.js'
import { requestView } from './views.service.js'

export interface ChangeRequestContext {
  db: Database
  rules: ChangeRules
  /** A request was scheduled on this instance: the scheduler looks at once. */
  scheduled: () => void
}

const authorOf = (person: Person): Author => ({ name: authorName(person), userId: person.id })

/** An event of a request: its project and environment, `data.changeRequestId` and more. */
export const requestEvent = (type: EventType, request: Pick<StoredRequest, 'id' | 'project' | 'environment'>, createdBy: Author, data: object = {}, featureName?: string) => ({
  type,
  createdBy,
  project: request.project,
  environment: request.environment,
  ...(featureName !== undefined && { featureName }),
  data: toJsonText({ changeRequestId: request.id, ...data }),
})

const stamped = (request: StoredRequest, state: ChangeRequestState) => ({ state, stateTimestamps: { ...request.stateTimestamps, [state]: new Date().toISOString() } })

/** The request of this project, locked; 404 through another project's path. */
async function lockIn (change: Change, project: string, id: number) {
  const request = await lockRequest(change.trx, id)
  if (!request || request.project !== project) {
    await requirePresent(change.trx, { project })
    throw new ApiError('NotFoundError', `Change request ${id} does not exist in project ${project}`)
  }
  return request
}

const requireAuthor = (request: StoredRequest, person: Person, what: string) => {
  if (request.authorId !== person.id) throw permissionDenied(`Only the author of change request ${request.id} (${request.authorName}) may ${what}`)
}

/**
 * The author's open request (Draft, In review, Approved) in the environment, locked; a new
 * Draft (change-request-created) when there is none. A Scheduled request is not added to: a
 * new Draft starts beside it.
 */
async function openRequest (change: Change, project: string, environment: string, minApprovals: number, author: Author, person: Person) {
  const open = await lockOpenRequest(change.trx, project, environment, person.id)
  if (open) return open
  const created = await insertDraft(change.trx, { project, environment, minApprovals, authorId: person.id, authorName: author.name, now: new Date().toISOString() })
  if (created) {
    change.record(requestEvent('change-request-created', created, author))
    return created
  }
  // Made meanwhile by the same person's other request: it is committed, so it is there now.
  const made = await lockOpenRequest(change.trx, project, environment, person.id)
  if (!made) throw new Error('no open change request after a conflicting insert')
  return made
}

/** After an edit: an Approved request goes back to In review, and the approvals given no longer count. */
async function afterEdit (change: Change, request: StoredRequest) {
  const state = stateAfterEdit(request.state, request.id)
  if (request.state === 'Draft') return
  await clearApprovals(change.trx, request.id)
  if (state !== request.state) await updateRequest(change.trx, request.id, stamped(request, state))
}

/**
 * Adds checked changes to a request: each tried out (refused as its direct write would be, at
 * `rootOf(i)`), replacing the request's change of the same key (the same strategy, the same
 * switch…), and recorded (change-added, or change-edited with `edited`); at most
 * MAX_CHANGES_PER_REQUEST in the request.
 */
async function addTo (change: Change, request: StoredRequest, checked: readonly CheckedChange[], author: Author, person: Person, rules: ChangeRules, rootOf: (i: number) => string, edited?: StoredChange) {
  let changes = await changesOf(change.trx, [request.id])
  if (edited) changes = changes.filter((c) => c.id !== edited.id)
  for (const [i, c] of checked.entries()) {
    const target = await tryOut(change, request, c, author, rules, rootOf(i))
    const key = replacementKey(c)
    const replaced = key === undefined ? [] : changes.filter((old) => replacementKey(old) === key)
    await deleteChanges(change.trx, replaced.map((r) => r.id))
    changes = changes.filter((old) => !replaced.includes(old))
    if (changes.length >= MAX_CHANGES_PER_REQUEST) {
      throw invalidField(rootOf(i), `would be change ${changes.length + 1} of change request ${request.id}: a request holds at most ${MAX_CHANGES_PER_REQUEST} changes`)
    }
    const stored = await insertChange(change.trx, { requestId: request.id, ...c, target: JSON.stringify(target), authorId: person.id, authorName: author.name })
    changes.push(stored)
    const data = { changeId: stored.id, action: c.action, ...(c.segmentId !== null && { segmentId: c.segmentId }), ...(c.payload !== undefined && { payload: c.payload }) }
    change.record(requestEvent(edited ? 'change-edited' : 'change-added', request, author, edited ? { ...data, previousChangeId: edited.id } : data, c.feature ?? undefined))
  }
}

/**
 * POST …/environments/{e}/change-requests: one change or a list, into the caller's open
 * request for the environment (a new Draft when there is none). Change requests must be on
 * there (400 otherwise). Nothing is stored when any change is refused.
 */
export async function addChanges (ctx: ChangeRequestContext, project: string, environment: string, body: NewChange | NewChange[], person: Person) {
  const list = Array.isArray(body) ? body : [body]
  const rootOf = (i: number) => (Array.isArray(body) ? `/body/${i}` : '/body')
  const checked = list.map((c, i) => checkChange(c, ctx.rules, rootOf(i)))
  await requirePresent(ctx.db, { project, environment })
  const setting = await findSetting(ctx.db, project, environment)
  if (setting?.enabled !== true) {
    throw badData(`Change requests are not enabled in environment ${environment} of project ${project}: write directly, or turn them on there first`)
  }
  const author = authorOf(person)
  const id = await writeChange(ctx.db, async (change) => {
    const request = await openRequest(change, project, environment, setting.required_approvals, author, person)
    await addTo(change, request, checked, author, person, ctx.rules, rootOf)
    await afterEdit(change, request)
    return request.id
  })
  return requestView(ctx.db, project, id)
}

/** An open request of the author's, to edit (403 for anyone else; 409 once it is no longer editable). */
async function editable (change: Change, project: string, id: number, person: Person) {
  const request = await lockIn(change, project, id)
  requireAuthor(request, person, 'change its changes')
  stateAfterEdit(request.state, id)
  return request
}

async function changeOf (change: Change, request: StoredRequest, changeId: number) {
  const found = (await changesOf(change.trx, [request.id])).find((c) => c.id === changeId)
  if (!found) throw new ApiError('NotFoundError', `Change ${changeId} does not exist in change request ${request.id}`)
  return found
}

/** PUT …/{id}/changes/{changeId}: the change is replaced by the one sent (a new id, a new snapshot of its target). */
export async function editChange (ctx: ChangeRequestContext, project: string, id: number, changeId: number, body: NewChange, person: Person) {
  const checked = checkChange(body, ctx.rules, '/body')
  const author = authorOf(person)
  await writeChange(ctx.db, async (change) => {
    const request = await editable(change, project, id, person)
    const old = await changeOf(change, request, changeId)
    await deleteChanges(change.trx, [old.id])
    await addTo(change, request, [checked], author, person, ctx.rules, () => '/body', old)
    await afterEdit(change, request)
  })
  return requestView(ctx.db, project, id)
}

/** DELETE …/{id}/changes/{changeId}: the change is discarded (change-discarded). */
export async function discardChange (ctx: ChangeRequestContext, project: string, id: number, changeId: number, person: Person) {
  await writeChange(ctx.db, async (change) => {
    const request = await editable(change, project, id, person)
    const old = await changeOf(change, request, changeId)
    await deleteChanges(change.trx, [old.id])
    change.record(requestEvent('change-discarded', request, authorOf(person), { changeId: old.id, action: old.action }, old.feature ?? undefined))
    await afterEdit(change, request)
  })
}

/** DELETE …/{id}: the author deletes their Draft (change-request-discarded); a request sent to review is cancelled instead (409). */
export async function deleteDraft (ctx: ChangeRequestContext, project: string, id: number, person: Person) {
  await writeChange(ctx.db, async (change) => {
    const request = await lockIn(change, project, id)
    requireAuthor(request, person, 'delete it')
    if (request.state !== 'Draft') throw new ApiError('ChangeRequestStateError', `Change request ${id} is ${request.state}: only a Draft is deleted (cancel it instead)`)
    await deleteRequest(change.trx, id)
    change.record(requestEvent('change-request-discarded', request, authorOf(person)))
  })
}

const requireOpen = (request: StoredRequest) => {
  if (['Applied', 'Cancelled', 'Rejected'].includes(request.state)) {
    throw new ApiError('ChangeRequestStateError', `Change request ${request.id} is ${request.state}: it cannot change any more`)
  }
}

/** PUT …/{id}/title: the author names the request (an empty title: none). */
export async function setTitle (ctx: ChangeRequestContext, project: string, id: number, title: string, person: Person) {
  await writeChange(ctx.db, async (change) => {
    const request = await lockIn(change, project, id)
    requireAuthor(request, person, 'change its title')
    requireOpen(request)
    const next = title === '' ? null : title
    if (next === request.title) return
    await updateRequest(change.trx, id, { title: next })
    change.record(requestEvent('change-request-title-updated', request, authorOf(person), { title: next }))
  })
}

/** POST …/{id}/comments: anyone who may write in the project comments (change-request-comment-added). */
export async function addComment (ctx: ChangeRequestContext, project: string, id: number, text: string, person: Person) {
  await writeChange(ctx.db, async (change) => {
    const request = await lockIn(change, project, id)
    await insertComment(change.trx, id, person.id, authorName(person), text)
    change.record(requestEvent('change-request-comment-added', request, authorOf(person), { text }))
  })
}

/** PUT …/{id}/approvers: the author asks these people (who may approve, not themselves) to review. */
export async function setReviewers (ctx: ChangeRequestContext, project: string, id: number, reviewers: readonly number[], person: Person) {
  await writeChange(ctx.db, async (change) => {
    const request = await lockIn(change, project, id)
    requireAuthor(request, person, 'ask for reviewers')
    requireOpen(request)
    const found = new Map((await people(change.trx, reviewers.length, reviewers)).map((p) => [p.id, p]))
    reviewers.forEach((userId, i) => {
      const reviewer = found.get(userId)
      if (!reviewer) throw invalidField(`/body/reviewers/${i}`, `names no user: ${userId}`)
      if (userId === request.authorId) throw invalidField(`/body/reviewers/${i}`, 'is the author, who cannot approve their own request')
      if (!personMay(reviewer, 'editor', project)) throw invalidField(`/body/reviewers/${i}`, `is ${authorName(reviewer)}, who may not approve changes in project ${project}`)
    })
    const before = (await requestedReviewers(change.trx, id)).map((r) => r.id)
    const after = [...reviewers].sort((a, b) => a - b)
    if (JSON.stringify(before) === JSON.stringify(after)) return
    await setRequestedReviewers(change.trx, id, after)
    change.record(requestEvent('change-request-requested-approvers-updated', request, authorOf(person), { reviewers: after }))
  })
}

const TRANSITION_EVENTS = {
  'send-to-review': 'change-request-sent-to-review',
  reject: 'change-request-rejected',
  cancel: 'change-request-cancelled',
  apply: 'change-request-applied',
  schedule: 'change-request-scheduled',
} as const

/**
 * PUT …/{id}/state: the state change `decide` allows, with its event; an approval that does not
 * complete the request records change-request-approval-added. Applying runs every change (see
 * applyChanges): a conflict is a 409, nothing is applied, and the request stays as it was.
 */
export async function changeState (ctx: ChangeRequestContext, project: string, id: number, body: { state: ChangeRequestState; scheduledAt?: string; comment?: string }, person: Person) {
  const wish = (body.state === 'Scheduled' ? { ...body, scheduledAt: new Date(body.scheduledAt!) } : body) as StateWish
  const author = authorOf(person)
  const decision = await writeChange(ctx.db, async (change) => {
    const request = await lockIn(change, project, id)
    const changes = await changesOf(change.trx, [id])
    const approvers = (await reviewsOf(change.trx, [id])).filter((r) => r.verdict === 'approved' && r.user_id !== null).map((r) => r.user_id!)
    const decided = decide({ id, state: request.state, authorId: request.authorId, changes: changes.length, minApprovals: request.minApprovals, approvers }, wish, { userId: person.id, admin: person.rootRole === 'Admin' }, new Date())
    if (decided.kind === 'none') return decided
    if (body.comment !== undefined) await insertComment(change.trx, id, person.id, author.name, body.comment)
    const comment = body.comment === undefined ? {} : { comment: body.comment }
    switch (decided.kind) {
      case 'send-to-review': {
        const setting = await findSetting(change.trx, request.project, request.environment)
        await updateRequest(change.trx, id, { ...stamped(request, 'In review'), minApprovals: setting?.required_approvals ?? request.minApprovals })
        break
      }
      case 'approve':
        await insertReview(change.trx, id, person.id, author.name, 'approved')
        if (decided.completes) await updateRequest(change.trx, id, stamped(request, 'Approved'))
        change.record(requestEvent(decided.completes ? 'change-request-approved' : 'change-request-approval-added', request, author, comment))
        return decided
      case 'reject':
        await insertReview(change.trx, id, person.id, author.name, 'rejected')
        await updateRequest(change.trx, id, { ...stamped(request, 'Rejected'), schedule: null })
        break
      case 'cancel':
        await updateRequest(change.trx, id, { ...stamped(request, 'Cancelled'), schedule: null })
        break
      case 'apply':
        await applyChanges(change, request, changes, author, ctx.rules)
        await updateRequest(change.trx, id, { ...stamped(request, 'Applied'), schedule: null })
        break
      case 'schedule':
        await updateRequest(change.trx, id, {
          ...stamped(request, 'Scheduled'),
          schedule: { scheduledAt: decided.scheduledAt, status: 'pending', reason: null, byId: person.id, byName: author.name },
        })
        change.record(requestEvent('change-request-scheduled', request, author, { scheduledAt: decided.scheduledAt.toISOString(), ...comment }))
        return decided
    }
    change.record(requestEvent(TRANSITION_EVENTS[decided.kind], request, author, comment))
    return decided
  })
  if (decision.kind === 'schedule') ctx.scheduled()
  return requestView(ctx.db, project, id)
}
