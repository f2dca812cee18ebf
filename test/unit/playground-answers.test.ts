/**
 * The playground's pure rules (src/playground/playground-answers.ts): the context the evaluator
 * reads, and the advanced playground's combinations, as Unleash 8.2 makes them.
 */
import { describe, expect, it } from 'vitest'
import { contextCombinations, evaluationContext } from '../../src/playground/playground-answers.js'

describe('evaluationContext', () => {
  it("adds the SDK's environment, keeps what is given, and leaves out empty values (top level and properties)", () => {
    expect(evaluationContext({ appName: 'a', userId: '', country: 'NL', properties: { plan: '', tier: 'x' } })).toEqual({ environment: 'default', appName: 'a', country: 'NL', properties: { tier: 'x' } })
    expect(evaluationContext({ appName: 'a', environment: 'staging', tenant: 7 })).toEqual({ environment: 'staging', appName: 'a', tenant: 7 })
  })
})

describe('contextCombinations', () => {
  it('splits every value at commas; properties join the top-level fields, a later member winning; appName last, the top-level one', () => {
    const { invalid, count, make } = contextCombinations({ appName: 'x,y', userId: 'u1,u2', properties: { plan: 'gold', userId: 'p1', appName: 'nope' }, country: 'NL,' })
    expect(invalid).toEqual([])
    expect(count).toBe(4)
    expect(make()).toEqual([
      { userId: 'p1', plan: 'gold', country: 'NL', appName: 'x' },
      { userId: 'p1', plan: 'gold', country: 'NL', appName: 'y' },
      { userId: 'p1', plan: 'gold', country: '', appName: 'x' },
      { userId: 'p1', plan: 'gold', country: '', appName: 'y' },
    ])
  })

  it('names the top-level members that are not strings, and leaves them out', () => {
    const { invalid, make } = contextCombinations({ appName: 'a', tenant: 5, beta: false, nested: { a: 1 }, userId: 'u' })
    expect(invalid).toEqual(['tenant', 'beta', 'nested'])
    expect(make()).toEqual([{ userId: 'u', appName: 'a' }])
  })

  it('counts the combinations without making them', () => {
    const context = { appName: 'a', ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, '1,2,3,4,5,6,7,8,9,10'])) }
    expect(contextCombinations(context).count / 1e40).toBeCloseTo(1)
  })
})
