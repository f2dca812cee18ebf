import type { Static } from '@sinclair/typebox'
import { applyPatch, type Operation } from 'rfc6902'
import { badData, type ErrorDetail } from '../errors.js'
import { ajvErrorDetails, bodyAjv } from '../http/validation.js'
import {
  type PatchOperation as PatchOperationSchema,
  VariantInput as VariantInputSchema,
  type Variant as VariantSchema,
} from './variants.schemas.js'
import { distributeWeights } from './weights.js'

export type Variant = Static<typeof VariantSchema>
export type PatchOperation = Static<typeof PatchOperationSchema>
type VariantInput = Static<typeof VariantInputSchema>

const checkVariantShape = bodyAjv.compile<VariantInput>(VariantInputSchema)

/** RFC 8259 number grammar, so "1e3" and "-0.5" pass and "abc", "0x10", " 1" do not. */
const NUMBER_LITERAL = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/

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
    if (!NUMBER_LITERAL.test(payload.value) || !Number.isFinite(Number(payload.value))) {
      return 'must be a finite number'
    }
  }
  return undefined
}

/** Fixed member order, so equal variants serialise equally whatever order JSONB gave back. */
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

/**
 * Validates a candidate variants array (spec section 2), fills in defaults and applies the
 * weight rule. `pathPrefix` roots the error paths: `/variants` after a patch, `/body` for PUT.
 */
export function validateVariants (
  candidate: unknown,
  maxVariants: number,
  pathPrefix: string
): Variant[] {
  if (!Array.isArray(candidate)) {
    throw badData('The variants must be an array', [
      { path: pathPrefix, message: `${pathPrefix || '/'} must be an array` },
    ])
  }
  if (candidate.length > maxVariants) {
    throw badData(`At most ${maxVariants} variants are allowed, got ${candidate.length}`, [
      { path: pathPrefix, message: `${pathPrefix} must have at most ${maxVariants} items` },
    ])
  }
  const problems: ErrorDetail[] = []
  const names = new Set<string>()
  candidate.forEach((item, i) => {
    const at = `${pathPrefix}/${i}`
    if (!checkVariantShape(item)) {
      problems.push(...ajvErrorDetails(checkVariantShape.errors ?? [], at))
      return
    }
    if (names.has(item.name)) {
      problems.push({ path: `${at}/name`, message: `${at}/name "${item.name}" is not unique` })
    }
    names.add(item.name)
    const problem = item.payload && payloadProblem(item.payload)
    if (problem) {
      problems.push({ path: `${at}/payload/value`, message: `${at}/payload/value ${problem}` })
    }
  })
  const first = problems[0]
  if (first) throw badData(first.message, problems)
  return distributeWeights((candidate as VariantInput[]).map(normalizeVariant))
}

const ROOT = '/root'

/**
 * Applies RFC 6902 operations in order, all or nothing, to a copy of `variants`. The document
 * is wrapped as `{root: variants}` so that an operation on the whole document (path "") works.
 */
export function applyPatches (variants: readonly Variant[], operations: PatchOperation[]): unknown {
  const doc = { root: structuredClone(variants) as unknown }
  operations.forEach((operation, index) => {
    const rooted = {
      ...operation,
      path: ROOT + operation.path,
      ...(operation.from !== undefined && { from: ROOT + operation.from }),
    } as Operation
    let failure: string | undefined
    try {
      const [result] = applyPatch(doc, [rooted])
      if (result) failure = describeFailure(result, operation)
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error)
    }
    if (failure !== undefined) {
      const message = `Operation ${index} (${operation.op} ${operation.path || '""'}) cannot be applied: ${failure}`
      throw badData(message, [{ path: `/body/${index}`, message }])
    }
  })
  return doc.root
}

function describeFailure (result: Error, operation: PatchOperation): string {
  if (result.name === 'MissingError') {
    const source = operation.op === 'move' || operation.op === 'copy'
    return source
      ? `${operation.from} or the parent of ${operation.path} does not exist`
      : `${operation.path || '""'} does not exist${operation.op === 'add' ? ' or is beyond the end of the array' : ''}`
  }
  return result.message.replaceAll(ROOT, '')
}

export const sameVariants = (a: readonly Variant[], b: readonly Variant[]) =>
  JSON.stringify(a) === JSON.stringify(b)
