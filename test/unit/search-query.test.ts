/** Feature search's grammar, as Unleash 8.2 reads its query string, and the staleness rules. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isOutdatedSdk, outdatedSdks } from '../../src/insight/sdk-versions.js'
import { lifecycleFilter, likeSubstring, parseSearch, splitOperator, STALE_STATES, staleStates } from '../../src/insight/search-query.js'
import { averageDays, healthCounts, healthRating, isPotentiallyStale } from '../../src/vocabulary/staleness.js'

describe('parseSearch', () => {
  it('without parameters: every flag not archived, oldest first, 50 from the first', () => {
    expect(parseSearch({})).toEqual({
      query: [],
      project: undefined,
      type: undefined,
      lifecycle: { archivedAt: 'null', orArchived: false },
      createdAt: undefined,
      lastSeenAt: undefined,
      status: [],
      onlyFavorites: false,
      offset: 0,
      limit: 50,
      sort: { by: 'createdAt' },
      order: 'asc',
    })
  })

  it('splits OPERATOR:values on the first colon and commas, trimming each value; nothing after the colon is no filter', () => {
    expect(splitOperator('IS_ANY_OF: a , b,c')).toEqual({ operator: 'IS_ANY_OF', values: ['a', 'b', 'c'] })
    expect(splitOperator('INCLUDE:simple:a:b')).toEqual({ operator: 'INCLUDE', values: ['simple:a:b'] })
    expect(splitOperator('IS:')).toBeUndefined()
    expect(parseSearch({ type: 'IS:' }).type).toBeUndefined()
    expect(parseSearch({ type: 'IS_NOT:release,release' }).type).toEqual({ include: false, values: ['release'] })
  })

  it('query: comma-separated, trimmed, empty parts dropped; LIKE characters are taken literally', () => {
    expect(parseSearch({ query: ' a ,, B_c , ' }).query).toEqual(['a', 'B_c'])
    expect(likeSubstring('50%_off\\')).toBe('%50\\%\\_off\\\\%')
  })

  it('tags: type:value at the first colon; segments by name; the operators as matches', () => {
    expect(parseSearch({ tag: 'INCLUDE_ALL_OF:simple:a, team:x:y,simple:a' }).tag).toEqual({ match: 'all', tags: [{ type: 'simple', value: 'a' }, { type: 'team', value: 'x:y' }] })
    const match = (op: string) => parseSearch({ segment: `${op}:s1` }).segment?.match
    expect(['INCLUDE', 'INCLUDE_ANY_OF', 'DO_NOT_INCLUDE', 'EXCLUDE_IF_ANY_OF', 'INCLUDE_ALL_OF', 'EXCLUDE_ALL'].map(match)).toEqual(['any', 'any', 'none', 'none', 'all', 'not-all'])
  })

  it('dates are days at midnight UTC; a day that does not exist is a 400 naming the parameter', () => {
    expect(parseSearch({ createdAt: 'IS_BEFORE:2024-02-29' }).createdAt).toEqual({ before: true, at: new Date('2024-02-29T00:00:00Z') })
    expect(parseSearch({ lastSeenAt: 'IS_ON_OR_AFTER:2024-01-01' }).lastSeenAt).toEqual({ before: false, at: new Date('2024-01-01T00:00:00Z') })
    expect(() => parseSearch({ createdAt: 'IS_BEFORE:2023-02-29' })).toThrow(/createdAt|date/)
    expect(() => parseSearch({ lastSeenAt: 'IS_BEFORE:2023-13-01' })).toThrow(/date/)
  })

  it('createdBy: user ids, -42 for API tokens; anything else is a 400', () => {
    expect(parseSearch({ createdBy: 'IS_ANY_OF:1,-42' }).createdBy).toEqual({ include: true, ids: [1, -42] })
    expect(() => parseSearch({ createdBy: 'IS:alice' })).toThrow(/user id/)
  })

  it('status: environment:enabled|disabled pairs, others ignored', () => {
    expect(parseSearch({ status: ['production:enabled', 'dev:disabled', 'x:on', 'a:b:enabled', 'plain'] }).status).toEqual([
      { environment: 'production', enabled: true },
      { environment: 'dev', enabled: false },
    ])
  })

  it('offset and limit as Unleash normalises them; the sort and its order', () => {
    const page = (offset?: string, limit?: string) => { const s = parseSearch({ offset, limit }); return [s.offset, s.limit] }
    expect([page('10', '5'), page('-1', '0'), page('x', '101'), page('', '100'), page('2.5', '1.5')]).toEqual([[10, 5], [0, 50], [0, 50], [0, 100], [0, 50]])
    expect(parseSearch({ sortBy: 'environment:production', sortOrder: 'desc' })).toMatchObject({ sort: { by: 'environment', environment: 'production' }, order: 'desc' })
    expect(parseSearch({ sortBy: 'lastSeenAt' }).sort).toEqual({ by: 'lastSeenAt' })
    expect(parseSearch({ sortBy: 'favorite' }).sort).toEqual({ by: 'createdAt' })
  })

  it('favorite: only IS:true (without false) asks for favourites', () => {
    expect(['IS:true', 'IS_ANY_OF:true,false', 'IS:false'].map((favorite) => parseSearch({ favorite }).onlyFavorites)).toEqual([true, false, false])
  })
})

describe('state', () => {
  const states = (include: boolean, ...values: string[]) => staleStates({ include, values }).sort()
  it('without potentially-stale, on stale alone: active is not stale, any other value stale', () => {
    expect(states(true, 'active')).toEqual(['active', 'potentially-stale'])
    expect(states(true, 'stale')).toEqual(['stale'])
    expect(states(true, 'whatever')).toEqual(['stale'])
    expect(states(false, 'active')).toEqual(['stale'])
    expect(states(true, 'active', 'stale')).toEqual([...STALE_STATES].sort())
  })
  it('with potentially-stale, on the three states', () => {
    expect(states(true, 'potentially-stale')).toEqual(['potentially-stale'])
    expect(states(false, 'potentially-stale')).toEqual(['active', 'stale'])
    expect(states(true, 'stale', 'potentially-stale')).toEqual(['potentially-stale', 'stale'])
    expect(states(false, 'stale', 'potentially-stale')).toEqual(['active'])
    expect(states(true, 'active', 'potentially-stale')).toEqual(['active', 'potentially-stale'])
    expect(states(false, 'active', 'potentially-stale')).toEqual(['stale'])
    expect(states(false, 'active', 'stale', 'potentially-stale')).toEqual([])
  })
  it('IS_NOT lets through exactly what IS does not', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom('active', 'stale', 'potentially-stale', 'other'), { minLength: 1, maxLength: 4 }), (values) => {
      const included = new Set(staleStates({ include: true, values }))
      const excluded = new Set(staleStates({ include: false, values }))
      expect([...STALE_STATES].every((s) => included.has(s) !== excluded.has(s))).toBe(true)
    }))
  })
})

describe('lifecycle and archived', () => {
  const filter = (include: boolean, values: string[], archived = false) => lifecycleFilter({ include, values }, archived)
  it('stages of flags not archived; archived stands for archived flags; the archived view', () => {
    expect(lifecycleFilter(undefined, true)).toEqual({ archivedAt: 'set', orArchived: false })
    expect(filter(true, ['live'])).toEqual({ archivedAt: 'null', stage: { in: true, names: ['live'] }, orArchived: false })
    expect(filter(true, ['archived'])).toEqual({ archivedAt: 'set', orArchived: false })
    expect(filter(true, ['live', 'archived'])).toEqual({ archivedAt: 'any', stage: { in: true, names: ['live'] }, orArchived: true })
    expect(filter(false, ['live'])).toEqual({ archivedAt: 'null', stage: { in: false, names: ['live'] }, orArchived: false })
    expect(filter(false, ['archived'])).toEqual({ archivedAt: 'null', orArchived: false })
    expect(filter(false, ['live'], true)).toEqual({ archivedAt: 'set', orArchived: false })
    expect(filter(true, ['live'], true)).toEqual({ archivedAt: 'set', stage: { in: true, names: ['live'] }, orArchived: false })
    expect(filter(true, ['live', 'archived'], true)).toEqual({ archivedAt: 'set', orArchived: false })
  })
})

describe('staleness and health', () => {
  const now = new Date('2026-06-01T00:00:00Z')
  const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000)
  it('potentially stale: not stale, and at least its type\'s lifetime old; never without a lifetime', () => {
    expect(isPotentiallyStale({ stale: false, createdAt: daysAgo(40), lifetimeDays: 40 }, now)).toBe(true)
    expect(isPotentiallyStale({ stale: false, createdAt: daysAgo(39.9), lifetimeDays: 40 }, now)).toBe(false)
    expect(isPotentiallyStale({ stale: true, createdAt: daysAgo(400), lifetimeDays: 40 }, now)).toBe(false)
    expect(isPotentiallyStale({ stale: false, createdAt: daysAgo(4000), lifetimeDays: null }, now)).toBe(false)
  })
  it('health: 100 less the shares of stale and potentially stale flags, rounded; counts as Unleash', () => {
    const flags = [
      { stale: false, createdAt: daysAgo(1), lifetimeDays: 40 },
      { stale: false, createdAt: daysAgo(50), lifetimeDays: 40 },
      { stale: true, createdAt: daysAgo(1), lifetimeDays: 40 },
    ]
    expect(healthCounts(flags, now)).toEqual({ potentiallyStaleCount: 1, activeCount: 2, staleCount: 1 })
    expect(healthRating(flags, now)).toBe(33)
    expect(healthRating([], now)).toBe(100)
  })
  it('average days to production, one decimal, 0.1 when it rounds to nothing', () => {
    expect([averageDays([]), averageDays([0, 3]), averageDays([0, 0]), averageDays([1, 2, 2])]).toEqual([0, 1.5, 0.1, 1.7])
  })
})

describe('outdated SDKs', () => {
  it('older than the oldest version Unleash 8.2 considers current, of the SDKs it knows', () => {
    expect(isOutdatedSdk('unleash-client-node:5.3.1')).toBe(true)
    expect(isOutdatedSdk('unleash-client-node:5.3.2')).toBe(false)
    expect(isOutdatedSdk('unleash-client-node:5.3.2-beta.1')).toBe(true)
    expect(isOutdatedSdk('unleash-client-node:v4.0.0')).toBe(true)
    expect(isOutdatedSdk('unleash-node-sdk:6.10.0')).toBe(false)
    expect(isOutdatedSdk('unleash-client-node:not-a-version')).toBe(false)
    expect(isOutdatedSdk('my-own-sdk:0.0.1')).toBe(false)
    expect(isOutdatedSdk(null)).toBe(false)
    expect(outdatedSdks(['unleash-client-go:4.0.0', 'unleash-client-go:4.0.0', 'unleash-client-go:4.1.0'])).toEqual(['unleash-client-go:4.0.0'])
  })
})
