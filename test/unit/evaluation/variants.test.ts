/**
 * The variant rules (src/evaluation/variants.ts): a list of variants, compiled alone, picks the
 * variant the official Node SDK (unleash-client) answers, feature variants and strategy
 * variants alike (weights, overrides, every stickiness; randomness replaced by one constant on
 * both sides); an outcome becomes the SDK's getVariant answer, members in its order.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Evaluation } from '../../../src/evaluation/context.js'
import { compileSelect, OFF, ON, type VariantChoice, variantAnswer, variantName } from '../../../src/evaluation/variants.js'
import type { Variant } from '../../../src/variants/variants.schemas.js'
import { clientFeature, requestContexts, variants } from '../../helpers/frontend-arbitraries.js'
import { agreesWithSdk } from '../../helpers/sdk-oracle.js'

/** A feature on for everyone, with its variants on the feature or on its one strategy. */
const withVariants = (name: string, list: Variant[], onStrategy: boolean, groupId: string) =>
  clientFeature({
    name,
    strategies: [{ name: 'default', parameters: onStrategy ? { groupId } : {}, constraints: [], variants: onStrategy ? list : [], segments: [] }],
    variants: onStrategy ? [] : list,
  })

const choicesOf = (list: Variant[], fromStrategy: boolean): VariantChoice[] => list.map((v) => ({ name: v.name, payload: v.payload, fromStrategy }))

describe('compileSelect picks what unleash-client picks', () => {
  it('for any variants (fixed and variable weights, overrides, every stickiness), on the feature or a strategy, and any context', async () => {
    let compared = 0
    const lists = fc.array(fc.record({ list: variants('v', 4).filter((l) => l.length > 0), onStrategy: fc.boolean(), groupId: fc.constantFrom('g', '') }), { minLength: 1, maxLength: 10 })
    await fc.assert(
      fc.asyncProperty(lists, requestContexts(10), async (cases, requests) => {
        const selects = cases.map(({ list, onStrategy, groupId }, i) =>
          onStrategy ? compileSelect(groupId, list[0]!.stickiness || undefined, list) : compileSelect(`v${i}`, list[0]!.stickiness ?? undefined, list)
        )
        const answer = (i: number, e: Evaluation) => {
          const picked = selects[i]!(e)
          return JSON.stringify(variantAnswer({ choices: choicesOf(cases[i]!.list, cases[i]!.onStrategy) }, picked < 0 ? ON : 2 + picked))
        }
        const features = cases.map(({ list, onStrategy, groupId }, i) => withVariants(`v${i}`, list, onStrategy, groupId))
        compared += await agreesWithSdk(features, requests, answer, (theirs) => JSON.stringify(theirs), (i) => cases[i])
      }),
      { numRuns: 150 }
    )
    expect(compared).toBeGreaterThan(1000)
  }, 60_000)

  it('weights that sum to nothing pick none; one variant with all the weight is picked without reading the context', () => {
    const variant = (name: string, weight: number): Variant => ({ name, weight, weightType: 'variable', stickiness: 'default' })
    const reads = new Evaluation(new Proxy({}, { get: () => { throw new Error('read the context') } }))
    expect(compileSelect('g', 'default', [variant('a', 0), variant('b', 0)])(reads)).toBe(-1)
    expect(compileSelect('g', 'default', [variant('a', 0), variant('b', 1000)])(reads)).toBe(1)
  })
})

describe('an outcome as the SDK answers it', () => {
  const choices: VariantChoice[] = [
    { name: 'from-strategy', payload: { type: 'string', value: 's' }, fromStrategy: true },
    { name: 'from-feature', payload: undefined, fromStrategy: false },
  ]

  it.each([
    ['off', OFF, '{"name":"disabled","enabled":false,"feature_enabled":false,"featureEnabled":false}', 'disabled'],
    ['on without a variant', ON, '{"name":"disabled","enabled":false,"feature_enabled":true,"featureEnabled":true}', 'disabled'],
    ['a strategy variant: enabled before payload', 2, '{"name":"from-strategy","enabled":true,"payload":{"type":"string","value":"s"},"feature_enabled":true,"featureEnabled":true}', 'from-strategy'],
    ['a feature variant: payload before enabled (absent when it has none)', 3, '{"name":"from-feature","enabled":true,"feature_enabled":true,"featureEnabled":true}', 'from-feature'],
  ])('%s', (_name, outcome, json, name) => {
    expect(JSON.stringify(variantAnswer({ choices }, outcome))).toBe(json)
    expect(variantName({ choices }, outcome)).toBe(name)
  })
})
