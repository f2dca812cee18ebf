/**
 * The built-in strategies' own rules (src/evaluation/strategies.ts): each, compiled alone, holds
 * exactly when the official Node SDK (unleash-client) enables a feature with that one strategy
 * and no constraint; randomness is replaced by one constant on both sides (as in the
 * differential test), so that random strategies are compared exactly too.
 */
import { hostname } from 'node:os'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { always, never } from '../../../src/evaluation/context.js'
import { compileStrategyRule } from '../../../src/evaluation/strategies.js'
import { clientFeature, requestContexts, strategyKind } from '../../helpers/frontend-arbitraries.js'
import { agreesWithSdk } from '../../helpers/sdk-oracle.js'

const withStrategy = (name: string, strategy: { name: string; parameters: Record<string, string> }) =>
  clientFeature({ name, strategies: [{ ...strategy, constraints: [], variants: [], segments: [] }] })

describe('compileStrategyRule answers what unleash-client answers', () => {
  it('for any built-in strategy (and one the SDK does not know), any parameters and any context', async () => {
    let compared = 0
    await fc.assert(
      fc.asyncProperty(fc.array(strategyKind('f'), { minLength: 1, maxLength: 12 }), requestContexts(10), async (list, requests) => {
        const strategies = list as { name: string; parameters: Record<string, string> }[]
        const rules = strategies.map((s) => compileStrategyRule(s.name, s.parameters))
        const features = strategies.map((s, i) => withStrategy(`s${i}`, s))
        compared += await agreesWithSdk(features, requests, (i, e) => rules[i]?.(e) ?? false, (answer) => answer.feature_enabled, (i) => strategies[i])
      }),
      { numRuns: 150 }
    )
    expect(compared).toBeGreaterThan(1000)
  }, 60_000)
})

describe('what a strategy reads ahead of time', () => {
  it.each([
    ['default: on for everyone', 'default', {}, always],
    ['a rollout at 0 % or not a number: off for everyone', 'flexibleRollout', { rollout: 'abc' }, never],
    ['a rollout at 100 % with default stickiness: on for everyone', 'flexibleRollout', { rollout: '100', stickiness: 'default' }, always],
    ['gradualRolloutRandom at 100 %: on for everyone', 'gradualRolloutRandom', { percentage: '100' }, always],
    ['userWithId without ids: off for everyone', 'userWithId', { userIds: '' }, never],
    ['remoteAddress without IPs: off for everyone', 'remoteAddress', { IPs: '' }, never],
    ['applicationHostname naming this host, in any case: on for everyone', 'applicationHostname', { hostNames: `elsewhere, ${hostname().toUpperCase()}` }, always],
  ])('%s', (_name, strategy, parameters, expected) => {
    expect(compileStrategyRule(strategy, parameters)).toBe(expected)
  })

  it('a strategy the SDK does not know has no rule (it never matches)', () => {
    expect(compileStrategyRule('my-custom', { anything: 'x' })).toBeUndefined()
  })
})
