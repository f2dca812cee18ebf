/**
 * The pure rules of the frontend API and OFREP: how a request's fields become a context, how an
 * evaluation becomes an OFREP answer, how an answer is assembled, kept and lent a buffer. (The
 * evaluator's own rules are tested in test/unit/evaluation/.)
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ClientFeature } from '../../src/client/client.schemas.js'
import { compileFeatures } from '../../src/evaluation/compile.js'
import { Evaluation } from '../../src/evaluation/context.js'
import { OFF, type VariantAnswer, variantAnswer } from '../../src/evaluation/variants.js'
import { AnswerCache } from '../../src/frontend/answer-cache.js'
import { frontendContext, ofrepContext } from '../../src/frontend/context.js'
import { Engine } from '../../src/frontend/engine.js'
import { ofrepResult } from '../../src/frontend/ofrep.js'
import { AnswerBuffers } from '../../src/frontend/pooled-sending.js'

describe('frontendContext', () => {
  it.each([
    ['top-level fields stay at the top', { userId: 'u', sessionId: 's', currentTime: '2024-01-01T00:00:00Z', appName: 'web', environment: 'prod' }, { userId: 'u', sessionId: 's', currentTime: '2024-01-01T00:00:00Z', appName: 'web', environment: 'prod', remoteAddress: '10.0.0.1', properties: {} }],
    ['any other name is a property', { userId: 'u', plan: 'pro', 'x-y': '1' }, { userId: 'u', remoteAddress: '10.0.0.1', properties: { plan: 'pro', 'x-y': '1' } }],
    ['properties[name]=value is a property, and wins over the bare name', { plan: 'free', 'properties[plan]': 'pro', 'properties[userId]': 'p' }, { remoteAddress: '10.0.0.1', properties: { plan: 'pro', userId: 'p' } }],
    ['a properties object is read, and wins too', { plan: 'free', properties: { plan: 'pro', tier: 'gold' } }, { remoteAddress: '10.0.0.1', properties: { plan: 'pro', tier: 'gold' } }],
    ['empty values and non-strings are left out', { userId: '', sessionId: null, plan: '', properties: { a: '', b: 5, c: 'x' } }, { remoteAddress: '10.0.0.1', properties: { c: 'x' } }],
    ['remoteAddress given wins over the caller\'s', { remoteAddress: '192.168.1.1' }, { remoteAddress: '192.168.1.1', properties: {} }],
    ['a properties value that is not an object is a property named properties', { properties: 'x' }, { remoteAddress: '10.0.0.1', properties: { properties: 'x' } }],
  ])('%s', (_name, fields, expected) => {
    expect(frontendContext(fields as Record<string, unknown>, '10.0.0.1')).toEqual(expected)
  })

  it('never throws, always has properties and a remoteAddress, and keeps only non-empty strings', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer())))), fc.ipV4(), (fields, ip) => {
        const context = frontendContext(fields, ip)
        expect(typeof context.remoteAddress).toBe('string')
        for (const [name, value] of Object.entries(context)) {
          if (name === 'properties') {
            for (const v of Object.values(value as object)) expect(typeof v === 'string' && v !== '').toBe(true)
          } else {
            expect(typeof value === 'string' && value !== '').toBe(true)
          }
        }
      })
    )
  })
})

describe('ofrepContext', () => {
  it.each([
    ['targetingKey is the userId', { targetingKey: 'u1', plan: 'pro' }, { userId: 'u1', remoteAddress: '::1', properties: { plan: 'pro' } }],
    ['numbers and booleans become strings', { targetingKey: 42, beta: true, ratio: 0.5 }, { userId: '42', remoteAddress: '::1', properties: { beta: 'true', ratio: '0.5' } }],
    ['null means absent', { targetingKey: null, plan: null }, { remoteAddress: '::1', properties: {} }],
    ['properties as an object', { properties: { plan: 'pro' } }, { remoteAddress: '::1', properties: { plan: 'pro' } }],
  ])('%s', (_name, fields, expected) => {
    expect(ofrepContext(fields as Record<string, unknown>, '::1')).toEqual(expected)
  })

  it.each([
    [{ nested: { a: 1 } }, 'context.nested must be a string, a number or a boolean'],
    [{ list: [1] }, 'context.list must be a string, a number or a boolean'],
  ])('%j is INVALID_CONTEXT: %s', (fields, why) => {
    expect(ofrepContext(fields, '::1')).toBe(why)
  })
})

describe('ofrepResult', () => {
  const answer = (over: Partial<VariantAnswer>): VariantAnswer => ({ name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true, ...over })
  it.each([
    ['off: false, DISABLED', answer({ feature_enabled: false, featureEnabled: false }), { reason: 'DISABLED', variant: 'disabled', value: false }],
    ['on without variant: true, TARGETING_MATCH', answer({}), { reason: 'TARGETING_MATCH', variant: 'enabled', value: true }],
    ['a json payload: its object', answer({ name: 'cfg', enabled: true, payload: { type: 'json', value: '{"limit":3}' } }), { reason: 'SPLIT', variant: 'cfg', value: { limit: 3 } }],
    ['a json array', answer({ name: 'cfg', enabled: true, payload: { type: 'json', value: '[1,"a"]' } }), { reason: 'SPLIT', variant: 'cfg', value: [1, 'a'] }],
    ['a number payload: its number', answer({ name: 'n', enabled: true, payload: { type: 'number', value: '-1.5e2' } }), { reason: 'SPLIT', variant: 'n', value: -150 }],
    ['a string payload: its text', answer({ name: 's', enabled: true, payload: { type: 'string', value: 'hello' } }), { reason: 'SPLIT', variant: 's', value: 'hello' }],
    ['a csv payload: its text', answer({ name: 'c', enabled: true, payload: { type: 'csv', value: 'a,b' } }), { reason: 'SPLIT', variant: 'c', value: 'a,b' }],
    ['a variant without payload: its name', answer({ name: 'blue', enabled: true }), { reason: 'SPLIT', variant: 'blue', value: 'blue' }],
    ['a json payload that does not parse is its text, never an error', answer({ name: 'bad', enabled: true, payload: { type: 'json', value: '{' } }), { reason: 'SPLIT', variant: 'bad', value: '{' }],
  ])('%s', (_name, evaluation, expected) => {
    expect(ofrepResult('flag', evaluation, 'default')).toEqual({ key: 'flag', ...expected, metadata: { project: 'default' } })
  })

  it('metadata is empty without a project', () => {
    expect(ofrepResult('flag', answer({}), undefined).metadata).toEqual({})
  })
})

describe('AnswerBuffers', () => {
  it('reuses a large buffer only after it is given back; never pools small ones; keeps at most its bound', () => {
    const buffers = new AnswerBuffers(3 * 65_536)
    const a = buffers.take(40_000)
    expect(a.length).toBe(65_536)
    const b = buffers.take(40_000)
    expect(b).not.toBe(a)
    buffers.give(a)
    expect(buffers.take(50_000)).toBe(a)
    expect(buffers.take(50_000)).not.toBe(a)
    const small = buffers.take(1000)
    expect(small.length).toBe(1000)
    buffers.give(small)
    expect(buffers.take(1000)).not.toBe(small)
    const big = [buffers.take(100_000), buffers.take(100_000)]
    for (const x of big) buffers.give(x)
    expect(buffers.take(100_000)).toBe(big[0])
    expect(buffers.take(100_000)).not.toBe(big[1])
  })
})

describe('Engine: an answer assembled from pieces is the JSON of its toggles and flags', () => {
  const strategy = (name: string, parameters: Record<string, string> = {}) => ({ name, parameters, constraints: [], variants: [], segments: [] })
  // Kinds: answered once (on, off), evaluated per request (a rollout, two variants); long names
  // make runs of fixed features longer than what is merged into the pieces before them.
  const kind = fc.constantFrom('on', 'off', 'rollout', 'variants')
  const spec = fc.record({ kind, name: fc.string({ minLength: 1, maxLength: 400 }) })
  const features = (specs: { kind: string; name: string }[]): ClientFeature[] =>
    specs.map(({ kind: k, name }, i) => ({
      name: `${i}-${name}`,
      type: 'release',
      project: 'p',
      enabled: k !== 'off',
      stale: false,
      impressionData: i % 3 === 0,
      strategies: k === 'rollout' ? [strategy('flexibleRollout', { rollout: '50', stickiness: 'default', groupId: `g${i}` })] : [strategy('default')],
      variants: k === 'variants' ? [{ name: 'a', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: name } }, { name: 'b', weight: 500, weightType: 'variable', stickiness: 'default' }] : [],
      dependencies: [],
    }) as ClientFeature)

  it('for any order of fixed and per-request features, and any user', () => {
    fc.assert(
      fc.property(fc.array(spec, { maxLength: 30 }), fc.array(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 5 }), (specs, users) => {
        const state = { features: features(specs), segments: [] }
        const engine = new Engine(state)
        const compiled = compileFeatures(state)
        for (const userId of users) {
          const context = { appName: 'frontend-api', environment: 'default', userId, properties: {} }
          const outcomes = compiled.map((f) => f.outcome(new Evaluation(context)))
          const values = engine.evaluate(context).values
          const toggles = compiled.flatMap((f, i) => (outcomes[i] === OFF ? [] : [{ name: f.name, enabled: true, variant: variantAnswer(f, outcomes[i]!), impressionData: f.impressionData }]))
          expect(engine.bytes(engine.frontend, values).toString()).toBe(JSON.stringify({ toggles }))
          const flags = compiled.map((f, i) => ofrepResult(f.name, variantAnswer(f, outcomes[i]!), f.project))
          expect(engine.bytes(engine.ofrep, values).toString()).toBe(JSON.stringify({ flags }))
        }
      }),
      { numRuns: 500 }
    )
  }, 30_000)
})

describe('AnswerCache: which answers are kept', () => {
  const rollout = (name: string, stickiness = 'default') => ({
    name,
    type: 'release',
    project: 'p',
    enabled: true,
    stale: false,
    impressionData: false,
    strategies: [{ name: 'flexibleRollout', parameters: { rollout: '50', stickiness, groupId: name }, constraints: [], variants: [], segments: [] }],
    variants: [],
    dependencies: [],
  }) as unknown as ClientFeature
  const context = (userId?: string) => ({ appName: 'frontend-api', environment: 'default', userId, properties: {} })

  it('keeps a context\'s answer from its second request on, and serves it from the third', () => {
    const engine = new Engine({ features: [rollout('a'), rollout('b')], segments: [] })
    const cache = new AnswerCache()
    const first = cache.outcomes(engine, context('u1'))
    expect(cache.size).toBe(0)
    const second = cache.outcomes(engine, context('u1'))
    expect(cache.size).toBe(1)
    expect(second).not.toBe(first)
    expect([...second.outcomes]).toEqual([...first.outcomes])
    expect(cache.outcomes(engine, context('u1'))).toBe(second)
    // Another context seen once does not push it out, nor is it kept.
    for (let i = 0; i < 100; i++) cache.outcomes(engine, context(`once-${i}`))
    expect(cache.size).toBe(1)
    expect(cache.outcomes(engine, context('u1'))).toBe(second)
    // Each engine has its own answers: the same context under another engine starts again.
    const other = new Engine({ features: [rollout('a'), rollout('b')], segments: [] })
    cache.outcomes(other, context('u1'))
    expect(cache.size).toBe(1)
    cache.clear()
    cache.outcomes(engine, context('u1'))
    expect(cache.size).toBe(0)
  })

  it('never keeps an answer that drew a random number, however often its context comes', () => {
    const engine = new Engine({ features: [rollout('r', 'random')], segments: [] })
    const cache = new AnswerCache()
    for (let i = 0; i < 5; i++) cache.outcomes(engine, context('u1'))
    expect(cache.size).toBe(0)
  })

  it('keeps at most its bound of answers, the least recently used going first', () => {
    const engine = new Engine({ features: [rollout('a')], segments: [] })
    const cache = new AnswerCache(3)
    const twice = (userId: string) => {
      cache.outcomes(engine, context(userId))
      return cache.outcomes(engine, context(userId))
    }
    const kept = ['u1', 'u2', 'u3'].map(twice)
    expect(cache.outcomes(engine, context('u1'))).toBe(kept[0])
    twice('u4')
    expect(cache.size).toBe(3)
    expect(cache.outcomes(engine, context('u1'))).toBe(kept[0])
    expect(cache.outcomes(engine, context('u2'))).not.toBe(kept[1])
  })
})
