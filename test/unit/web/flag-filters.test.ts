/** The flag list's filters: kept in the address, applied to the list already read. */
import { describe, expect, it } from 'vitest'
import type { FeatureSummary } from '../../../web/api/types'
import { activeFilters, choices, NO_FILTERS, readFilters, selectFlags, writeFilters } from '../../../web/features/flags/filters'

const flag = (name: string, more: Partial<FeatureSummary> = {}): FeatureSummary => ({
  name,
  project: 'default',
  description: null,
  type: 'release',
  impressionData: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  stale: false,
  environments: [{ name: 'development', enabled: false, lastSeenAt: null }, { name: 'production', enabled: false, lastSeenAt: null }],
  lifecycle: { stage: 'initial', enteredStageAt: '2026-01-01T00:00:00.000Z' },
  tags: [],
  ...more,
})

const FLAGS = [
  flag('checkout', { description: 'The new one-page Checkout', createdAt: '2026-01-03T00:00:00.000Z', tags: [{ type: 'release', value: 'q4' }] }),
  flag('dark-mode', { type: 'experiment', environments: [{ name: 'development', enabled: true, lastSeenAt: null }, { name: 'production', enabled: true, lastSeenAt: null }] }),
  flag('beta', { type: 'permission', lifecycle: { stage: 'live', enteredStageAt: '2026-01-02T00:00:00.000Z' }, createdAt: '2026-01-02T00:00:00.000Z' }),
]
const names = (flags: FeatureSummary[]) => flags.map((f) => f.name)

describe('the flag list filters', () => {
  it('round-trips through the address, leaving out what is not set', () => {
    const filters = { q: 'dark mode', type: 'experiment', stage: 'live', tag: 'release:q4', sort: '-created', state: { production: 'on', development: '' } }
    const search = writeFilters(filters)
    expect(search).toBe('?q=dark+mode&type=experiment&stage=live&tag=release%3Aq4&sort=-created&state.production=on')
    expect(readFilters(search)).toEqual({ ...filters, state: { production: 'on' } })
    expect(writeFilters(NO_FILTERS)).toBe('')
    expect(readFilters('')).toEqual(NO_FILTERS)
  })

  it('ignores what the address cannot mean', () => {
    expect(readFilters('?sort=bogus&state.production=maybe')).toEqual(NO_FILTERS)
  })

  it('counts the filters that are on, beside the search and the sort', () => {
    expect(activeFilters({ ...NO_FILTERS, q: 'x', sort: 'type' })).toBe(0)
    expect(activeFilters({ ...NO_FILTERS, type: 'release', state: { production: 'on', development: '' } })).toBe(2)
  })

  it('searches names and descriptions without case', () => {
    expect(names(selectFlags(FLAGS, { ...NO_FILTERS, q: ' CHECKOUT ' }))).toEqual(['checkout'])
    expect(names(selectFlags(FLAGS, { ...NO_FILTERS, q: 'one-page' }))).toEqual(['checkout'])
  })

  it('filters by type, stage, tag and state per environment', () => {
    expect(names(selectFlags(FLAGS, { ...NO_FILTERS, type: 'experiment' }))).toEqual(['dark-mode'])
    expect(names(selectFlags(FLAGS, { ...NO_FILTERS, stage: 'live' }))).toEqual(['beta'])
    expect(names(selectFlags(FLAGS, { ...NO_FILTERS, tag: 'release:q4' }))).toEqual(['checkout'])
    expect(names(selectFlags(FLAGS, { ...NO_FILTERS, state: { production: 'on' } }))).toEqual(['dark-mode'])
    expect(names(selectFlags(FLAGS, { ...NO_FILTERS, state: { production: 'off' } }))).toEqual(['beta', 'checkout'])
    expect(names(selectFlags(FLAGS, { ...NO_FILTERS, state: { staging: 'off' } }))).toEqual([])
  })

  it('sorts by name either way, by age, by type (then name)', () => {
    expect(names(selectFlags(FLAGS, NO_FILTERS))).toEqual(['beta', 'checkout', 'dark-mode'])
    expect(names(selectFlags(FLAGS, { ...NO_FILTERS, sort: '-name' }))).toEqual(['dark-mode', 'checkout', 'beta'])
    expect(names(selectFlags(FLAGS, { ...NO_FILTERS, sort: '-created' }))).toEqual(['checkout', 'beta', 'dark-mode'])
    expect(names(selectFlags(FLAGS, { ...NO_FILTERS, sort: 'created' }))).toEqual(['dark-mode', 'beta', 'checkout'])
    expect(names(selectFlags(FLAGS, { ...NO_FILTERS, sort: 'type' }))).toEqual(['dark-mode', 'beta', 'checkout'])
  })

  it('offers the environments and tags the flags have', () => {
    expect(choices(FLAGS)).toEqual({ environments: ['development', 'production'], tags: ['release:q4'] })
  })
})
