import { describe, expect, it } from 'vitest'
import { validateVariants } from '../../src/variants/variants.js'
import { refusal } from '../helpers/rules.js'

const limits = { maxVariants: 1000, maxBytes: 1024 * 1024 }
const valid = (candidate: unknown, l = limits) => validateVariants(candidate, l).variants

describe('validateVariants', () => {
  it('fills weightType and stickiness, keeps absent payload and overrides absent', () => {
    expect(valid([{ name: 'a', weight: 5 }])).toEqual([
      { name: 'a', weight: 1000, weightType: 'variable', stickiness: 'default' },
    ])
  })

  it('keeps payload, overrides and order as given', () => {
    const input = [
      { name: 'z', weight: 10, weightType: 'fix', payload: { type: 'number', value: '-1.5e3' } },
      { name: 'a', weight: 0, stickiness: 'userId', overrides: [{ contextName: 'userId', values: ['1'] }] },
    ]
    expect(valid(input)).toEqual([
      { name: 'z', weight: 10, weightType: 'fix', stickiness: 'default', payload: { type: 'number', value: '-1.5e3' } },
      {
        name: 'a',
        weight: 990,
        weightType: 'variable',
        stickiness: 'userId',
        overrides: [{ contextName: 'userId', values: ['1'] }],
      },
    ])
  })

  it('serialises in one member order whatever order the input had, so equal variants give equal text', () => {
    const a = validateVariants([{ stickiness: 's', weight: 1, name: 'x', payload: { value: 'v', type: 'string' } }], limits)
    const b = validateVariants([{ name: 'x', payload: { type: 'string', value: 'v' }, weight: 1, stickiness: 's' }], limits)
    expect(a.json).toBe(b.json)
    expect(a.json).toBe('[{"name":"x","weight":1000,"weightType":"variable","stickiness":"s","payload":{"type":"string","value":"v"}}]')
  })

  it.each([
    ['weight as a string', { name: 'a', weight: '10' }, '/variants/0/weight'],
    ['weight not an integer', { name: 'a', weight: 1.5 }, '/variants/0/weight'],
    ['weight over 1000', { name: 'a', weight: 1001 }, '/variants/0/weight'],
    ['weight negative', { name: 'a', weight: -1 }, '/variants/0/weight'],
    ['weight missing', { name: 'a' }, '/variants/0/weight'],
    ['name missing', { weight: 1 }, '/variants/0/name'],
    ['name not URL-friendly', { name: 'a b', weight: 1 }, '/variants/0/name'],
    ['name "."', { name: '.', weight: 1 }, '/variants/0/name'],
    ['name too long', { name: 'n'.repeat(101), weight: 1 }, '/variants/0/name'],
    ['weightType unknown', { name: 'a', weight: 1, weightType: 'fixed' }, '/variants/0/weightType'],
    ['stickiness empty', { name: 'a', weight: 1, stickiness: '' }, '/variants/0/stickiness'],
    ['stickiness a number', { name: 'a', weight: 1, stickiness: 5 }, '/variants/0/stickiness'],
    ['unknown property', { name: 'a', weight: 1, color: 'red' }, '/variants/0/color'],
    ['payload type unknown', { name: 'a', weight: 1, payload: { type: 'xml', value: '<a/>' } }, '/variants/0/payload/type'],
    ['payload value empty', { name: 'a', weight: 1, payload: { type: 'string', value: '' } }, '/variants/0/payload/value'],
    ['payload value not a string', { name: 'a', weight: 1, payload: { type: 'string', value: 5 } }, '/variants/0/payload/value'],
    ['json payload not JSON', { name: 'a', weight: 1, payload: { type: 'json', value: '{x' } }, '/variants/0/payload/value'],
    ['json payload a scalar', { name: 'a', weight: 1, payload: { type: 'json', value: '12' } }, '/variants/0/payload/value'],
    ['number payload "abc"', { name: 'a', weight: 1, payload: { type: 'number', value: 'abc' } }, '/variants/0/payload/value'],
    ['number payload infinite', { name: 'a', weight: 1, payload: { type: 'number', value: '1e400' } }, '/variants/0/payload/value'],
    ['number payload hex', { name: 'a', weight: 1, payload: { type: 'number', value: '0x10' } }, '/variants/0/payload/value'],
    ['override without values', { name: 'a', weight: 1, overrides: [{ contextName: 'u' }] }, '/variants/0/overrides/0/values'],
    ['override values not strings', { name: 'a', weight: 1, overrides: [{ contextName: 'u', values: [1] }] }, '/variants/0/overrides/0/values/0'],
    ['override contextName empty', { name: 'a', weight: 1, overrides: [{ contextName: '', values: [] }] }, '/variants/0/overrides/0/contextName'],
    ['variant not an object', 'a', '/variants/0'],
  ])('refuses %s, pointing at %s', (_label, item, path) => {
    const error = refusal(() => validateVariants([item], limits))
    expect(error.details.map((d) => d.path)).toContain(path)
    expect(error.details[0]?.message.startsWith(path)).toBe(true)
  })

  it('roots paths where the route says the document is (/body for a replacement)', () => {
    const error = refusal(() => validateVariants([{ name: 'a', weight: 'x' }], limits), '/body')
    expect(error.details).toEqual([{ path: '/body/0/weight', message: '/body/0/weight must be integer' }])
  })

  it('refuses duplicate names (case-sensitive) and accepts names differing in case', () => {
    const error = refusal(() => validateVariants([{ name: 'a', weight: 1 }, { name: 'a', weight: 1 }], limits), '/body')
    expect(error.details).toEqual([{ path: '/body/1/name', message: '/body/1/name "a" is not unique' }])
    expect(valid([{ name: 'a', weight: 1 }, { name: 'A', weight: 1 }])).toHaveLength(2)
  })

  it('refuses more than the maximum number of variants, more than the maximum bytes, and a non-array', () => {
    refusal(() => validateVariants([{ name: 'a', weight: 1 }, { name: 'b', weight: 1 }], { ...limits, maxVariants: 1 }))
    const big = [{ name: 'a', weight: 1, payload: { type: 'string', value: 'x'.repeat(200) } }]
    const error = refusal(() => validateVariants(big, { ...limits, maxBytes: 200 }))
    expect(error.message).toMatch(/^The variants would be \d+ bytes, more than the limit of 200$/)
    expect(error.details[0]?.path).toBe('/variants')
    expect(refusal(() => validateVariants({ name: 'a' }, limits)).details[0]?.path).toBe('/variants')
  })

  it('applies the weight rule after validation, with Unleash\'s sentence first', () => {
    const error = refusal(() => validateVariants([{ name: 'a', weight: 1000, weightType: 'fix' }], limits))
    expect(error.message).toBe('There must be at least one "variable" variant')
    expect(error.details[0]?.message).toBe('There must be at least one "variable" variant')
  })
})
