import type { ClientFeature, ClientSegment, ClientStrategy } from '../client/client.schemas.js'
import type { Variant } from '../variants/variants.schemas.js'
import { always, Evaluation, type EvaluationContext, type Test } from './context.js'
import { compileConstraints, type Constraint, ConstraintTests } from './constraints.js'
import { compileStrategyRule } from './strategies.js'
import { compileSelect, OFF, ON, type Outcome, type Select, type VariantChoice, variantName } from './variants.js'

/*
 * The rule families put together: each feature of a state compiled into one closure,
 * `outcome(e)`, built from the families' compiled rules (constraints.ts, strategies.ts,
 * variants.ts), with the common shapes (one strategy; several without variants) answered
 * without the general loop. The rules are plain functions of an `Evaluation`, so a trace (which
 * strategy, constraint and segment held, for the playground) can compile and call the same
 * ones one at a time, the same evaluator as the frontend API's; the closures below stay as
 * they are, with nothing recorded on the way.
 */

/** A strategy the SDK knows, compiled: its constraints (its segments' after its own), its rule, its variants. */
export interface CompiledStrategy {
  constraints: Test
  rule: Test
  select: Select | undefined
  /** Where this strategy's variants start in the feature's outcome table. */
  base: number
}

export interface CompiledFeature {
  name: string
  project: string
  impressionData: boolean
  /** The variants its outcomes 2, 3, … stand for. */
  choices: VariantChoice[]
  outcome: (e: Evaluation) => Outcome
}

/** The state the evaluator compiles: the client API's answer for one environment and project set. */
export interface EvaluatorState {
  features: readonly ClientFeature[]
  segments: readonly ClientSegment[]
}

/** Compiles every feature of a state; features keep the state's order. */
export const compileFeatures = (state: EvaluatorState): CompiledFeature[] => compileState(state).features

/** Compiles every feature of a state, and says how many memo slots an evaluation of it uses. */
export function compileState (state: EvaluatorState): { features: CompiledFeature[]; memoSlots: number } {
  const segments = new Map(state.segments.map((s) => [s.id, s.constraints as Constraint[]]))
  const shared = new ConstraintTests()
  for (const feature of state.features) {
    for (const s of feature.strategies) {
      for (const c of s.constraints as Constraint[]) shared.count(c)
      for (const id of s.segments ?? []) for (const c of segments.get(id) ?? []) shared.count(c)
    }
  }
  const byName = new Map<string, CompiledFeature>()
  const definitions = new Map(state.features.map((f) => [f.name, f]))
  const compiled = state.features.map((feature) => {
    const choices: VariantChoice[] = []
    const strategies: CompiledStrategy[] = []
    for (const s of feature.strategies) {
      const strategy = compileStrategy(s, () => compileConstraints(shared, s.constraints as Constraint[], (s.segments ?? []).map((id) => segments.get(id))), choices)
      if (strategy !== undefined) strategies.push(strategy)
    }
    const variants = featureVariants(feature, choices)
    const outcome = feature.enabled ? withDependencies(feature, definitions, byName, strategiesOutcome(feature, strategies, variants)) : () => OFF
    const result: CompiledFeature = { name: feature.name, project: feature.project, impressionData: Boolean(feature.impressionData), choices, outcome }
    byName.set(feature.name, result)
    return result
  })
  return { features: compiled, memoSlots: shared.slots }
}

/**
 * One strategy, compiled: its rule, its variants (added to the feature's `choices`) and its
 * constraints (`constraints()` compiles them); undefined for a strategy the SDK does not know,
 * which never matches.
 */
export function compileStrategy (s: ClientStrategy, constraints: () => Test, choices: VariantChoice[]): CompiledStrategy | undefined {
  const rule = compileStrategyRule(s.name, s.parameters)
  if (rule === undefined) return undefined
  const variants = s.variants as Variant[]
  const base = choices.length
  let select: Select | undefined
  if (variants.length > 0) {
    for (const v of variants) choices.push({ name: v.name, payload: v.payload, fromStrategy: true })
    select = compileSelect(`${s.parameters.groupId}`, variants[0]!.stickiness || s.parameters.stickiness, variants)
  }
  return { constraints: constraints(), rule, select, base }
}

/** The feature's own variants (added to its `choices`, after its strategies'), and the outcome they give once a strategy without variants matched. */
export function featureVariants (feature: ClientFeature, choices: VariantChoice[]): { select: Select | undefined; variantOf: (e: Evaluation) => Outcome } {
  const featureBase = choices.length
  for (const v of feature.variants) choices.push({ name: v.name, payload: v.payload, fromStrategy: false })
  const select = feature.variants.length > 0 ? compileSelect(feature.name, feature.variants[0]!.stickiness ?? undefined, feature.variants) : undefined
  const variantOf = (e: Evaluation): Outcome => {
    if (select === undefined) return ON
    const i = select(e)
    return i < 0 ? ON : 2 + featureBase + i
  }
  return { select, variantOf }
}

/**
 * An enabled feature's outcome from its strategies, as the SDK's: the first whose constraints
 * and rule hold decides (its variants, else the feature's), none is off, no strategy at all is
 * on. The common shapes get closures of their own, without the general loop.
 */
function strategiesOutcome (
  feature: ClientFeature,
  strategies: readonly CompiledStrategy[],
  { select: featureSelect, variantOf }: ReturnType<typeof featureVariants>
): (e: Evaluation) => Outcome {
  const noStrategies = feature.strategies.length === 0
  const evaluate = (e: Evaluation): Outcome => {
    if (noStrategies) return variantOf(e)
    for (let k = 0; k < strategies.length; k++) {
      const s = strategies[k]!
      if (!s.constraints(e) || !s.rule(e)) continue
      if (s.select !== undefined) {
        const i = s.select(e)
        if (i >= 0) return 2 + s.base + i
      }
      return variantOf(e)
    }
    return OFF
  }
  // One strategy and no feature variants (most features): its tests, without the general loop.
  const only = strategies.length === 1 && !noStrategies && featureSelect === undefined ? strategies[0]! : undefined
  // Several strategies, none with variants, and no feature variants: on when one matches.
  const plain = strategies.length > 1 && featureSelect === undefined && strategies.every((s) => s.select === undefined)
  if (plain) {
    const tests = strategies.map(({ constraints, rule }) => (constraints === always ? rule : rule === always ? constraints : (e: Evaluation) => constraints(e) && rule(e)))
    const [first, second] = tests as [Test, Test]
    return tests.length === 2 ? (e) => (first(e) || second(e) ? ON : OFF) : (e) => (tests.some((t) => t(e)) ? ON : OFF)
  }
  if (only !== undefined) {
    const { constraints, rule, select, base } = only
    if (select === undefined) {
      const test = constraints === always ? rule : rule === always ? constraints : undefined
      return test !== undefined ? (e) => (test(e) ? ON : OFF) : (e) => (constraints(e) && rule(e) ? ON : OFF)
    }
    return (e) => {
      if (!constraints(e) || !rule(e)) return OFF
      const i = select(e)
      return i >= 0 ? 2 + base + i : ON
    }
  }
  return evaluate
}

/**
 * The outcome of a feature with parents, as the SDK's: off unless every parent exists, has no
 * parents itself, and is on (with one of the variants named, when some are) or off, as the
 * dependency asks.
 */
function withDependencies (
  feature: ClientFeature,
  definitions: ReadonlyMap<string, ClientFeature>,
  compiled: ReadonlyMap<string, CompiledFeature>,
  outcome: (e: Evaluation) => Outcome
): (e: Evaluation) => Outcome {
  if (feature.dependencies.length === 0) return outcome
  const parents = feature.dependencies.map((d) => ({ ...d, definition: definitions.get(d.feature) }))
  const satisfied = (e: Evaluation): boolean =>
    parents.every((d) => {
      const parent = d.definition === undefined ? undefined : compiled.get(d.feature)
      if (parent === undefined || d.definition === undefined) return false
      if (d.definition.dependencies.length > 0) return false
      return parentAnswerSatisfies(d, parent, parent.outcome(e))
    })
  return (e) => (satisfied(e) ? outcome(e) : OFF)
}

/**
 * Whether a parent's outcome is what a dependency on it asks, as the SDK decides: on (with one of
 * the variants named, when some are), or off. (The parent exists and has no parents itself.)
 */
export function parentAnswerSatisfies (dependency: ClientFeature['dependencies'][number], parent: { choices: readonly VariantChoice[] }, o: Outcome): boolean {
  if (dependency.enabled !== false) {
    if (dependency.variants?.length) return o !== OFF && dependency.variants.includes(variantName(parent, o))
    return o !== OFF
  }
  return o === OFF
}

/**
 * Whether a feature's answer is the same for every context: evaluated once against a context
 * that records every read, it read nothing and drew nothing. (The evaluation is a function of
 * what it reads; a run that read nothing takes the same path for every context.)
 */
export function staticOutcome (feature: CompiledFeature): Outcome | undefined {
  let read = false
  const probe = new Proxy({} as EvaluationContext, {
    get: () => {
      read = true
      return undefined
    },
    has: () => {
      read = true
      return false
    },
  })
  const e = new Evaluation(probe)
  const outcome = feature.outcome(e)
  return read || e.drew ? undefined : outcome
}
