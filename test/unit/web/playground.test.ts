/** The playground's answers in words, and the request its form makes. */
import { describe, expect, it } from 'vitest'
import type { PlaygroundFeature, PlaygroundStrategy } from '../../../web/features/playground/api'
import { contextValue, explainConstraint, flagVerdict, strategyName, strategyVerdict } from '../../../web/features/playground/explain'
import { playgroundRequest } from '../../../web/features/playground/playground'

const strategy = (over: Partial<PlaygroundStrategy>): PlaygroundStrategy => ({
  name: 'flexibleRollout', id: 's', disabled: false, parameters: { rollout: '50' }, result: { enabled: false, evaluationStatus: 'complete' }, constraints: [], segments: [], links: { edit: '' }, ...over,
})
const flag = (over: Partial<PlaygroundFeature>): PlaygroundFeature => ({
  isEnabled: false, isEnabledInCurrentEnvironment: true, hasUnsatisfiedDependency: false, variant: { name: 'disabled', enabled: false }, variants: [], name: 'f', projectId: 'default', strategies: { result: false, data: [] }, ...over,
})

describe('the playground in words', () => {
  it('a constraint, its result, and what the context held', () => {
    const context = { appName: 'a', userId: 'u-1', properties: { country: 'US', plan: '' } }
    expect(explainConstraint({ contextName: 'country', operator: 'IN', values: ['NL', 'BE'], result: false }, context)).toBe('country is one of NL, BE: no (country is US)')
    expect(explainConstraint({ contextName: 'plan', operator: 'IN', values: ['gold'], inverted: true, result: true }, context)).toBe('plan NOT is one of gold: yes (plan is not set)')
    expect(explainConstraint({ contextName: 'currentTime', operator: 'DATE_AFTER', value: '2030-01-01T00:00:00Z', result: false }, context)).toBe('currentTime date after 2030-01-01T00:00:00Z: no (currentTime not given: now)')
    expect(contextValue({ userId: 'top', properties: { userId: 'property' } }, 'userId')).toBe('top')
  })

  it("a strategy's name and verdict; a flag's answer and why", () => {
    expect(strategyName(strategy({ title: 'Benelux' }))).toBe('Gradual rollout 50% “Benelux”')
    expect(strategyVerdict(strategy({ result: { enabled: true, evaluationStatus: 'complete', variant: { name: 'blue', enabled: true } } }))).toBe('matched, variant blue')
    expect(strategyVerdict(strategy({ disabled: true, result: { enabled: 'unknown', evaluationStatus: 'unevaluated' } }))).toBe('disabled: not evaluated')
    expect(strategyVerdict(strategy({ name: 'custom', result: { enabled: 'unknown', evaluationStatus: 'incomplete' } }))).toMatch(/^cannot be evaluated here/)
    const matched = strategy({ result: { enabled: true, evaluationStatus: 'complete' } })
    expect(flagVerdict(flag({ isEnabled: true, variant: { name: 'blue', enabled: true }, strategies: { result: true, data: [matched] } }), 'dev')).toBe('On: Gradual rollout 50% matched; variant blue')
    expect(flagVerdict(flag({ isEnabled: true, strategies: { result: true, data: [] } }), 'dev')).toBe('On: it has no strategy, so it is on for everyone')
    expect(flagVerdict(flag({ isEnabledInCurrentEnvironment: false }), 'dev')).toBe('Off: switched off in dev')
    expect(flagVerdict(flag({ hasUnsatisfiedDependency: true }), 'dev')).toBe('Off: a flag it depends on is not as it requires')
    expect(flagVerdict(flag({ strategies: { result: 'unknown', data: [] } }), 'dev')).toMatch(/^Off here/)
    expect(flagVerdict(flag({}), 'dev')).toBe('Off: no strategy matched')
  })

  it('the form sends built-in fields at the top level, the others as properties, and leaves out empty ones', () => {
    expect(playgroundRequest('dev', '', [{ field: 'appName', value: 'web' }, { field: 'userId', value: '' }, { field: 'country', value: 'NL' }, { field: 'sessionId', value: 's' }]))
      .toEqual({ environment: 'dev', projects: '*', context: { appName: 'web', sessionId: 's', properties: { country: 'NL' } } })
    expect(playgroundRequest('dev', 'p', [{ field: 'appName', value: 'web' }]).projects).toEqual(['p'])
  })
})
