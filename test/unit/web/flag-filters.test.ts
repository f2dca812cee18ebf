/** The flag list's filters: kept in the address, asked of feature search. */
import { describe, expect, it } from 'vitest'
import { activeFilters, NO_FILTERS, readFilters, searchQuery, stateOptions, writeFilters } from '../../../web/features/flags/filters'

describe('flag list filters', () => {
  it('round-trip through the address, and leave out what is not set', () => {
    const filters = { q: 'dark mode', type: 'experiment', stage: 'live', tag: 'release:q4', sort: '-created', state: 'production:on', stale: 'potentially-stale' }
    expect(readFilters(writeFilters(filters))).toEqual(filters)
    expect(writeFilters(NO_FILTERS)).toBe('')
    expect(activeFilters(filters)).toBe(5)
  })

  it('ignore what the address holds that they do not know', () => {
    expect(readFilters('?sort=sideways&state=production:maybe&stale=old&other=1')).toEqual(NO_FILTERS)
  })

  it('ask feature search for the project\'s flags, as the filters say', () => {
    const query = (f: Partial<typeof NO_FILTERS>) => Object.fromEntries(new URLSearchParams(searchQuery('web', { ...NO_FILTERS, ...f })))
    expect(query({})).toEqual({ project: 'IS:web', sortBy: 'name', sortOrder: 'asc' })
    expect(query({ q: ' dark ', type: 'experiment', stage: 'live', tag: 'release:q4', state: 'production:off', stale: 'stale', sort: '-seen' })).toEqual({
      project: 'IS:web',
      query: 'dark',
      type: 'IS:experiment',
      lifecycle: 'IS:live',
      tag: 'INCLUDE:release:q4',
      status: 'production:disabled',
      state: 'IS:stale',
      sortBy: 'lastSeenAt',
      sortOrder: 'desc',
    })
    expect(query({ sort: '-created' })).toMatchObject({ sortBy: 'createdAt', sortOrder: 'desc' })
  })

  it('offer on and off in each environment', () => {
    expect(stateOptions(['development', 'production']).map((o) => o.value)).toEqual(['', 'development:on', 'development:off', 'production:on', 'production:off'])
  })
})
