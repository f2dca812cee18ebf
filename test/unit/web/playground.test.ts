/** The playground's answers in words, and the request its form makes. */
import { describe, expect, it } from 'vitest'
import type { PlaygroundFeature, PlaygroundStrategy } from '../../../web/features/playground/api'
import { contextValue, explainConstraint, flagVerdict, strategyName, strategyVerdict } from '../../../web/features/playground/explain'
import { playgroundRequest, previewAnswers } from '../../../web/features/playground/playground'

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

  it("a change request's preview as the playground's answers: one per combination of the context's values, each flag in it", () => {
    const entry = (name: string, userId: string, isEnabled: boolean) => ({ ...flag({ name, isEnabled }), environment: 'production', context: { userId, appName: 'a' } })
    const answer = {
      input: { environments: ['production'], projects: ['p'], context: { appName: 'a', userId: 'u1,u2' } },
      features: ['f', 'g'].map((name) => ({ name, projectId: 'p', environments: { production: [entry(name, 'u1', name === 'f'), entry(name, 'u2', false)] } })),
    }
    const answers = previewAnswers(answer, 'production', 'p')
    expect(answers.map((a) => a.input)).toEqual([
      { environment: 'production', projects: ['p'], context: { userId: 'u1', appName: 'a' } },
      { environment: 'production', projects: ['p'], context: { userId: 'u2', appName: 'a' } },
    ])
    expect(answers.map((a) => a.features.map((f) => [f.name, f.isEnabled]))).toEqual([[['f', true], ['g', false]], [['f', false], ['g', false]]])
    expect(answers[0]!.features[0]).toEqual(flag({ name: 'f', isEnabled: true }))
    // No flag in the project: one empty answer for the context as sent.
    expect(previewAnswers({ input: answer.input, features: [] }, 'production', 'p')).toEqual([{ input: { environment: 'production', projects: ['p'], context: answer.input.context }, features: [] }])
  })
})
