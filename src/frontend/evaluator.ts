import { hostname } from 'node:os'
import { Address4, Address6 } from 'ip-address'
import { RE2JS } from 're2js'
import semver from 'semver'
import type { ClientFeature, ClientSegment } from '../client/client.schemas.js'
import type { Variant } from '../variants/variants.schemas.js'

type Payload = NonNullable<Variant['payload']>
import { bucketIn, bucketRest, murmurRest, prepareRest, type Rest, rolloutGroup, strategyBucket, variantGroup } from './murmur.js'

/**
 * The compiled evaluator: the client API's answer for one environment and project set, turned
 * once per state version into closures that answer, for a context, what the official Unleash
 * SDKs answer (unleash-client 6.12.1 is the reference the tests compare it with). Every rule
 * below mirrors the SDK's, including its edge cases (trimmed list values, `?? properties`,
 * Number('') = 0, the hash of `groupId:id` with MurmurHash3); what it reads ahead of time is
 * only what cannot change between requests.
 */

/** A context as the SDK reads it: top-level fields, and properties. */
export interface EvaluationContext {
  [field: string]: unknown
  properties?: Record<string, unknown>
}

/** What the SDK embedded in a frontend API fills in when the context does not say. */
export const STATIC_CONTEXT = { appName: 'frontend-api', environment: 'default' } as const

/** The answer for one feature: off, on without a variant, or on with variant `n` of its table (2 + n). */
export type Outcome = number
export const OFF = 0
export const ON = 1

/** A variant the answer can carry: its name and payload, as the SDK returns it. */
export interface VariantChoice {
  name: string
  payload: Payload | undefined
  /** Strategy variants and feature variants list their members in different orders. */
  fromStrategy: boolean
}

/**
 * One request's evaluation: the context, and what it used besides the context (randomness
 * or the clock), which makes its answer impossible to cache. Values derived from the context
 * (the time, the parsed address) are computed once per request.
 */
export class Evaluation {
  /** The answer drew a random number or read the clock: another request may get another. */
  drew = false
  #now: number | undefined
  #addresses: Map<string, Address4 | Address6 | null> | undefined

  #restOf: string | undefined
  #rest: Rest | undefined

  /** Results of the constraints several strategies share, for this request: 0 not yet, 1 holds, 2 does not. */
  readonly memo: Uint8Array | undefined

  constructor (readonly context: EvaluationContext, memoSlots = 0) {
    this.memo = memoSlots > 0 ? new Uint8Array(memoSlots) : undefined
  }

  /** An id prepared for hashing after groups: prepared once, as every rollout of a request hashes the same id. */
  rest (id: string): Rest {
    if (id !== this.#restOf || this.#rest === undefined) {
      this.#rest = prepareRest(id)
      this.#restOf = id
    }
    return this.#rest
  }

  /** The SDK's Math.random() draws. */
  random (): number {
    this.drew = true
    return Math.random()
  }

  /** currentTime from the context, else the clock (as the SDK's DATE operators). */
  time (): number {
    const given = this.context.currentTime
    if (given) return new Date(given as string).getTime()
    this.drew = true
    return (this.#now ??= Date.now())
  }

  /** The context value parsed as an IPv4 or IPv6 address, as the SDK's IN_CIDR reads it. */
  address (value: string): Address4 | Address6 | null {
    this.#addresses ??= new Map()
    let parsed = this.#addresses.get(value)
    if (parsed === undefined) {
      parsed = Address4.isValid(value) ? new Address4(value) : Address6.isValid(value) ? new Address6(value) : null
      this.#addresses.set(value, parsed)
    }
    return parsed
  }
}

/** The SDK's resolveContextValue: the top-level field, else the property, as a string. */
export function resolveContextValue (context: EvaluationContext, field: string): string | undefined {
  const value = context[field] ?? context.properties?.[field]
  return value !== undefined && value !== null ? String(value) : undefined
}

type Test = (e: Evaluation) => boolean
const never: Test = () => false
const always: Test = () => true

interface RawConstraint {
  contextName: string
  operator: string
  values?: string[]
  value?: string
  inverted?: boolean
  caseInsensitive?: boolean
}

/** List values as the SDK cleans them: empty ones dropped, the rest trimmed. */
const cleanValues = (values: readonly string[] | undefined) => (values ?? []).filter((v) => !!v).map((v) => v.trim())

const SEMVER: Record<string, (c: number) => boolean> = {
  SEMVER_EQ: (c) => c === 0,
  SEMVER_GT: (c) => c > 0,
  SEMVER_LT: (c) => c < 0,
  SEMVER_GTE: (c) => c >= 0,
  SEMVER_LTE: (c) => c <= 0,
}

const NUMBER: Record<string, (a: number, b: number) => boolean> = {
  NUM_EQ: (a, b) => a === b,
  NUM_GT: (a, b) => a > b,
  NUM_GTE: (a, b) => a >= b,
  NUM_LT: (a, b) => a < b,
  NUM_LTE: (a, b) => a <= b,
}

const isValidSemver = (version: string) => Boolean(semver.valid(version)) && !version.startsWith('v')

/** One constraint as a test; its values parsed, cleaned and compiled once. */
function compileConstraint (c: RawConstraint): Test {
  const field = c.contextName
  const { operator } = c
  let test: Test
  if (operator === 'IN' || operator === 'NOT_IN') {
    const values = new Set(cleanValues(c.values))
    const wanted = operator === 'IN'
    test = (e) => {
      const v = resolveContextValue(e.context, field)
      return (v !== undefined && values.has(v)) === wanted
    }
  } else if (operator === 'STR_STARTS_WITH' || operator === 'STR_ENDS_WITH' || operator === 'STR_CONTAINS') {
    const insensitive = Boolean(c.caseInsensitive)
    const values = cleanValues(c.values).map((v) => (insensitive ? v.toLocaleLowerCase() : v))
    const matches =
      operator === 'STR_STARTS_WITH' ? (s: string, v: string) => s.startsWith(v) : operator === 'STR_ENDS_WITH' ? (s: string, v: string) => s.endsWith(v) : (s: string, v: string) => s.includes(v)
    test = (e) => {
      let v = resolveContextValue(e.context, field)
      if (v === undefined) return false
      if (insensitive) v = v.toLocaleLowerCase()
      for (const value of values) if (matches(v, value)) return true
      return false
    }
  } else if (operator in NUMBER) {
    const compare = NUMBER[operator]!
    const value = Number(c.value)
    test = Number.isNaN(value)
      ? never
      : (e) => {
          const v = Number(resolveContextValue(e.context, field))
          return !Number.isNaN(v) && compare(v, value)
        }
  } else if (operator === 'DATE_AFTER' || operator === 'DATE_BEFORE') {
    const value = new Date(c.value as string).getTime()
    test = operator === 'DATE_AFTER' ? (e) => e.time() > value : (e) => e.time() < value
  } else if (operator in SEMVER) {
    const holds = SEMVER[operator]!
    const value = semver.valid(c.value ?? '') === null ? undefined : new semver.SemVer(c.value as string)
    test = value === undefined
      ? never
      : (e) => {
          const v = resolveContextValue(e.context, field)
          if (!v || !isValidSemver(v)) return false
          return holds(semver.compare(v, value))
        }
  } else if (operator === 'REGEX') {
    let regex: RE2JS | undefined
    try {
      regex = RE2JS.compile(c.value as string, c.caseInsensitive ? RE2JS.CASE_INSENSITIVE : undefined)
    } catch {
      regex = undefined
    }
    const compiled = regex
    test = compiled === undefined
      ? never
      : (e) => {
          const v = resolveContextValue(e.context, field)
          if (v === undefined) return false
          try {
            return compiled.matcher(v).find()
          } catch {
            return false
          }
        }
  } else if (operator === 'IN_CIDR') {
    const ranges = cleanValues(c.values).map((range) => {
      const v4 = Address4.isValid(range) ? new Address4(range) : undefined
      const v6 = Address6.isValid(range) ? new Address6(range) : undefined
      return { v4, v6, v4Form: v4?.correctForm(), v6Form: v6?.correctForm() }
    })
    test = (e) => {
      const v = resolveContextValue(e.context, field)
      if (v === undefined) return false
      const address = e.address(v)
      if (address === null) return false
      const form = address.correctForm()
      if (address instanceof Address4) return ranges.some((r) => r.v4 !== undefined && (form === r.v4Form || address.isInSubnet(r.v4)))
      return ranges.some((r) => r.v6 !== undefined && (form === r.v6Form || address.isInSubnet(r.v6)))
    }
  } else {
    // An operator the SDK does not know is false, inverted or not.
    return never
  }
  if (c.inverted) {
    const inner = test
    return (e) => !inner(e)
  }
  return test
}

/** What makes two constraints the same test. */
const constraintKey = (c: RawConstraint) => JSON.stringify([c.contextName, c.operator, c.values ?? null, c.value ?? null, Boolean(c.inverted), Boolean(c.caseInsensitive)])

/**
 * Constraints compiled once per state: a constraint that several strategies have (the same
 * segment, the same rule on several flags) is one test, and its result is kept for the rest of
 * the request in the evaluation's memo (a constraint reads only the context, and the clock read
 * once per request). One that appears once is not memoised (nothing to gain).
 */
class ConstraintTests {
  readonly #uses = new Map<string, number>()
  readonly #tests = new Map<string, Test>()
  /** Slots of the per-request memo. */
  slots = 0

  count (c: RawConstraint) {
    const key = constraintKey(c)
    this.#uses.set(key, (this.#uses.get(key) ?? 0) + 1)
  }

  test (c: RawConstraint): Test {
    const key = constraintKey(c)
    let test = this.#tests.get(key)
    if (test === undefined) {
      const inner = compileConstraint(c)
      if ((this.#uses.get(key) ?? 0) < 2 || inner === never || inner === always) {
        test = inner
      } else {
        const slot = this.slots++
        test = (e) => {
          const memo = e.memo
          if (memo === undefined) return inner(e)
          const kept = memo[slot]
          if (kept !== 0) return kept === 1
          const holds = inner(e)
          memo[slot] = holds ? 1 : 2
          return holds
        }
      }
      this.#tests.set(key, test)
    }
    return test
  }
}

/** All of a strategy's constraints, then those of its segments, in order; a missing segment fails. */
function compileConstraints (shared: ConstraintTests, constraints: readonly RawConstraint[], segments: readonly (readonly RawConstraint[] | undefined)[]): Test {
  const tests: Test[] = []
  for (const c of constraints) tests.push(shared.test(c))
  for (const segment of segments) {
    if (segment === undefined) {
      tests.push(never)
      break
    }
    for (const c of segment) tests.push(shared.test(c))
  }
  if (tests.length === 0) return always
  if (tests.length === 1) return tests[0]!
  return (e) => {
    for (const t of tests) if (!t(e)) return false
    return true
  }
}

/** The SDK's applicationHostname: the process's host name, lower case. */
const HOSTNAME = (process.env.HOSTNAME || hostname() || 'undefined').toLowerCase()

const splitList = (list: string | undefined) => (list ? list.split(/\s*,\s*/) : [])

/** A built-in strategy's own rule (after its constraints); undefined for a strategy the SDK does not know. */
function compileStrategyRule (name: string, parameters: Record<string, string>): Test | undefined {
  switch (name) {
    case 'default':
      return always
    case 'flexibleRollout': {
      const percentage = Number(parameters.rollout)
      const stickiness = parameters.stickiness || 'default'
      if (!(percentage > 0)) return never
      const given = parameters.groupId
      // Without a groupId, the SDK falls back to the context's featureToggle field.
      const group = given ? rolloutGroup(given) : undefined
      const bucket = (id: string, e: Evaluation) => (group !== undefined ? bucketRest(group, e.rest(id)) : strategyBucket(id, `${(e.context.featureToggle as string | undefined) || ''}`))
      // At 100 % a stickiness that always yields an id is on for everyone.
      if (percentage >= 100 && (stickiness === 'default' || stickiness === 'random')) return always
      const randomId = (e: Evaluation) => `${Math.round(e.random() * 10000) + 1}`
      const id =
        stickiness === 'default'
          ? (e: Evaluation) => (e.context.userId as string | undefined) || (e.context.sessionId as string | undefined) || randomId(e)
          : stickiness === 'random'
            ? randomId
            : (e: Evaluation) => resolveContextValue(e.context, stickiness)
      if (stickiness === 'default' && group !== undefined) {
        // The common rollout, with one call less: the id of default stickiness is never empty.
        return (e) => {
          const { userId, sessionId } = e.context as { userId?: string; sessionId?: string }
          return bucketRest(group, e.rest(`${userId || sessionId || randomId(e)}`)) <= percentage
        }
      }
      return (e) => {
        const stickinessId = id(e)
        if (!stickinessId) return false
        return bucket(`${stickinessId}`, e) <= percentage
      }
    }
    case 'gradualRolloutUserId':
    case 'gradualRolloutSessionId': {
      const field = name === 'gradualRolloutUserId' ? 'userId' : 'sessionId'
      const percentage = Number(parameters.percentage)
      const group = rolloutGroup(parameters.groupId || '')
      if (!(percentage > 0)) return never
      return (e) => {
        const id = e.context[field]
        return Boolean(id) && bucketIn(group, `${id as string}`) <= percentage
      }
    }
    case 'gradualRolloutRandom': {
      const percentage = Number(parameters.percentage)
      if (percentage >= 100) return always
      if (!(percentage >= 1)) return never
      return (e) => percentage >= Math.floor(e.random() * 100) + 1
    }
    case 'userWithId': {
      const ids = new Set(splitList(parameters.userIds))
      if (ids.size === 0) return never
      return (e) => e.context.userId !== undefined && ids.has(e.context.userId as string)
    }
    case 'remoteAddress': {
      if (!parameters.IPs) return never
      const ranges = parameters.IPs.split(/\s*,\s*/).map((range) => {
        try {
          return { range, subnet: new Address4(range) }
        } catch {
          return { range, subnet: undefined }
        }
      })
      return (e) => {
        const remote = e.context.remoteAddress
        let address: Address4 | null | undefined
        return ranges.some(({ range, subnet }) => {
          if (range === remote) return true
          if (subnet === undefined) return false
          if (address === undefined) {
            try {
              address = new Address4((remote as string) || '')
            } catch {
              address = null
            }
          }
          try {
            return address !== null && address.isInSubnet(subnet)
          } catch {
            return false
          }
        })
      }
    }
    case 'applicationHostname':
      return splitList(parameters.hostNames?.toLowerCase()).includes(HOSTNAME) ? always : never
    default:
      return undefined
  }
}

/** A list of variants, compiled: picks an index (or -1 for none), as the SDK's selectVariantDefinition. */
type Select = (e: Evaluation) => number

/** The SDK's getSeed: the stickiness field, or (for default) userId, sessionId, remoteAddress; else random. */
function seedOf (stickiness: string): (e: Evaluation) => string {
  const random = (e: Evaluation) => String(Math.round(e.random() * 100000))
  if (stickiness !== 'default') {
    return (e) => resolveContextValue(e.context, stickiness) || random(e)
  }
  return (e) => {
    const { userId, sessionId, remoteAddress } = e.context
    if (typeof userId === 'string' && userId !== '') return userId
    if (typeof sessionId === 'string' && sessionId !== '') return sessionId
    if (typeof remoteAddress === 'string' && remoteAddress !== '') return remoteAddress
    return random(e)
  }
}

function compileSelect (groupId: string, stickiness: string | undefined, variants: readonly Variant[]): Select {
  const weights = variants.map((v) => v.weight)
  const total = weights.reduce((sum, w) => sum + w, 0)
  if (!(total > 0)) return () => -1
  const overrides = variants.flatMap((v, index) => (v.overrides ? [{ index, overrides: v.overrides }] : []))
  const positive = weights.flatMap((w, i) => (w !== 0 ? [i] : []))
  // One variant with weight, and no overrides: every target picks it.
  if (overrides.length === 0 && positive.length === 1) {
    const only = positive[0]!
    return () => only
  }
  const seed = seedOf(stickiness ?? 'default')
  const group = variantGroup(groupId)
  const pick = (e: Evaluation) => {
    const target = (murmurRest(group, e.rest(seed(e))) % total) + 1
    let counter = 0
    for (const i of positive) {
      counter += weights[i]!
      if (counter >= target) return i
    }
    return -1
  }
  if (overrides.length === 0) return pick
  return (e) => {
    for (const { index, overrides: list } of overrides) {
      for (const o of list) {
        const value = resolveContextValue(e.context, o.contextName)
        if (o.values.some((v) => v === value)) return index
      }
    }
    return pick(e)
  }
}

interface CompiledStrategy {
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
  const segments = new Map(state.segments.map((s) => [s.id, s.constraints as RawConstraint[]]))
  const shared = new ConstraintTests()
  for (const feature of state.features) {
    for (const s of feature.strategies) {
      for (const c of s.constraints as RawConstraint[]) shared.count(c)
      for (const id of s.segments ?? []) for (const c of segments.get(id) ?? []) shared.count(c)
    }
  }
  const byName = new Map<string, CompiledFeature>()
  const definitions = new Map(state.features.map((f) => [f.name, f]))
  const compiled = state.features.map((feature) => {
    const choices: VariantChoice[] = []
    const strategies: CompiledStrategy[] = []
    for (const s of feature.strategies) {
      const rule = compileStrategyRule(s.name, s.parameters)
      if (rule === undefined) continue
      const variants = s.variants as Variant[]
      const base = choices.length
      let select: Select | undefined
      if (variants.length > 0) {
        for (const v of variants) choices.push({ name: v.name, payload: v.payload, fromStrategy: true })
        select = compileSelect(`${s.parameters.groupId}`, variants[0]!.stickiness || s.parameters.stickiness, variants)
      }
      const constraints = compileConstraints(shared, s.constraints as RawConstraint[], (s.segments ?? []).map((id) => segments.get(id)))
      strategies.push({ constraints, rule, select, base })
    }
    const featureBase = choices.length
    for (const v of feature.variants) choices.push({ name: v.name, payload: v.payload, fromStrategy: false })
    const featureSelect = feature.variants.length > 0 ? compileSelect(feature.name, feature.variants[0]!.stickiness ?? undefined, feature.variants) : undefined
    const variantOf = (e: Evaluation): Outcome => {
      if (featureSelect === undefined) return ON
      const i = featureSelect(e)
      return i < 0 ? ON : 2 + featureBase + i
    }
    const parents = feature.dependencies.map((d) => ({ ...d, definition: definitions.get(d.feature) }))
    const satisfied = (e: Evaluation): boolean =>
      parents.every((d) => {
        const parent = d.definition === undefined ? undefined : byName.get(d.feature)
        if (parent === undefined || d.definition === undefined) return false
        if (d.definition.dependencies.length > 0) return false
        const o = parent.outcome(e)
        if (d.enabled !== false) {
          if (d.variants?.length) return o !== OFF && d.variants.includes(variantName(parent, o))
          return o !== OFF
        }
        return o === OFF
      })
    let outcome: (e: Evaluation) => Outcome
    if (!feature.enabled) {
      outcome = () => OFF
    } else {
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
      let direct = evaluate
      if (plain) {
        const tests = strategies.map(({ constraints, rule }) => (constraints === always ? rule : rule === always ? constraints : (e: Evaluation) => constraints(e) && rule(e)))
        const [first, second] = tests as [Test, Test]
        direct = tests.length === 2 ? (e) => (first(e) || second(e) ? ON : OFF) : (e) => (tests.some((t) => t(e)) ? ON : OFF)
      } else if (only !== undefined) {
        const { constraints, rule, select, base } = only
        if (select === undefined) {
          const test = constraints === always ? rule : rule === always ? constraints : undefined
          direct = test !== undefined ? (e) => (test(e) ? ON : OFF) : (e) => (constraints(e) && rule(e) ? ON : OFF)
        } else {
          direct = (e) => {
            if (!constraints(e) || !rule(e)) return OFF
            const i = select(e)
            return i >= 0 ? 2 + base + i : ON
          }
        }
      }
      outcome = parents.length === 0 ? direct : (e) => (satisfied(e) ? direct(e) : OFF)
    }
    const result: CompiledFeature = { name: feature.name, project: feature.project, impressionData: Boolean(feature.impressionData), choices, outcome }
    byName.set(feature.name, result)
    return result
  })
  return { features: compiled, memoSlots: shared.slots }
}

/** The variant name an outcome answers ('disabled' when there is none, as the SDK's). */
export function variantName (feature: CompiledFeature, outcome: Outcome): string {
  return outcome >= 2 ? feature.choices[outcome - 2]!.name : 'disabled'
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

/** The variant the SDK's getVariant answers, with its feature's state; members in the SDK's order. */
export interface VariantAnswer {
  name: string
  enabled: boolean
  payload?: Payload
  feature_enabled: boolean
  featureEnabled: boolean
}

/** An outcome as the SDK's getVariant answers it (strategy and feature variants order their members differently). */
export function variantAnswer (feature: CompiledFeature, outcome: Outcome): VariantAnswer {
  if (outcome === OFF) return { name: 'disabled', enabled: false, feature_enabled: false, featureEnabled: false }
  if (outcome === ON) return { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true }
  const { name, payload, fromStrategy } = feature.choices[outcome - 2]!
  return fromStrategy
    ? { name, enabled: true, payload, feature_enabled: true, featureEnabled: true }
    : ({ name, payload, enabled: true, feature_enabled: true, featureEnabled: true } as VariantAnswer)
}
