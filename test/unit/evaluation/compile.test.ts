/**
 * The rule families put together (src/evaluation/compile.ts): the first strategy whose
 * constraints and rule hold decides, its variants before the feature's; a strategy the SDK
 * does not know never matches; dependencies; the outcome table; constraints shared across
 * features tested once per request; which features are answered once for everyone.
 */
import { describe, expect, it } from 'vitest'
import { compileFeatures, compileState, staticOutcome } from '../../../src/evaluation/compile.js'
import { Evaluation, STATIC_CONTEXT } from '../../../src/evaluation/context.js'
import { OFF, ON, variantAnswer } from '../../../src/evaluation/variants.js'
import { frontendContext } from '../../../src/frontend/context.js'
import { clientFeature } from '../../helpers/frontend-arbitraries.js'
import { Oracle } from '../../helpers/sdk-oracle.js'

const feature = clientFeature
const strategy = (name: string, parameters: Record<string, string> = {}, constraints: unknown[] = [], variants: unknown[] = []) => ({ name, parameters, constraints, variants, segments: [] })
const variant = (name: string, weight: number, more: object = {}) => ({ name, weight, weightType: 'variable' as const, stickiness: 'default', ...more })
const userIn = (...values: string[]) => ({ contextName: 'userId', operator: 'IN', values })

describe('compileState: what a feature answers, as unleash-client answers it', () => {
  const features = [
    feature({ name: 'first-match', strategies: [strategy('userWithId', { userIds: 'a' }, [], [variant('sv', 1000)]), strategy('default')], variants: [variant('fv', 1000)] }),
    feature({ name: 'unknown-strategy', strategies: [strategy('my-custom'), strategy('default', {}, [userIn('a')])] }),
    feature({ name: 'only-unknown', strategies: [strategy('my-custom')] }),
    feature({ name: 'off', enabled: false, strategies: [strategy('default')], variants: [variant('fv', 1000)] }),
    feature({ name: 'parent', strategies: [strategy('default', {}, [userIn('a', 'b')], [variant('blue', 1000, { overrides: [{ contextName: 'userId', values: ['b'] }] }), variant('red', 0, { overrides: [{ contextName: 'userId', values: ['b'] }] })])] }),
    feature({ name: 'child-of-blue', dependencies: [{ feature: 'parent', enabled: true, variants: ['blue'] }] }),
    feature({ name: 'child-of-off-parent', dependencies: [{ feature: 'parent', enabled: false }] }),
    feature({ name: 'child-of-missing', dependencies: [{ feature: 'missing', enabled: true, variants: [] }] }),
    feature({ name: 'grandchild', dependencies: [{ feature: 'child-of-blue', enabled: true, variants: [] }] }),
  ]
  const expected: Record<string, Record<string, string>> = {
    a: { 'first-match': 'sv', 'unknown-strategy': 'on', 'only-unknown': 'off', off: 'off', parent: 'blue', 'child-of-blue': 'on', 'child-of-off-parent': 'off', 'child-of-missing': 'off', grandchild: 'off' },
    b: { 'first-match': 'fv', 'unknown-strategy': 'off', 'only-unknown': 'off', off: 'off', parent: 'blue', 'child-of-blue': 'on', 'child-of-off-parent': 'off', 'child-of-missing': 'off', grandchild: 'off' },
    c: { 'first-match': 'fv', 'unknown-strategy': 'off', 'only-unknown': 'off', off: 'off', parent: 'off', 'child-of-blue': 'off', 'child-of-off-parent': 'on', 'child-of-missing': 'off', grandchild: 'off' },
  }
  const label = (v: { feature_enabled: boolean; name: string }) => (!v.feature_enabled ? 'off' : v.name === 'disabled' ? 'on' : v.name)

  it.each(Object.keys(expected))('for user %s', async (userId) => {
    const state = { features, segments: [] }
    const compiled = compileFeatures(state)
    const oracle = await Oracle.create(state)
    try {
      const context = frontendContext({ userId }, '127.0.0.1')
      const ours = Object.fromEntries(compiled.map((f) => [f.name, label(variantAnswer(f, f.outcome(new Evaluation({ ...STATIC_CONTEXT, ...context }))))]))
      const theirs = Object.fromEntries(features.map((f) => [f.name, label(oracle.variant(f.name, context))]))
      expect(ours).toEqual(theirs)
      expect(ours).toEqual(expected[userId])
    } finally {
      oracle.destroy()
    }
  })

  it('outcomes: off 0, on 1, then the strategies\' variants in order, then the feature\'s (a disabled feature\'s too)', () => {
    const [first, off] = compileFeatures({ features: [features[0]!, features[3]!], segments: [] })
    expect(first!.choices.map((c) => [c.name, c.fromStrategy])).toEqual([['sv', true], ['fv', false]])
    expect(first!.outcome(new Evaluation({ userId: 'a' }))).toBe(2)
    expect(first!.outcome(new Evaluation({ userId: 'z' }))).toBe(3)
    expect(off!.choices.map((c) => c.name)).toEqual(['fv'])
    expect(off!.outcome(new Evaluation({}))).toBe(OFF)
    expect(compileFeatures({ features: [feature({})], segments: [] })[0]!.outcome(new Evaluation({}))).toBe(ON)
  })

  it('keeps the state\'s order, and gives a memo slot to each constraint several strategies share', () => {
    const shared = userIn('a')
    const { features: compiled, memoSlots } = compileState({
      features: [
        feature({ name: 'z', strategies: [strategy('default', {}, [shared])] }),
        feature({ name: 'a', strategies: [strategy('default', {}, [{ ...shared }, userIn('once')])] }),
        feature({ name: 'm', strategies: [strategy('default', {}, [], [])], variants: [] }),
      ],
      segments: [],
    })
    expect(compiled.map((f) => f.name)).toEqual(['z', 'a', 'm'])
    expect(memoSlots).toBe(1)
  })

  it('a segment\'s constraints apply to every strategy that uses it; a segment that does not exist fails the strategy', () => {
    const segmented = (segments: number[]) => feature({ strategies: [{ ...strategy('default'), segments }] })
    const [known, missing] = compileFeatures({ features: [segmented([1]), segmented([2])], segments: [{ id: 1, name: 's', constraints: [userIn('a')] }] })
    expect(known!.outcome(new Evaluation({ userId: 'a' }))).toBe(ON)
    expect(known!.outcome(new Evaluation({ userId: 'b' }))).toBe(OFF)
    expect(missing!.outcome(new Evaluation({ userId: 'a' }))).toBe(OFF)
  })
})

describe('staticOutcome: which features are answered once for everyone', () => {
  it.each([
    ['off', feature({ enabled: false, strategies: [strategy('flexibleRollout', { rollout: '50' })] }), 0],
    ['on without strategies', feature({}), 1],
    ['the default strategy', feature({ strategies: [strategy('default')] }), 1],
    ['a rollout at 100 % with default stickiness', feature({ strategies: [strategy('flexibleRollout', { rollout: '100', stickiness: 'default', groupId: 'f' })] }), 1],
    ['a rollout at 0 %', feature({ strategies: [strategy('flexibleRollout', { rollout: '0', stickiness: 'default', groupId: 'f' })] }), 0],
    ['a strategy the SDK does not know', feature({ strategies: [strategy('custom')] }), 0],
    ['one variant with all the weight', feature({ variants: [variant('a', 1000), variant('b', 0)] }), 2],
    ['variants whose weights are all zero', feature({ variants: [variant('a', 0)] }), 1],
    ['a dependency on a parent that is off for everyone', feature({ name: 'child', dependencies: [{ feature: 'parent', enabled: true, variants: [] }] }), 0],
    ['a rollout at 50 %', feature({ strategies: [strategy('flexibleRollout', { rollout: '50', stickiness: 'default', groupId: 'f' })] }), undefined],
    ['a constraint', feature({ strategies: [strategy('default', {}, [{ contextName: 'userId', operator: 'IN', values: ['a'] }])] }), undefined],
    ['a rollout at 100 % on a custom field (on only when the field is there)', feature({ strategies: [strategy('flexibleRollout', { rollout: '100', stickiness: 'plan', groupId: 'f' })] }), undefined],
    ['two variants', feature({ variants: [variant('a', 500), variant('b', 500)] }), undefined],
    ['one variant with an override', feature({ variants: [variant('a', 1000, { overrides: [{ contextName: 'userId', values: ['x'] }] }), variant('b', 0)] }), undefined],
    ['gradualRolloutRandom at 40 %', feature({ strategies: [strategy('gradualRolloutRandom', { percentage: '40' })] }), undefined],
  ])('%s', (_name, f, expected) => {
    const parent = feature({ name: 'parent', enabled: false })
    const compiled = compileFeatures({ features: [parent, f], segments: [] })
    expect(staticOutcome(compiled[1]!)).toBe(expected)
  })
})
