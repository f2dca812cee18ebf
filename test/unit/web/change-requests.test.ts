/** Change requests on screen: changes in words and as before and after, what a person may do next, the schedule in the viewer's time zone. */
import { describe, expect, it } from 'vitest'
import type { ChangeRequest, FeatureDetails } from '../../../web/api/types'
import { beforeAndAfter, describeChange, fromLocalInput, nextSteps, scheduleWords, toLocalInput } from '../../../web/features/change-requests/words'

const request = (state: ChangeRequest['state'], more: Partial<ChangeRequest> = {}): Pick<ChangeRequest, 'state' | 'createdBy' | 'approvals' | 'features' | 'segments'> => ({
  state,
  createdBy: { id: 1, username: 'alex' },
  approvals: [],
  features: [{ name: 'f', changes: [{ id: 1, action: 'updateEnabled', payload: { enabled: true }, createdBy: { id: 1, username: 'alex' }, createdAt: '2030-01-01T00:00:00Z' }] }],
  segments: [],
  ...more,
})
const author = { id: 1, canChange: true, admin: false }
const reviewer = { id: 2, canChange: true, admin: false }
const viewer = { id: 3, canChange: false, admin: false }

describe('what a person may do next', () => {
  it('the author sends a draft, edits it, cancels or deletes it; never approves or rejects', () => {
    expect(nextSteps(request('Draft'), author)).toMatchObject({ send: true, edit: true, remove: true, cancel: true, approve: false, reject: false, apply: false })
    expect(nextSteps(request('In review'), author)).toMatchObject({ send: false, approve: false, reject: false, edit: true, cancel: true })
    expect(nextSteps(request('Approved'), author)).toMatchObject({ apply: true, schedule: true, approve: false })
  })

  it('another person approves once, rejects, applies and schedules an approved one; a Viewer does nothing', () => {
    expect(nextSteps(request('In review'), reviewer)).toMatchObject({ approve: true, reject: true, edit: false, cancel: false })
    expect(nextSteps(request('In review', { approvals: [{ createdBy: { id: 2, username: 'bo' }, createdAt: '2030-01-01T00:00:00Z' }] }), reviewer).approve).toBe(false)
    expect(nextSteps(request('Scheduled'), reviewer)).toMatchObject({ apply: true, schedule: true, reject: true })
    expect(Object.values(nextSteps(request('In review'), viewer)).some(Boolean)).toBe(false)
    expect(Object.values(nextSteps(request('Applied'), reviewer)).some(Boolean)).toBe(false)
  })
})

describe('the schedule in the viewer\'s time zone, stored in UTC', () => {
  it('a datetime-local value round-trips through the instant it names; an impossible date names none', () => {
    const iso = fromLocalInput('2030-03-04T09:30')!
    expect(new Date(iso).getHours()).toBe(9)
    expect(iso.endsWith('Z')).toBe(true)
    expect(toLocalInput(new Date(iso))).toBe('2030-03-04T09:30')
    expect(fromLocalInput('2030-02-30T09:00')).toBeUndefined()
    expect(fromLocalInput('monday')).toBeUndefined()
  })

  it('says why a schedule failed or was suspended', () => {
    expect(scheduleWords({ scheduledAt: '2030-01-01T00:00:00Z', status: 'suspended', reason: 'Feature has been archived' })).toMatch(/suspended, and nothing was applied: Feature has been archived/)
    expect(scheduleWords({ scheduledAt: '2030-01-01T00:00:00Z', status: 'pending' })).toMatch(/^Scheduled to apply at /)
  })
})

describe('changes in words, and as before and after', () => {
  const flag = {
    name: 'f',
    lifecycle: { stage: 'live' },
    dependencies: [],
    environments: [{ name: 'production', enabled: false, variants: [], strategies: [{ id: 's1', name: 'flexibleRollout', title: null, disabled: false, sortOrder: 0, constraints: [], parameters: { rollout: '10' }, variants: [], segments: [] }] }],
  } as unknown as FeatureDetails

  it('each action reads as a sentence', () => {
    expect(describeChange({ action: 'updateEnabled', payload: { enabled: true } })).toBe('Switch on')
    expect(describeChange({ action: 'deleteDependency', payload: undefined })).toBe('Remove every dependency')
    expect(describeChange({ action: 'reorderStrategy', payload: [{ id: 'a', sortOrder: 1 }, { id: 'b', sortOrder: 0 }] })).toBe('Reorder 2 strategies')
  })

  it('an update shows the strategy as stored, and as it would be', () => {
    const { before, after } = beforeAndAfter({ action: 'updateStrategy', payload: { id: 's1', parameters: { rollout: '50' } } }, 'production', flag, [])
    expect(before).toMatchObject({ parameters: { rollout: '10' } })
    expect(after).toMatchObject({ name: 'flexibleRollout', parameters: { rollout: '50' } })
    expect(beforeAndAfter({ action: 'updateEnabled', payload: { enabled: true } }, 'production', flag, [])).toEqual({ before: { enabled: false }, after: { enabled: true } })
  })
})
