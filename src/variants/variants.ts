import { problem, problemAt, type RuleProblem, RuleError } from '../errors.js'
import { ajvProblems, isFiniteNumberText, strictAjv } from '../validation.js'
import { applyPatches } from './json-patch.js'
import { type PatchOperation, type Variant, VariantInput } from './variants.schemas.js'
import { distributeWeights } from './weights.js'

export interface VariantLimits {
  maxVariants: number
  /** Largest serialised variants array, in bytes. */
  maxBytes: number
}

/** Variants validated and completed, with the JSON text that is stored and served for them. */
export interface ValidVariants {
  variants: Variant[]
  json: string
}

const checkVariantShape = strictAjv.compile<VariantInput>(VariantInput)

function payloadProblem (payload: NonNullable<VariantInput['payload']>): string | undefined {
  if (payload.type === 'json') {
    try {
      const parsed: unknown = JSON.parse(payload.value)
      if (typeof parsed !== 'object' || parsed === null) return 'must be a JSON object or array'
    } catch {
      return 'must be valid JSON'
    }
  }
  if (payload.type === 'number') {
    if (!isFiniteNumberText(payload.value)) {
      return 'must be a finite number'
    }
  }
  return undefined
}

/**
 * Defaults filled in and members in one fixed order, so that equal variants serialise to
 * equal text: the stored text is compared with a new result to tell whether anything changed.
 */
export function normalizeVariant (v: VariantInput): Variant {
  return {
    name: v.name,
    weight: v.weight,
    weightType: v.weightType ?? 'variable',
    stickiness: v.stickiness ?? 'default',
    ...(v.payload !== undefined && { payload: { type: v.payload.type, value: v.payload.value } }),
    ...(v.overrides !== undefined && {
      overrides: v.overrides.map((o) => ({ contextName: o.contextName, values: o.values })),
    }),
  }
}

/** The stored and served form of a variants array. */
export const serializeVariants = (variants: Variant[]): string => JSON.stringify(variants)

/**
 * Validates a candidate variants array, fills in defaults, applies the weight rule and
 * serialises the result. Problems are placed within the array (`/0/weight`): a variant of
 * the wrong shape, a duplicate name (case-sensitive), a payload whose value does not fit its
 * type, too many variants, or too many bytes.
 */
export function validateVariants (candidate: unknown, limits: VariantLimits): ValidVariants {
  if (!Array.isArray(candidate)) {
    throw new RuleError('variants', [problemAt('', 'must be an array')])
  }
  if (candidate.length > limits.maxVariants) {
    throw new RuleError('variants', [
      problemAt('', `must have at most ${limits.maxVariants} items, not ${candidate.length}`),
    ])
  }
  const problems: RuleProblem[] = []
  const names = new Set<string>()
  candidate.forEach((item, i) => {
    const at = `/${i}`
    if (!checkVariantShape(item)) {
      problems.push(...ajvProblems(checkVariantShape.errors ?? [], at))
      return
    }
    if (names.has(item.name)) problems.push(problemAt(`${at}/name`, `"${item.name}" is not unique`))
    names.add(item.name)
    const payload = item.payload && payloadProblem(item.payload)
    if (payload) problems.push(problemAt(`${at}/payload/value`, payload))
  })
  const [first, ...rest] = problems
  if (first) throw new RuleError('variants', [first, ...rest])
  const variants = distributeWeights((candidate as VariantInput[]).map(normalizeVariant))
  const json = serializeVariants(variants)
  const bytes = Buffer.byteLength(json)
  if (bytes > limits.maxBytes) {
    throw new RuleError('variants', [
      problem(`The variants would be ${bytes} bytes, more than the limit of ${limits.maxBytes}`, ''),
    ])
  }
  return { variants, json }
}

/** What a write does to the stored variants (their JSON text): PATCH applies operations, PUT replaces them. */
export type VariantsRule = (storedJson: string) => ValidVariants

/**
 * PATCH: the operations applied in order to the stored variants, limits holding after every
 * operation (the patch engine's item and byte limits are the variants' own), then the result
 * validated as a replacement would be.
 */
export const patchRule = (operations: readonly PatchOperation[], limits: VariantLimits): VariantsRule => (storedJson) =>
  validateVariants(
    applyPatches(JSON.parse(storedJson), Buffer.byteLength(storedJson), operations, { maxItems: limits.maxVariants, maxBytes: limits.maxBytes }),
    limits
  )

/** PUT: the variants sent, validated; what was stored does not matter. */
export const replaceRule = (variants: unknown, limits: VariantLimits): VariantsRule => () => validateVariants(variants, limits)
