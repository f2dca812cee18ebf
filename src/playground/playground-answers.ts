import { randomUUID } from 'node:crypto'
import { badData } from '../errors.js'
import { Evaluation, type EvaluationContext, STATIC_CONTEXT } from '../evaluation/context.js'
import { type ConstraintTrace, type FeatureTrace, type StrategyTrace, Tracer } from '../evaluation/trace.js'
import { ON } from '../evaluation/variants.js'
import type {
  AdvancedPlaygroundEnvironmentFeature,
  AdvancedPlaygroundFeature,
  AdvancedPlaygroundRequest,
  AdvancedPlaygroundResponse,
  PlaygroundConstraint,
  PlaygroundFeature,
  PlaygroundRequest,
  PlaygroundResponse,
  PlaygroundStrategy,
  PlaygroundVariant,
} from './playground.schemas.js'

/*
 * The playground's answers, from the evaluator's traces (evaluation/trace.ts), in Unleash 8.2's
 * shapes: pure functions of the state to evaluate (compiled: `new Tracer(state)`) and the
 * request, so that the current state (kept compiled by the service) and one a change would make
 * can be evaluated alike.
 */

/** At most this many evaluations (environments × flags × context combinations) in one advanced request, as Unleash. */
export const MAX_EVALUATIONS = 15_000

/**
 * The context the evaluator reads, as Unleash's playground builds it: the SDK's static fields
 * (`environment` is `default` unless the context says), then the request's. Empty values count as
 * not given (Unleash's playground reads an empty value as a missing one; so does the frontend API).
 */
export function evaluationContext (fields: Record<string, unknown>): EvaluationContext {
  const context: EvaluationContext = { environment: STATIC_CONTEXT.environment }
  for (const [name, value] of Object.entries(fields)) {
    if (value === '' || value === undefined) continue
    if (name === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      context.properties = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== '' && v !== undefined))
    } else {
      context[name] = value
    }
  }
  return context
}

/** Unleash's strategy link for the admin UI. */
const editLink = (project: string, feature: string, environment: string, id: string) =>
  `/projects/${project}/features/${feature}/strategies/edit?environmentId=${environment}&strategyId=${id}`

/** A constraint and its result; a strategy's has Unleash's defaults (`inverted: false`, `values: []`), a segment's is as stored. */
function constraintAnswer ({ constraint: c, result }: ConstraintTrace, defaults: boolean): PlaygroundConstraint {
  return {
    ...(defaults && { inverted: false, values: [] }),
    contextName: c.contextName,
    operator: c.operator,
    ...(c.caseInsensitive !== undefined && { caseInsensitive: c.caseInsensitive }),
    ...(c.inverted !== undefined && { inverted: c.inverted }),
    ...(c.values !== undefined && { values: c.values }),
    ...(c.value !== undefined && c.value !== null && { value: String(c.value) }),
    result,
  }
}

function strategyAnswer (s: StrategyTrace, feature: FeatureTrace['feature'], environment: string): PlaygroundStrategy {
  const { strategy, result } = s
  const id = strategy.id ?? randomUUID()
  const picked = result.evaluationStatus === 'complete' && result.variant !== undefined ? { variant: result.variant, variants: result.variants ?? [] } : undefined
  return {
    name: strategy.name,
    id,
    ...(strategy.title ? { title: strategy.title } : {}),
    disabled: Boolean(strategy.disabled),
    parameters: strategy.parameters,
    result: {
      enabled: result.enabled,
      evaluationStatus: result.evaluationStatus,
      ...(picked !== undefined && {
        variant: { name: picked.variant.name, enabled: true, ...(picked.variant.payload !== undefined && { payload: picked.variant.payload }) },
        variants: [...picked.variants],
      }),
    },
    constraints: s.constraints.map((c) => constraintAnswer(c, true)),
    segments: s.segments.map(({ id: segmentId, name, result: holds, constraints }) => ({ id: segmentId, name, result: holds, constraints: constraints.map((c) => constraintAnswer(c, false)) })),
    links: { edit: editLink(feature.project, feature.name, environment, id) },
  }
}

/** The variant as Unleash's playground answers it (its members differ by case, as the SDK's answers do). */
function variantAnswer (t: FeatureTrace): PlaygroundVariant {
  if (!t.isEnabled) return { name: 'disabled', enabled: false, feature_enabled: false }
  if (t.outcome === ON) return { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true }
  const { name, payload, fromStrategy } = t.choices[t.outcome - 2]!
  const withPayload = payload !== undefined ? { payload } : {}
  return fromStrategy
    ? { name, enabled: true, ...withPayload, feature_enabled: true }
    : { name, ...withPayload, enabled: true, feature_enabled: true, featureEnabled: true }
}

/** One flag's answer for one environment and context. */
export function featureAnswer (t: FeatureTrace, environment: string): PlaygroundFeature {
  return {
    isEnabled: t.isEnabled,
    isEnabledInCurrentEnvironment: t.feature.enabled,
    hasUnsatisfiedDependency: t.hasUnsatisfiedDependency,
    variant: variantAnswer(t),
    variants: [...t.variants],
    name: t.feature.name,
    projectId: t.feature.project,
    strategies: { result: t.result, data: t.strategies.map((s) => strategyAnswer(s, t.feature, environment)) },
  }
}

/** POST /api/admin/playground: every flag of one environment's state (compiled) for the request's context. */
export function playgroundAnswer (tracer: Tracer, request: PlaygroundRequest): PlaygroundResponse {
  const traces = tracer.trace(new Evaluation(evaluationContext(request.context)))
  return { input: request, features: traces.map((t) => featureAnswer(t, request.environment)) }
}

/**
 * The advanced playground's contexts, as Unleash makes them: top-level members whose value is not
 * a string are left out (and named in a warning), `appName` goes last, the properties join the
 * top-level fields (a later member wins), and each value is split at commas; every combination of
 * the values is one context. `count` is their number, known before any is made.
 */
export function contextCombinations (context: Record<string, unknown>) {
  const { appName, ...others } = context
  const invalid: string[] = []
  const values = new Map<string, string[]>()
  const add = (fields: Record<string, unknown>) => {
    for (const [name, value] of Object.entries(fields)) {
      if (name === 'properties' && typeof value === 'object' && value !== null) add(value as Record<string, unknown>)
      else values.set(name, typeof value === 'string' ? value.split(',') : [value as string])
    }
  }
  add(Object.fromEntries(Object.entries(others).filter(([name, value]) => {
    if (name === 'properties' || typeof value === 'string') return true
    invalid.push(name)
    return false
  })))
  values.delete('appName')
  values.set('appName', `${appName as string}`.split(','))
  let count = 1
  for (const list of values.values()) count *= list.length
  const make = () =>
    [...values].reduce<Record<string, string>[]>((combinations, [name, list]) => combinations.flatMap((c) => list.map((v) => ({ ...c, [name]: v }))), [{}])
  return { invalid, count, make }
}

/**
 * POST /api/admin/playground/advanced: every flag of each environment's state for every
 * combination of the context's values, grouped by flag and environment; refused (400) before any
 * evaluation when there would be more than MAX_EVALUATIONS, with Unleash's message.
 */
export function advancedPlaygroundAnswer (tracers: ReadonlyMap<string, Tracer>, request: AdvancedPlaygroundRequest): AdvancedPlaygroundResponse {
  const combinations = contextCombinations(request.context)
  const environments = request.environments
  const flags = tracers.get(environments[0]!)?.size ?? 0
  const total = environments.length * flags * combinations.count
  if (total > MAX_EVALUATIONS) {
    throw badData(
      `Rejecting evaluation as it would generate ${total} combinations exceeding ${MAX_EVALUATIONS} limit. ` +
        `Please reduce the number of selected environments (${environments.length}), features (${flags}), context field combinations (${combinations.count}).`
    )
  }
  const byFeature = new Map<string, AdvancedPlaygroundFeature>()
  const contexts = flags === 0 ? [] : combinations.make()
  for (const environment of environments) {
    const tracer = tracers.get(environment) ?? new Tracer({ features: [], segments: [] })
    for (const context of contexts) {
      for (const t of tracer.trace(new Evaluation(evaluationContext(context)))) {
        const { name, projectId, ...answer } = featureAnswer(t, environment)
        let feature = byFeature.get(name)
        if (feature === undefined) {
          feature = { name, projectId, environments: {} }
          byFeature.set(name, feature)
        }
        const entry: AdvancedPlaygroundEnvironmentFeature = { ...answer, context, name, environment, projectId }
        ;(feature.environments[environment] ??= []).push(entry)
      }
    }
  }
  const features = [...byFeature.values()]
  return combinations.invalid.length > 0 ? { input: request, features, warnings: { invalidContextProperties: combinations.invalid } } : { input: request, features }
}
