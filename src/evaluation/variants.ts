import type { Variant } from '../variants/variants.schemas.js'
import { type Evaluation, resolveContextValue } from './context.js'
import { murmurRest, variantGroup } from './murmur.js'

type Payload = NonNullable<Variant['payload']>

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

/** A list of variants, compiled: picks an index (or -1 for none), as the SDK's selectVariantDefinition. */
export type Select = (e: Evaluation) => number

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

export function compileSelect (groupId: string, stickiness: string | undefined, variants: readonly Variant[]): Select {
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

/** The variant name an outcome answers ('disabled' when there is none, as the SDK's). */
export function variantName (feature: { choices: readonly VariantChoice[] }, outcome: Outcome): string {
  return outcome >= 2 ? feature.choices[outcome - 2]!.name : 'disabled'
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
export function variantAnswer (feature: { choices: readonly VariantChoice[] }, outcome: Outcome): VariantAnswer {
  if (outcome === OFF) return { name: 'disabled', enabled: false, feature_enabled: false, featureEnabled: false }
  if (outcome === ON) return { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true }
  const { name, payload, fromStrategy } = feature.choices[outcome - 2]!
  return fromStrategy
    ? { name, enabled: true, payload, feature_enabled: true, featureEnabled: true }
    : ({ name, payload, enabled: true, feature_enabled: true, featureEnabled: true } as VariantAnswer)
}
