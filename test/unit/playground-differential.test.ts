/**
 * The playground's answers against the official Node SDK (unleash-client 6.12.1) and the frontend
 * API's compiled engine: for random flag sets in the client API's format (every operator with
 * edge values, segments, dependencies, strategy and environment variants, strategies the SDK does
 * not know) and random contexts, the playground's `isEnabled` and `variant` equal what the SDK's
 * getVariant answers for the context the playground evaluates, and the outcome the frontend
 * engine computes: one evaluator.
 *
 * applicationHostname is left out: its answer depends on the host the SDK runs on, which the
 * playground cannot know (it reports it "incomplete", as Unleash does). Where the SDK draws random
 * numbers, both sides draw from Math.random, replaced during each comparison by one constant.
 *
 * Seeded and replayable: PLAYGROUND_DIFF_SEED (default fixed), PLAYGROUND_DIFF_COMPARISONS
 * (default 20,000). A failure prints the seed and path.
 */
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ClientFeature } from '../../src/client/client.schemas.js'
import { compileState } from '../../src/evaluation/compile.js'
import { Evaluation } from '../../src/evaluation/context.js'
import { Tracer } from '../../src/evaluation/trace.js'
import { variantAnswer } from '../../src/evaluation/variants.js'
import { evaluationContext, playgroundAnswer } from '../../src/playground/playground-answers.js'
import { type FlagSet, flagSet, requestFields } from '../helpers/frontend-arbitraries.js'
import { Oracle } from '../helpers/sdk-oracle.js'

const COMPARISONS = Number(process.env.PLAYGROUND_DIFF_COMPARISONS ?? 20_000)
const SEED = Number(process.env.PLAYGROUND_DIFF_SEED ?? 41_2026)
const CONTEXTS_PER_SET = 30

afterEach(() => {
  vi.restoreAllMocks()
})

/** A flag set without applicationHostname strategies (those become a default strategy with the same constraints). */
const withoutHostnames = (set: FlagSet): FlagSet => ({
  ...set,
  features: set.features.map((f): ClientFeature => ({
    ...f,
    strategies: f.strategies.map((s) => (s.name === 'applicationHostname' ? { ...s, name: 'default', parameters: {} } : s)),
  })),
})

/** A playground context from a request's fields: appName always (the playground requires it), the rest top-level or as properties. */
const playgroundContext = fc.tuple(requestFields, fc.boolean()).map(([fields, asProperties]) => {
  const { appName, userId, sessionId, remoteAddress, currentTime, environment, ...custom } = fields
  const top = Object.fromEntries(Object.entries({ userId, sessionId, remoteAddress, currentTime, environment }).filter(([, v]) => v !== undefined))
  return { appName: appName || 'app', ...top, ...(asProperties ? { properties: custom } : custom) }
})

describe("the playground's isEnabled and variant are the SDK's and the frontend engine's", () => {
  it(`${COMPARISONS.toLocaleString('en')}+ flag answers over random flag sets and contexts`, async () => {
    let compared = 0
    let on = 0
    const random = vi.spyOn(Math, 'random')
    const draw = fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 2 ** 24 - 1 }).map((i) => i / 2 ** 24) }, { weight: 1, arbitrary: fc.constantFrom(0, 0.5, 1 - 2 ** -53) })
    await fc.assert(
      fc.asyncProperty(flagSet(12).map(withoutHostnames), fc.array(fc.tuple(playgroundContext, draw), { minLength: CONTEXTS_PER_SET, maxLength: CONTEXTS_PER_SET }), async (set, contexts) => {
        const oracle = await Oracle.create(set)
        const engine = compileState(set).features
        const tracer = new Tracer(set)
        try {
          for (const [context, d] of contexts) {
            random.mockReturnValue(d)
            const answer = playgroundAnswer(tracer, { environment: 'development', context: context as never })
            const evaluated = evaluationContext(context)
            set.features.forEach((feature, i) => {
              const mine = answer.features[i]!
              const sdk = oracle.variant(feature.name, evaluated)
              const path = JSON.stringify({ seed: SEED, feature: feature.name, context, draw: d })
              expect(mine.name, path).toBe(feature.name)
              expect(mine.isEnabled, path).toBe(sdk.feature_enabled)
              expect({ name: mine.variant.name, enabled: mine.variant.enabled, payload: mine.variant.payload }, path).toEqual({ name: sdk.name, enabled: sdk.enabled, payload: sdk.payload })
              const compiled = engine[i]!
              expect(mine.isEnabled ? mine.variant.name : 'off', path).toBe(((a) => (a.feature_enabled ? a.name : 'off'))(variantAnswer(compiled, compiled.outcome(new Evaluation(evaluated)))))
              compared++
              if (mine.isEnabled) on++
            })
          }
        } finally {
          oracle.destroy()
        }
      }),
      { seed: SEED, numRuns: Math.ceil(COMPARISONS / (CONTEXTS_PER_SET * 5)), endOnFailure: true }
    )
    console.log(`playground differential: ${compared} flag answers equal the SDK's and the engine's (${on} on), seed ${SEED}`)
    expect(compared).toBeGreaterThanOrEqual(COMPARISONS)
    expect(on).toBeGreaterThan(compared / 20)
  }, 600_000)
})
