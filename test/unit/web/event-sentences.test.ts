/** The history: each event as a sentence. */
import { describe, expect, it } from 'vitest'
import type { StoredEvent } from '../../../web/api/types'
import { describeEvent } from '../../../web/features/history/sentences'

const event = (type: string, more: Partial<StoredEvent> = {}): StoredEvent => ({
  id: 1,
  type,
  createdAt: '2026-01-01T00:00:00.000Z',
  createdBy: 'alex@example.com',
  createdByUserId: 1,
  project: 'default',
  featureName: 'dark-mode',
  data: undefined,
  ...more,
})

describe('events as sentences', () => {
  it('names the flag in a list of every flag, says "the flag" on its own page', () => {
    const on = event('feature-environment-enabled', { environment: 'production' })
    expect(describeEvent(on, true)).toBe('alex@example.com switched dark-mode on in production.')
    expect(describeEvent(on, false)).toBe('alex@example.com switched the flag on in production.')
    expect(describeEvent(event('feature-created', { data: { type: 'release' } }), true)).toBe('alex@example.com created flag dark-mode as a release flag.')
  })

  it('names strategies as people know them, from what was added or removed', () => {
    const rollout = { name: 'flexibleRollout', parameters: { rollout: '25' } }
    expect(describeEvent(event('feature-strategy-add', { data: rollout, environment: 'development' }), false))
      .toBe('alex@example.com added a gradual rollout of 25% to the flag in development.')
    expect(describeEvent(event('feature-strategy-remove', { data: undefined, preData: { name: 'byRegion' } }), false))
      .toBe('alex@example.com removed the byRegion strategy from the flag.')
  })

  it('says what became of a completed flag, and of tags', () => {
    expect(describeEvent(event('feature-completed', { data: { status: 'kept', statusValue: 'blue' } }), false)).toBe('alex@example.com marked the flag completed: kept (blue).')
    expect(describeEvent(event('feature-untagged', { preData: { type: 'release', value: 'q4' } }), true)).toBe('alex@example.com removed the tag release:q4 from dark-mode.')
    expect(describeEvent(event('feature-lifecycle-stage-entered', { data: { stage: 'live' } }), false)).toBe('The flag entered the live stage.')
  })

  it('reads an event it has no sentence for from its type', () => {
    expect(describeEvent(event('context-field-created', { featureName: null }), true)).toBe('alex@example.com: context field created.')
  })
})

describe('change requests in the history', () => {
  it('a change applied through a change request names the request and its author; the requests\' own steps read as sentences', () => {
    const applied = event('feature-environment-enabled', { environment: 'production', createdBy: 'bo@example.com', changeRequest: { id: 7, createdBy: 'alex@example.com', appliedBy: 'bo@example.com' } })
    expect(describeEvent(applied, true)).toBe('bo@example.com switched dark-mode on in production (change request #7 by alex@example.com).')
    expect(describeEvent(event('change-added', { environment: 'production', data: { changeRequestId: 7 } }), false)).toBe('alex@example.com proposed a change to the flag in production in change request #7.')
    expect(describeEvent(event('change-request-approved', { featureName: null, data: { changeRequestId: 7 } }), true)).toBe('alex@example.com approved change request #7.')
    expect(describeEvent(event('change-request-schedule-suspended', { featureName: null, data: { changeRequestId: 7, reason: 'Feature has been archived' } }), true))
      .toBe('The schedule of change request #7 was suspended: Feature has been archived.')
  })
})
