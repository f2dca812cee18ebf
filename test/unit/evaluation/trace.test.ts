/**
 * The trace mode (src/evaluation/trace.ts): each strategy, constraint and segment with its own
 * result; what the server cannot evaluate (disabled strategies, custom ones, applicationHostname);
 * strategies of a flag that is off evaluated as if on; the verdict, the variant and the variants
 * it was picked from; dependencies judged by the parent's answer, as the SDK judges them.
 */
import { hostname } from 'node:os'
import { describe, expect, it } from 'vitest'
import { Evaluation } from '../../../src/evaluation/context.js'
import { type TraceFeature, Tracer } from '../../../src/evaluation/trace.js'
import { OFF, ON } from '../../../src/evaluation/variants.js'
import { clientFeature } from '../../helpers/frontend-arbitraries.js'

const strategy = (name: string, more: object = {}) => ({ name, parameters: {}, constraints: [], variants: [], segments: [], ...more })
const variant = (name: string, weight = 1000) => ({ name, weight, weightType: 'variable' as const, stickiness: 'default' })
const country = (...values: string[]) => ({ contextName: 'country', operator: 'IN', values })
const feature = (over: Partial<TraceFeature>) => clientFeature(over as never) as TraceFeature

const trace = (features: TraceFeature[], context: object, segments = [{ id: 1, name: 'beta', constraints: [{ contextName: 'version', operator: 'SEMVER_GTE', value: '2.0.0' }] }]) =>
  new Tracer({ features, segments }).trace(new Evaluation({ appName: 'a', ...context }))

describe('a strategy, rule by rule', () => {
  it('every constraint and segment has its result; the strategy matches when all hold and its rule does', () => {
    const [t] = trace([feature({ name: 'f', strategies: [strategy('default', { constraints: [country('NL'), { contextName: 'plan', operator: 'IN', values: ['gold'] }], segments: [1] })] })], { country: 'NL', plan: 'free', version: '2.1.0' })
    expect(t!.strategies[0]).toMatchObject({
      result: { evaluationStatus: 'complete', enabled: false },
      constraints: [{ result: true }, { result: false }],
      segments: [{ id: 1, name: 'beta', result: true, constraints: [{ result: true }] }],
    })
    expect([t!.result, t!.isEnabled, t!.outcome]).toEqual([false, false, OFF])
  })

  it('a disabled strategy is listed, its constraints shown, never evaluated; what the server cannot evaluate is incomplete, disabled or not', () => {
    const [t] = trace([feature({
      name: 'f',
      strategies: [
        strategy('default', { disabled: true, constraints: [country('NL')] }),
        strategy('my-custom', { constraints: [country('NL')] }),
        strategy('my-custom', { constraints: [country('BE')] }),
        strategy('applicationHostname', { parameters: { hostNames: hostname() } }),
        strategy('my-custom', { disabled: true }),
      ],
    })], { country: 'NL' })
    expect(t!.strategies.map((s) => s.result)).toEqual([
      { evaluationStatus: 'unevaluated', enabled: 'unknown' },
      { evaluationStatus: 'incomplete', enabled: 'unknown' },
      { evaluationStatus: 'incomplete', enabled: false },
      // The SDK on this host would say yes; the playground cannot know the SDK's host.
      { evaluationStatus: 'incomplete', enabled: 'unknown' },
      { evaluationStatus: 'incomplete', enabled: 'unknown' },
    ])
    expect(t!.strategies[0]!.constraints).toEqual([{ constraint: country('NL'), result: true }])
    expect([t!.result, t!.isEnabled]).toEqual(['unknown', false])
  })

  it("picks a strategy's variant whether or not it matched; the first match decides, else the flag's variants", () => {
    const sv = strategy('default', { constraints: [country('NL')], variants: [variant('blue')] })
    const [miss, hit] = ['US', 'NL'].map((c) => trace([feature({ name: 'f', strategies: [sv, strategy('default')], variants: [variant('red')] })], { country: c })[0]!)
    expect(miss!.strategies[0]!.result).toMatchObject({ enabled: false, variant: { name: 'blue' }, variants: [variant('blue')] })
    expect([miss!.isEnabled, miss!.choices[miss!.outcome - 2]!.name, miss!.variants]).toEqual([true, 'red', [variant('red')]])
    expect([hit!.isEnabled, hit!.choices[hit!.outcome - 2]!.name, hit!.variants]).toEqual([true, 'blue', [variant('blue')]])
  })

  it('a flag off in the environment has its strategies evaluated, and is off; one without strategies is as on as its environment', () => {
    const [off, bare, bareOff] = trace([
      feature({ name: 'off', enabled: false, strategies: [strategy('default')] }),
      feature({ name: 'bare' }),
      feature({ name: 'bare-off', enabled: false }),
    ], {})
    expect([off!.result, off!.isEnabled, off!.outcome]).toEqual([true, false, OFF])
    expect([bare!.result, bare!.isEnabled, bare!.outcome]).toEqual([true, true, ON])
    expect([bareOff!.result, bareOff!.isEnabled]).toEqual([false, false])
  })

  it("constraints read as the SDK reads them where Unleash's playground differs: IN keeps case, a semver with a leading v never matches", () => {
    const [t] = trace([feature({
      name: 'f',
      strategies: [strategy('default', {
        constraints: [
          { contextName: 'country', operator: 'IN', values: ['nl'], caseInsensitive: true },
          { contextName: 'version', operator: 'SEMVER_GTE', value: '1.0.0' },
          { contextName: 'tenant', operator: 'STR_STARTS_WITH', values: ['4'] },
        ],
      })],
    })], { country: 'NL', version: 'v2.0.0', tenant: 42 })
    expect(t!.strategies[0]!.constraints.map((c) => c.result)).toEqual([false, false, true])
  })

  it('a segment the state lacks fails its strategy, as in the SDK', () => {
    const [t] = trace([feature({ name: 'f', strategies: [strategy('default', { segments: [7] })] })], {})
    expect(t!.strategies[0]).toMatchObject({ result: { enabled: false }, segments: [{ id: 7, name: '', result: false }] })
  })
})

describe('dependencies, as the SDK judges them', () => {
  const parent = feature({ name: 'parent', strategies: [strategy('default', { constraints: [country('NL')], variants: [variant('blue')] })] })
  const cases: [string, TraceFeature['dependencies'], string, boolean][] = [
    ['on', [{ feature: 'parent', enabled: true }], 'NL', true],
    ['on', [{ feature: 'parent', enabled: true }], 'US', false],
    ['on with blue', [{ feature: 'parent', enabled: true, variants: ['blue'] }], 'NL', true],
    ['on with red', [{ feature: 'parent', enabled: true, variants: ['red'] }], 'NL', false],
    // The parent is on in the environment but off for this context: satisfied (Unleash's playground says not).
    ['off', [{ feature: 'parent', enabled: false }], 'US', true],
    ['off', [{ feature: 'parent', enabled: false }], 'NL', false],
    ['a missing parent', [{ feature: 'missing', enabled: true }], 'NL', false],
  ]
  it.each(cases)('wanting the parent %s, for a user in %#', (_, dependencies, c, satisfied) => {
    const child = feature({ name: 'child', dependencies })
    const [, t] = trace([parent, child], { country: c })
    expect([t!.hasUnsatisfiedDependency, t!.isEnabled, t!.result]).toEqual([!satisfied, satisfied, true])
  })

  it('a parent that has parents never satisfies, and is judged once per evaluation', () => {
    const grand = feature({ name: 'grand', dependencies: [{ feature: 'parent', enabled: true }] })
    const child = feature({ name: 'child', dependencies: [{ feature: 'grand', enabled: true }] })
    const traced = trace([feature({ name: 'parent' }), grand, child], {})
    expect(traced.map((t) => t.hasUnsatisfiedDependency)).toEqual([false, false, true])
  })
})
