import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/errors.js'
import { applyPatches, type Variant, validateVariants } from '../../src/variants/variants.js'

const variant = (name: string, extra: Partial<Variant> = {}): Variant => ({
  name,
  weight: 0,
  weightType: 'variable',
  stickiness: 'default',
  ...extra,
})

function refusal (fn: () => unknown): ApiError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).status).toBe(400)
    return error as ApiError
  }
  throw new Error('expected a 400')
}

describe('validateVariants', () => {
  it('fills weightType and stickiness, keeps absent payload and overrides absent', () => {
    expect(validateVariants([{ name: 'a', weight: 5 }], 1000, '/variants')).toEqual([
      { name: 'a', weight: 1000, weightType: 'variable', stickiness: 'default' },
    ])
  })

  it('keeps payload, overrides and order as given', () => {
    const input = [
      { name: 'z', weight: 10, weightType: 'fix', payload: { type: 'number', value: '-1.5e3' } },
      { name: 'a', weight: 0, stickiness: 'userId', overrides: [{ contextName: 'userId', values: ['1'] }] },
    ]
    expect(validateVariants(input, 1000, '/variants')).toEqual([
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
    const error = refusal(() => validateVariants([item], 1000, '/variants'))
    expect(error.details.map((d) => d.path)).toContain(path)
  })

  it('refuses duplicate names (case-sensitive) and accepts names differing in case', () => {
    const error = refusal(() =>
      validateVariants([{ name: 'a', weight: 1 }, { name: 'a', weight: 1 }], 1000, '/body')
    )
    expect(error.details).toEqual([{ path: '/body/1/name', message: '/body/1/name "a" is not unique' }])
    expect(validateVariants([{ name: 'a', weight: 1 }, { name: 'A', weight: 1 }], 1000, '/body')).toHaveLength(2)
  })

  it('refuses more than the maximum number of variants and a non-array', () => {
    refusal(() => validateVariants([{ name: 'a', weight: 1 }, { name: 'b', weight: 1 }], 1, '/variants'))
    refusal(() => validateVariants({ name: 'a' }, 1000, '/variants'))
  })

  it('applies the weight rule after validation', () => {
    const error = refusal(() => validateVariants([{ name: 'a', weight: 1000, weightType: 'fix' }], 1000, '/v'))
    expect(error.message).toBe('There must be at least one "variable" variant')
  })
})

describe('applyPatches', () => {
  const base = [variant('a', { weight: 500 }), variant('b', { weight: 500 })]

  it('applies operations in order without touching the input', () => {
    const copy = structuredClone(base)
    const out = applyPatches(base, [
      { op: 'add', path: '/-', value: variant('c') },
      { op: 'move', from: '/2', path: '/0' },
      { op: 'replace', path: '/1/stickiness', value: 'userId' },
      { op: 'copy', from: '/1/stickiness', path: '/2/stickiness' },
      { op: 'remove', path: '/0' },
    ])
    expect((out as Variant[]).map((v) => [v.name, v.stickiness])).toEqual([
      ['a', 'userId'],
      ['b', 'userId'],
    ])
    expect(base).toEqual(copy)
  })

  it('replaces the whole document with path ""', () => {
    expect(applyPatches(base, [{ op: 'replace', path: '', value: [] }])).toEqual([])
  })

  it.each([
    [[{ op: 'remove', path: '/5' }], 0],
    [[{ op: 'add', path: '/-', value: 1 }, { op: 'replace', path: '/9/name', value: 'x' }], 1],
    [[{ op: 'add', path: '/7', value: {} }], 0],
    [[{ op: 'remove', path: '/0/payload' }], 0],
    [[{ op: 'move', from: '/0', path: '/0/overrides' }], 0],
    [[{ op: 'copy', from: '/4', path: '/0' }], 0],
  ] as const)('names the failing operation: %j fails at %i', (ops, index) => {
    const error = refusal(() => applyPatches(base, ops as never))
    expect(error.message).toMatch(new RegExp(`^Operation ${index} \\(`))
    expect(error.details[0]?.path).toBe(`/body/${index}`)
  })
})
