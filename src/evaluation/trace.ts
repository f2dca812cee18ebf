import type { ClientFeature, ClientSegment, ClientStrategy } from '../client/client.schemas.js'
import type { Variant } from '../variants/variants.schemas.js'
import { compileStrategy, featureVariants, parentAnswerSatisfies } from './compile.js'
import { always, type Evaluation, never, type Test } from './context.js'
import { compileConstraint, type Constraint } from './constraints.js'
import { compileStrategyRule } from './strategies.js'
import { OFF, type Outcome, type Select, type VariantChoice } from './variants.js'

/*
 * The trace mode of the evaluator, for the playground: the same rules the frontend API's
 * closures are built from (compileConstraint, compileStrategyRule and compileSelect, through
 * compileStrategy and featureVariants of compile.ts, and the dependency rule
 * parentAnswerSatisfies), called one at a time so that every constraint, segment and strategy
 * has its own result. Nothing here runs on the frontend API's path: compile.ts's closures
 * record nothing.
 *
 * What a trace shows besides the SDK's answer, as Unleash's playground shows it: every
 * strategy, the disabled ones (listed, not evaluated: "unevaluated") and those the server cannot
 * evaluate (a custom strategy, and applicationHostname, whose answer depends on the host the SDK
 * runs on: "incomplete", "unknown" when their constraints hold, disabled or not, as Unleash shows
 * them); and the strategies of a
 * feature switched off in the environment, evaluated as if it were on.
 */

/** A strategy as a trace reads it: the client format, with what the playground shows besides. */
export interface TraceStrategy extends ClientStrategy {
  id?: string
  title?: string | null
  disabled?: boolean
}

/** A feature as a trace reads it: the client format, its strategies including the disabled ones. */
export interface TraceFeature extends Omit<ClientFeature, 'strategies'> {
  strategies: TraceStrategy[]
}

/** The state a trace compiles: one environment's features (and every segment their strategies use). */
export interface TraceState {
  features: readonly TraceFeature[]
  segments: readonly ClientSegment[]
}

export interface ConstraintTrace {
  constraint: Constraint
  result: boolean
}

export interface SegmentTrace {
  id: number
  /** Empty when the state has no segment of this id (the strategy then never matches, as in the SDK). */
  name: string
  result: boolean
  constraints: ConstraintTrace[]
}

/** A strategy's result: evaluated ("complete"), or not ("incomplete": the server cannot; "unevaluated": disabled). */
export type StrategyResult =
  | {
    evaluationStatus: 'complete'
    enabled: boolean
    /** The strategy's variant for this context (picked whether or not the strategy matched, as Unleash shows it). */
    variant?: VariantChoice
    /** The strategy's variants, when one was picked. */
    variants?: readonly Variant[]
  }
  | { evaluationStatus: 'incomplete' | 'unevaluated'; enabled: false | 'unknown' }

export interface StrategyTrace {
  strategy: TraceStrategy
  result: StrategyResult
  constraints: ConstraintTrace[]
  segments: SegmentTrace[]
}

export interface FeatureTrace {
  feature: TraceFeature
  /** The strategies' verdict: the first that matched; else "unknown" when one could not be evaluated; else false. With no strategy, whether the feature is on in the environment. */
  result: boolean | 'unknown'
  strategies: StrategyTrace[]
  hasUnsatisfiedDependency: boolean
  /** The SDK's answer: on in the environment, its parents as its dependencies ask, and its strategies' verdict true. */
  isEnabled: boolean
  /** OFF, ON (no variant) or 2 + the index into `choices` of the variant answered. */
  outcome: Outcome
  choices: readonly VariantChoice[]
  /** The variants the answer was picked from: the matching strategy's, when it picked one; else the feature's. */
  variants: readonly Variant[]
}

interface CompiledSegment {
  id: number
  name: string
  constraints: { constraint: Constraint; test: Test }[]
}

interface TracedStrategy {
  strategy: TraceStrategy
  constraints: { constraint: Constraint; test: Test }[]
  segments: CompiledSegment[]
  /** undefined: disabled, or a rule the server cannot evaluate. */
  rule: Test | undefined
  /** A rule the server cannot evaluate (a strategy the SDK does not know, or one that depends on the SDK's host). */
  unknown: boolean
  select: Select | undefined
  base: number
}

interface TracedFeature {
  feature: TraceFeature
  strategies: TracedStrategy[]
  choices: VariantChoice[]
  variantOf: (e: Evaluation) => Outcome
}

/** Strategies whose answer depends on where the SDK runs: a server cannot evaluate them for it. */
const HOST_DEPENDENT = new Set(['applicationHostname'])

const compileAll = (constraints: readonly Constraint[]) => constraints.map((constraint) => ({ constraint, test: compileConstraint(constraint) }))
const holds = (results: readonly { result: boolean }[]) => results.every((r) => r.result)

/** One environment's features, compiled for tracing: `trace(e)` answers every feature, in the state's order. */
export class Tracer {
  readonly #features: TracedFeature[]
  readonly #byName: Map<string, TracedFeature>

  constructor (state: TraceState) {
    const segments = new Map<number, CompiledSegment>()
    for (const s of state.segments) segments.set(s.id, { id: s.id, name: s.name, constraints: compileAll(s.constraints as Constraint[]) })
    const segmentOf = (id: number): CompiledSegment => segments.get(id) ?? { id, name: '', constraints: [{ constraint: { contextName: '', operator: 'IN', values: [] }, test: never }] }
    this.#features = state.features.map((feature) => {
      const choices: VariantChoice[] = []
      const strategies = feature.strategies.map((strategy): TracedStrategy => {
        const traced = { strategy, constraints: compileAll(strategy.constraints as Constraint[]), segments: (strategy.segments ?? []).map(segmentOf) }
        const unknown = HOST_DEPENDENT.has(strategy.name) || compileStrategyRule(strategy.name, strategy.parameters) === undefined
        const compiled = strategy.disabled || unknown ? undefined : compileStrategy(strategy, () => always, choices)
        return { ...traced, unknown, rule: compiled?.rule, select: compiled?.select, base: compiled?.base ?? 0 }
      })
      return { feature, strategies, choices, variantOf: featureVariants(feature as ClientFeature, choices).variantOf }
    })
    this.#byName = new Map(this.#features.map((f) => [f.feature.name, f]))
  }

  /** How many features it answers. */
  get size (): number {
    return this.#features.length
  }

  /** Every feature's trace for one request's evaluation; a parent's answer is computed once and read by each child. */
  trace (e: Evaluation): FeatureTrace[] {
    const answers = new Map<string, FeatureTrace>()
    const answerOf = (f: TracedFeature): FeatureTrace => {
      let answer = answers.get(f.feature.name)
      if (answer === undefined) {
        answer = this.#traceFeature(f, e, answerOf)
        answers.set(f.feature.name, answer)
      }
      return answer
    }
    return this.#features.map(answerOf)
  }

  #traceFeature (f: TracedFeature, e: Evaluation, answerOf: (f: TracedFeature) => FeatureTrace): FeatureTrace {
    const { feature } = f
    const traced = f.strategies.map((s) => traceStrategy(s, f.choices, e))
    const strategies = traced.map((t) => t.trace)
    const winner = traced.find((t) => t.trace.result.enabled === true)
    const result: boolean | 'unknown' =
      strategies.length === 0 ? feature.enabled : winner !== undefined ? true : strategies.some((s) => s.result.enabled === 'unknown') ? 'unknown' : false
    const hasUnsatisfiedDependency = !this.#dependenciesSatisfied(feature, answerOf)
    const isEnabled = result === true && feature.enabled && !hasUnsatisfiedDependency
    // As the SDK: the matching strategy's variant, else (it has none, or none with weight) the feature's.
    const outcome: Outcome = !isEnabled ? OFF : winner !== undefined && winner.pick >= 0 ? 2 + winner.pick : f.variantOf(e)
    const picked = winner?.trace.result
    return {
      feature,
      result,
      strategies,
      hasUnsatisfiedDependency,
      isEnabled,
      outcome,
      choices: f.choices,
      variants: (picked?.evaluationStatus === 'complete' ? picked.variants : undefined) ?? feature.variants,
    }
  }

  /** The SDK's rule: every parent exists, has no parents itself, and answers as the dependency asks. */
  #dependenciesSatisfied (feature: TraceFeature, answerOf: (f: TracedFeature) => FeatureTrace): boolean {
    return feature.dependencies.every((d) => {
      const parent = this.#byName.get(d.feature)
      if (parent === undefined || parent.feature.dependencies.length > 0) return false
      const answer = answerOf(parent)
      return parentAnswerSatisfies(d, answer, answer.outcome)
    })
  }
}

/** One strategy, each of its rules called on its own: constraints, the strategy's rule, segments, then its variant (`pick`: its index in `choices`, or -1). */
function traceStrategy (s: TracedStrategy, choices: readonly VariantChoice[], e: Evaluation): { trace: StrategyTrace; pick: number } {
  const constraints = s.constraints.map(({ constraint, test }) => ({ constraint, result: test(e) }))
  const rule = s.rule === undefined ? undefined : s.rule(e)
  const segments = s.segments.map(({ id, name, constraints: tests }) => {
    const results = tests.map(({ constraint, test }) => ({ constraint, result: test(e) }))
    return { id, name, result: holds(results), constraints: results }
  })
  const held = holds(constraints) && holds(segments)
  let result: StrategyResult
  let pick = -1
  if (s.unknown) {
    // Disabled or not, as Unleash: what cannot be evaluated is "incomplete".
    result = { evaluationStatus: 'incomplete', enabled: held ? 'unknown' : false }
  } else if (rule === undefined) {
    result = { evaluationStatus: 'unevaluated', enabled: 'unknown' }
  } else {
    const i = s.select === undefined ? -1 : s.select(e)
    if (i >= 0) pick = s.base + i
    result = i < 0 ? { evaluationStatus: 'complete', enabled: held && rule } : { evaluationStatus: 'complete', enabled: held && rule, variant: choices[pick]!, variants: s.strategy.variants as Variant[] }
  }
  return { trace: { strategy: s.strategy, result, constraints, segments }, pick }
}
