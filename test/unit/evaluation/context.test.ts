/**
 * What a rule reads of a request (src/evaluation/context.ts): the SDK's resolveContextValue, and
 * an Evaluation's clock, randomness, parsed addresses and prepared ids, and whether the answer
 * used anything besides the context (then it is never kept).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { always, Evaluation, never, resolveContextValue } from '../../../src/evaluation/context.js'
import { murmurRest, prefixOf, prepareRest } from '../../../src/evaluation/murmur.js'

afterEach(() => {
  vi.restoreAllMocks()
  vi.useRealTimers()
})

describe('resolveContextValue', () => {
  it.each([
    ['a top-level field', { userId: 'u' }, 'userId', 'u'],
    ['a property when there is no top-level field', { properties: { plan: 'pro' } }, 'plan', 'pro'],
    ['the top-level field before the property of the same name', { plan: 'top', properties: { plan: 'prop' } }, 'plan', 'top'],
    ['an empty top-level string (?? keeps it: it is not undefined or null)', { plan: '', properties: { plan: 'prop' } }, 'plan', ''],
    ['a number as a string', { age: 42 }, 'age', '42'],
    ['a boolean as a string', { properties: { beta: true } }, 'beta', 'true'],
    ['null: absent', { userId: null }, 'userId', undefined],
    ['a null top-level field falls back to the property', { plan: null, properties: { plan: 'prop' } }, 'plan', 'prop'],
    ['absent everywhere', { properties: {} }, 'plan', undefined],
    ['no properties at all', {}, 'plan', undefined],
  ])('%s', (_name, context, field, expected) => {
    expect(resolveContextValue(context, field)).toBe(expected)
  })
})

describe('Evaluation', () => {
  it('reads the time from currentTime without drawing; without it, the clock once per request, and draws', () => {
    const given = new Evaluation({ currentTime: '2024-02-29T12:00:00.000Z' })
    expect(given.time()).toBe(Date.parse('2024-02-29T12:00:00.000Z'))
    expect(given.drew).toBe(false)
    vi.useFakeTimers({ now: 1_000_000 })
    const clock = new Evaluation({})
    expect(clock.time()).toBe(1_000_000)
    vi.setSystemTime(2_000_000)
    expect(clock.time()).toBe(1_000_000)
    expect(clock.drew).toBe(true)
    expect(new Evaluation({}).time()).toBe(2_000_000)
  })

  it('draws random numbers as the SDK does (Math.random), and says so', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.25)
    const e = new Evaluation({ userId: 'u' })
    expect(e.drew).toBe(false)
    expect(e.random()).toBe(0.25)
    expect(e.drew).toBe(true)
  })

  it('parses an address once per request: IPv4, IPv6, or null for anything else', () => {
    const e = new Evaluation({})
    const v4 = e.address('10.0.0.1')
    expect(v4?.correctForm()).toBe('10.0.0.1')
    expect(e.address('10.0.0.1')).toBe(v4)
    expect(e.address('::1')?.correctForm()).toBe('::1')
    expect(e.address('not-an-ip')).toBeNull()
    expect(e.address('1.2.3')).toBeNull()
  })

  it('prepares an id for hashing once, and again for another id; the hash is the same as unprepared', () => {
    const e = new Evaluation({})
    const a = e.rest('user-1')
    expect(e.rest('user-1')).toBe(a)
    const b = e.rest('user-2')
    expect(b).not.toBe(a)
    const group = prefixOf('group:', 0)
    expect(murmurRest(group, b)).toBe(murmurRest(group, prepareRest('user-2')))
  })

  it('has a memo for shared constraints only when asked for slots', () => {
    expect(new Evaluation({}).memo).toBeUndefined()
    expect(new Evaluation({}, 3).memo).toEqual(new Uint8Array(3))
  })
})

describe('the tests that read nothing', () => {
  it('never and always read nothing and draw nothing', () => {
    const e = new Evaluation(new Proxy({}, { get: () => { throw new Error('read') } }))
    expect(never(e)).toBe(false)
    expect(always(e)).toBe(true)
    expect(e.drew).toBe(false)
  })
})
