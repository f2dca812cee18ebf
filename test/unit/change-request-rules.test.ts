/**
 * The rules of change requests: the state machine (who may move a request where), which
 * change a new one replaces, and when a change is in conflict.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { clampApprovals, conflictOf, countStates, decide, replacementKey, type RequestFacts, stateAfterEdit, targetOf } from '../../src/change-requests/change-rules.js'
import { ApiError } from '../../src/errors.js'
import { CHANGE_REQUEST_STATES, type ChangeRequestState } from '../../src/vocabulary/change-requests.js'

const NOW = new Date('2030-01-01T00:00:00Z')
const AUTHOR = 1
const OTHER = 2
const facts = (state: ChangeRequestState, more: Partial<RequestFacts> = {}): RequestFacts => ({ id: 7, state, authorId: AUTHOR, changes: 1, minApprovals: 1, approvers: [], ...more })
const as = (userId: number, admin = false) => ({ userId, admin })

/** The refusal's name and status, or the decision. */
const outcome = (run: () => unknown) => {
  try {
    return run()
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return { refused: error.errorName, status: error.status }
  }
}

describe('decide: the state machine', () => {
  it('the author sends a Draft with changes to review; not an empty one (409), not someone else (403)', () => {
    expect(decide(facts('Draft'), { state: 'In review' }, as(AUTHOR), NOW)).toEqual({ kind: 'send-to-review' })
    expect(outcome(() => decide(facts('Draft', { changes: 0 }), { state: 'In review' }, as(AUTHOR), NOW))).toEqual({ refused: 'ChangeRequestStateError', status: 409 })
    expect(outcome(() => decide(facts('Draft'), { state: 'In review' }, as(OTHER), NOW))).toEqual({ refused: 'PermissionError', status: 403 })
  })

  it('approval: never the author (403); the minApprovals-th approval makes it Approved; the same person twice changes nothing', () => {
    expect(outcome(() => decide(facts('In review'), { state: 'Approved' }, as(AUTHOR), NOW))).toEqual({ refused: 'PermissionError', status: 403 })
    expect(decide(facts('In review'), { state: 'Approved' }, as(OTHER), NOW)).toEqual({ kind: 'approve', completes: true })
    expect(decide(facts('In review', { minApprovals: 2 }), { state: 'Approved' }, as(OTHER), NOW)).toEqual({ kind: 'approve', completes: false })
    expect(decide(facts('In review', { minApprovals: 2, approvers: [3] }), { state: 'Approved' }, as(OTHER), NOW)).toEqual({ kind: 'approve', completes: true })
    expect(decide(facts('In review', { minApprovals: 2, approvers: [OTHER] }), { state: 'Approved' }, as(OTHER), NOW)).toEqual({ kind: 'none' })
    expect(outcome(() => decide(facts('Draft'), { state: 'Approved' }, as(OTHER), NOW))).toEqual({ refused: 'ChangeRequestStateError', status: 409 })
    expect(outcome(() => decide(facts('In review', { changes: 0 }), { state: 'Approved' }, as(OTHER), NOW))).toEqual({ refused: 'ChangeRequestStateError', status: 409 })
  })

  it('reject by another person (the author cancels instead), cancel by the author or an Admin', () => {
    expect(decide(facts('In review'), { state: 'Rejected' }, as(OTHER), NOW)).toEqual({ kind: 'reject' })
    expect(decide(facts('Scheduled'), { state: 'Rejected' }, as(OTHER), NOW)).toEqual({ kind: 'reject' })
    expect(outcome(() => decide(facts('In review'), { state: 'Rejected' }, as(AUTHOR), NOW))).toEqual({ refused: 'PermissionError', status: 403 })
    expect(decide(facts('Approved'), { state: 'Cancelled' }, as(AUTHOR), NOW)).toEqual({ kind: 'cancel' })
    expect(decide(facts('Approved'), { state: 'Cancelled' }, as(OTHER, true), NOW)).toEqual({ kind: 'cancel' })
    expect(outcome(() => decide(facts('Approved'), { state: 'Cancelled' }, as(OTHER), NOW))).toEqual({ refused: 'PermissionError', status: 403 })
  })

  it('apply and schedule an Approved request (the author too); reschedule a Scheduled one; a time in the past is a 400', () => {
    expect(decide(facts('Approved'), { state: 'Applied' }, as(AUTHOR), NOW)).toEqual({ kind: 'apply' })
    expect(decide(facts('Scheduled'), { state: 'Applied' }, as(OTHER), NOW)).toEqual({ kind: 'apply' })
    expect(outcome(() => decide(facts('In review'), { state: 'Applied' }, as(OTHER), NOW))).toEqual({ refused: 'ChangeRequestStateError', status: 409 })
    const later = new Date(NOW.getTime() + 60_000)
    expect(decide(facts('Approved'), { state: 'Scheduled', scheduledAt: later }, as(AUTHOR), NOW)).toEqual({ kind: 'schedule', scheduledAt: later, reschedule: false })
    expect(decide(facts('Scheduled'), { state: 'Scheduled', scheduledAt: later }, as(OTHER), NOW)).toEqual({ kind: 'schedule', scheduledAt: later, reschedule: true })
    expect(outcome(() => decide(facts('Approved'), { state: 'Scheduled', scheduledAt: NOW }, as(AUTHOR), NOW))).toEqual({ refused: 'BadDataError', status: 400 })
  })

  it('any wish on any request either decides something or is refused with 400, 403 or 409; a closed request never moves; nothing goes back to Draft', () => {
    const state = fc.constantFrom(...CHANGE_REQUEST_STATES)
    fc.assert(
      fc.property(state, state, fc.integer({ min: 1, max: 4 }), fc.boolean(), fc.nat(3), fc.integer({ min: 1, max: 3 }), fc.subarray([2, 3, 4]), fc.integer({ min: -5, max: 5 }), (from, to, who, admin, changes, minApprovals, approvers, minutes) => {
        const wish = to === 'Scheduled' ? { state: to, scheduledAt: new Date(NOW.getTime() + minutes * 60_000) } : { state: to }
        const result = outcome(() => decide(facts(from, { changes, minApprovals, approvers }), wish, as(who, admin), NOW)) as { kind?: string; status?: number }
        if (result.status !== undefined) {
          expect([400, 403, 409]).toContain(result.status)
          return
        }
        if (['Applied', 'Cancelled', 'Rejected'].includes(from)) expect(result.kind).toBe('none')
        if (to === 'Draft') expect(result.kind).toBe('none')
        if (result.kind === 'approve' || result.kind === 'reject') expect(who).not.toBe(AUTHOR)
      })
    )
  })

  it('an edit sends an Approved request back to In review; a Scheduled or closed one cannot be edited (409)', () => {
    expect(stateAfterEdit('Approved', 1)).toBe('In review')
    expect(stateAfterEdit('Draft', 1)).toBe('Draft')
    for (const state of ['Scheduled', 'Applied', 'Cancelled', 'Rejected'] as const) {
      expect(outcome(() => stateAfterEdit(state, 1))).toEqual({ refused: 'ChangeRequestStateError', status: 409 })
    }
  })
})

describe('which change a new one replaces', () => {
  const key = (action: string, payload: unknown, feature: string | null = 'f', segmentId: number | null = null) => replacementKey({ action: action as never, feature, segmentId, payload })
  it('the same switch, variants, order, archive; the same strategy whether updated or deleted; the same dependency; the same segment; never a new strategy', () => {
    expect(key('updateEnabled', { enabled: true })).toBe(key('updateEnabled', { enabled: false }))
    expect(key('updateEnabled', { enabled: true })).not.toBe(key('updateEnabled', { enabled: true }, 'g'))
    expect(key('updateStrategy', { id: 'a' })).toBe(key('deleteStrategy', { id: 'a' }))
    expect(key('updateStrategy', { id: 'a' })).not.toBe(key('updateStrategy', { id: 'b' }))
    expect(key('addStrategy', { name: 'default' })).toBeUndefined()
    expect(key('addDependency', { feature: 'p' })).toBe(key('deleteDependency', { feature: 'p' }))
    expect(key('deleteDependency', undefined)).not.toBe(key('deleteDependency', { feature: 'p' }))
    expect(key('updateSegment', { id: 3 }, null, 3)).toBe(key('deleteSegment', { id: 3 }, null, 3))
  })
})

describe('conflicts', () => {
  const state = (more: Partial<Parameters<typeof targetOf>[1]> = {}) => ({
    features: new Map([['f', { archived: false }]]),
    strategies: new Map([['s1', { feature: 'f', revision: 1 }], ['s2', { feature: 'g', revision: 1 }]]),
    variants: new Map([['f', 4]]),
    segments: new Map([[9, 'abc']]),
    ...more,
  })
  const change = (action: string, payload: unknown, segmentId: number | null = null) => ({ action: action as never, feature: segmentId === null ? 'f' : null, segmentId, payload })

  it('nothing moved: no conflict', () => {
    for (const c of [change('updateStrategy', { id: 's1' }), change('patchVariant', { variants: [] }), change('reorderStrategy', [{ id: 's1', sortOrder: 0 }]), change('updateSegment', { id: 9 }, 9), change('updateEnabled', { enabled: true })]) {
      expect(conflictOf(targetOf(c, state()), targetOf(c, state()))).toBeUndefined()
    }
  })

  it('told in words: a strategy updated or deleted, another feature\'s strategy as gone, the variants updated, the feature archived or deleted, a segment updated or deleted', () => {
    const update = change('updateStrategy', { id: 's1' })
    const before = targetOf(update, state())
    expect(conflictOf(before, targetOf(update, state({ strategies: new Map([['s1', { feature: 'f', revision: 2 }]]) })))).toBe('Strategy has been updated since this change was added')
    expect(conflictOf(before, targetOf(update, state({ strategies: new Map() })))).toBe('Strategy has been deleted')
    expect(targetOf(change('updateStrategy', { id: 's2' }), state()).strategy).toBeNull()
    const variants = change('patchVariant', { variants: [] })
    expect(conflictOf(targetOf(variants, state()), targetOf(variants, state({ variants: new Map([['f', 5]]) })))).toBe('Variants have been updated since this change was added')
    expect(conflictOf(before, targetOf(update, state({ features: new Map([['f', { archived: true }]]) })))).toBe('Feature has been archived')
    expect(conflictOf(before, targetOf(update, state({ features: new Map() })))).toBe('Feature has been deleted')
    const segment = change('updateSegment', { id: 9 }, 9)
    expect(conflictOf(targetOf(segment, state()), targetOf(segment, state({ segments: new Map([[9, 'xyz']]) })))).toBe('Segment has been updated since this change was added')
    expect(conflictOf(targetOf(segment, state()), targetOf(segment, state({ segments: new Map() })))).toBe('Segment has been deleted')
    const reorder = change('reorderStrategy', [{ id: 's1', sortOrder: 0 }])
    expect(conflictOf(targetOf(reorder, state()), targetOf(reorder, state({ strategies: new Map() })))).toBe('Strategy s1 has been deleted')
  })
})

it('counts leave Drafts out; approvals are taken into 1–10', () => {
  expect(countStates(['Draft', 'In review', 'In review', 'Approved', 'Scheduled', 'Applied', 'Rejected', 'Cancelled'])).toEqual({ total: 7, applied: 1, rejected: 1, reviewRequired: 2, approved: 1, scheduled: 1 })
  expect([clampApprovals(undefined), clampApprovals(0), clampApprovals(3), clampApprovals(99)]).toEqual([1, 1, 3, 10])
})
