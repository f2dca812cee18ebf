/**
 * The frontend evaluator against the official Node SDK (unleash-client 6.12.1) as the oracle:
 * random flag sets in the client API's format × random request contexts; the frontend API's
 * bytes, OFREP's bulk bytes and single-flag answers must equal what the SDK computes for that
 * context, answers kept per context included (contexts repeat, so kept answers are served).
 *
 * Where the SDK is random by design (default stickiness without userId or sessionId, random
 * stickiness, gradualRolloutRandom, a stickiness field the context lacks), both sides draw from
 * Math.random, replaced during each comparison by one constant drawn by fast-check: whatever
 * order or number of draws each side makes, the same constant gives the same answer when the
 * rules are the same, so random paths are compared exactly too (and an answer wrongly kept
 * although it drew would be served for another constant, and fail). The distributions with
 * real randomness are compared below.
 *
 * Seeded and replayable: FRONTEND_DIFF_SEED (default fixed), FRONTEND_DIFF_COMPARISONS (default
 * 100,000; `npm run test:differential` runs 2,000,000). A failure prints the seed and path.
 */
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { frontendContext } from '../../src/frontend/context.js'
import { STATIC_CONTEXT } from '../../src/evaluation/context.js'
import type { VariantAnswer } from '../../src/evaluation/variants.js'
import { AnswerCache } from '../../src/frontend/answer-cache.js'
import { Engine } from '../../src/frontend/engine.js'
import { ofrepResult } from '../../src/frontend/ofrep.js'
import { callerAddress, type FlagSet, flagSet, requestFields } from '../helpers/frontend-arbitraries.js'
import { Oracle } from '../helpers/sdk-oracle.js'

const COMPARISONS = Number(process.env.FRONTEND_DIFF_COMPARISONS ?? 100_000)
const SEED = Number(process.env.FRONTEND_DIFF_SEED ?? 26_2026)
const CONTEXTS_PER_SET = 40

afterEach(() => {
  vi.restoreAllMocks()
})

/** What the frontend API must answer, from the SDK's answers: enabled features, in order. */
const expectedToggles = (set: FlagSet, answers: VariantAnswer[]) =>
  JSON.stringify({
    toggles: set.features.flatMap((f, i) => (answers[i]!.feature_enabled ? [{ name: f.name, enabled: true, variant: answers[i], impressionData: f.impressionData }] : [])),
  })

const expectedFlags = (set: FlagSet, answers: VariantAnswer[]) =>
  JSON.stringify({ flags: set.features.map((f, i) => ofrepResult(f.name, answers[i]!, f.project)) })

describe('the frontend evaluator answers what unleash-client computes', () => {
  it(`${COMPARISONS.toLocaleString('en')}+ feature evaluations over random flag sets and contexts`, async () => {
    let compared = 0
    let answers = 0
    let keptServed = 0
    const random = vi.spyOn(Math, 'random')
    const contexts = fc.record({
      pool: fc.array(fc.record({ fields: requestFields, caller: callerAddress }), { minLength: 1, maxLength: 12 }),
      picks: fc.array(fc.record({ at: fc.nat(), draw: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 2 ** 24 - 1 }).map((i) => i / 2 ** 24) }, { weight: 1, arbitrary: fc.constantFrom(0, 0.5, 1 - 2 ** -53) }) }), { minLength: CONTEXTS_PER_SET, maxLength: CONTEXTS_PER_SET }),
    })
    const runs = Math.ceil(COMPARISONS / (CONTEXTS_PER_SET * 5))
    await fc.assert(
      fc.asyncProperty(flagSet(12), contexts, async (set, { pool, picks }) => {
        const oracle = await Oracle.create(set)
        const engine = new Engine(set)
        const cache = new AnswerCache(64, 1024 * 1024)
        const tags = new Map<string, string>()
        try {
          for (const { at, draw } of picks) {
            const { fields, caller } = pool[at % pool.length]!
            const context = frontendContext(fields, caller)
            random.mockReturnValue(draw)
            const sdk = set.features.map((f) => oracle.variant(f.name, context))
            const before = cache.size
            const kept = cache.outcomes(engine, { ...STATIC_CONTEXT, ...context })
            if (cache.size === before && engine.dynamic.length > 0) keptServed++
            const toggles = engine.bytes(engine.frontend, kept.outcomes).toString()
            expect(toggles, JSON.stringify({ fields, caller, draw })).toBe(expectedToggles(set, sdk))
            expect(engine.bytes(engine.ofrep, kept.outcomes).toString()).toBe(expectedFlags(set, sdk))
            const one = set.features[at % set.features.length]!
            random.mockReturnValue(draw)
            const single = engine.ofrepFlag(one.name, { ...STATIC_CONTEXT, ...context })
            expect(single?.toString()).toBe(JSON.stringify(ofrepResult(one.name, oracle.variant(one.name, context), one.project)))
            // Different answers never share a tag.
            const etag = engine.etag(engine.frontend, kept.outcomes)
            expect(tags.get(etag) ?? toggles).toBe(toggles)
            tags.set(etag, toggles)
            compared += set.features.length
            answers++
          }
        } finally {
          oracle.destroy()
        }
      }),
      { seed: SEED, numRuns: runs, endOnFailure: true }
    )
    console.log(`frontend differential: ${compared} feature evaluations in ${answers} answers (${keptServed} served from kept answers), seed ${SEED}`)
    expect(compared).toBeGreaterThanOrEqual(COMPARISONS)
    expect(keptServed).toBeGreaterThan(answers / 10)
  }, Math.max(600_000, COMPARISONS))
})

describe('where the SDK is random by design, the distributions match', () => {
  /** The share of answers per outcome over n contexts, on both sides, with real randomness. */
  async function shares (set: FlagSet, name: string, context: Record<string, string>, n: number) {
    const oracle = await Oracle.create(set)
    const engine = new Engine(set)
    const cache = new AnswerCache()
    const ours = new Map<string, number>()
    const theirs = new Map<string, number>()
    const label = (v: VariantAnswer) => (v.feature_enabled ? v.name : 'off')
    const i = set.features.findIndex((f) => f.name === name)
    try {
      const full = frontendContext(context, '')
      for (let k = 0; k < n; k++) {
        const sdk = label(oracle.variant(name, full))
        theirs.set(sdk, (theirs.get(sdk) ?? 0) + 1)
        const kept = cache.outcomes(engine, { ...STATIC_CONTEXT, ...full })
        const d = engine.dynamic.indexOf(i)
        const flags = JSON.parse(engine.bytes(engine.ofrep, kept.outcomes).toString()).flags as { variant: string; reason: string }[]
        const flag = flags[i]!
        const mine = flag.reason === 'DISABLED' ? 'off' : flag.reason === 'TARGETING_MATCH' ? 'disabled' : flag.variant
        ours.set(mine, (ours.get(mine) ?? 0) + 1)
        expect(d).toBeGreaterThanOrEqual(0)
      }
    } finally {
      oracle.destroy()
    }
    expect(cache.size, 'a random answer is never kept').toBe(0)
    return { ours, theirs }
  }

  const feature = (over: Partial<FlagSet['features'][number]>): FlagSet['features'][number] => ({
    name: 'r', type: 'release', project: 'default', enabled: true, stale: false, impressionData: false, strategies: [], variants: [], dependencies: [], ...over,
  })

  /** Each outcome's share within 2.5 points of the SDK's over 20,000 draws each (about 6 standard deviations). */
  const close = (a: Map<string, number>, b: Map<string, number>, n: number) => {
    for (const key of new Set([...a.keys(), ...b.keys()])) {
      expect(Math.abs((a.get(key) ?? 0) - (b.get(key) ?? 0)) / n, key).toBeLessThan(0.025)
    }
  }

  it('a 30 % rollout with default stickiness for a context without userId or sessionId; random-stickiness variants; gradualRolloutRandom', async () => {
    const n = 20_000
    const rollout = { name: 'flexibleRollout', constraints: [], parameters: { rollout: '30', stickiness: 'default', groupId: 'r' }, variants: [], segments: [] }
    const split = ['a', 'b', 'c'].map((name, i) => ({ name, weight: [500, 300, 200][i]!, weightType: 'fix' as const, stickiness: 'random' }))
    for (const [set, context] of [
      [{ features: [feature({ strategies: [rollout] })], segments: [] }, {}],
      [{ features: [feature({ variants: split })], segments: [] }, { userId: 'u' }],
      [{ features: [feature({ strategies: [{ ...rollout, name: 'gradualRolloutRandom', parameters: { percentage: '40' } }] })], segments: [] }, {}],
      [{ features: [feature({ strategies: [{ ...rollout, parameters: { rollout: '100', stickiness: 'default' }, variants: split.map((v) => ({ ...v, stickiness: 'plan' })) }] })], segments: [] }, { userId: 'u', plan: '' }],
    ] as [FlagSet, Record<string, string>][]) {
      const { ours, theirs } = await shares(set, 'r', context, n)
      close(ours, theirs, n)
      expect(ours.size, JSON.stringify([...ours])).toBeGreaterThan(1)
    }
  }, 60_000)
})
