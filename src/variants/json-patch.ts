import { applyPatch, type Operation } from 'rfc6902'
import { problem, RuleError } from '../errors.js'
import { formatPointer, parsePointer } from '../json-pointer.js'
import type { PatchOperation } from './variants.schemas.js'

export interface PatchLimits {
  /** Most items the document (an array) may have after any operation. */
  maxItems: number
  /**
   * Most bytes (compact UTF-8 JSON) the document may have after any operation, and the most
   * a patch may duplicate with `copy` in all: copying and removing a large value over and
   * over would otherwise cost time without ever growing the document.
   */
  maxBytes: number
}

type Container = unknown[] | Record<string, unknown>

interface Target {
  /** Undefined for the whole document. */
  parent?: Container
  key: string
  exists: boolean
  value: unknown
}

/** Member names that rfc6902 skips while resolving a pointer (its prototype-pollution guard). */
const RESERVED = new Set(['__proto__', 'constructor', 'prototype'])
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/

const isContainer = (value: unknown): value is Container =>
  typeof value === 'object' && value !== null

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '')

/**
 * Resolves a pointer exactly as RFC 6901 says: array indexes are digits without leading
 * zeros, `-` names the place after the last item, members must be the object's own. Returns
 * why it cannot be resolved otherwise. `detached` is a location treated as already removed
 * (a move's source, when resolving where the value goes).
 */
function locate (doc: unknown, pointer: string, detached?: Target): Target | string {
  const tokens = parsePointer(pointer)
  if (tokens.length === 0) return { key: '', exists: true, value: doc }
  let current = doc
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string
    const last = i === tokens.length - 1
    // Only a refusal needs the place spelled out.
    const here = () => formatPointer(tokens.slice(0, i + 1))
    if (!isContainer(current)) return `${formatPointer(tokens.slice(0, i)) || 'the document'} is not an array or object`
    if (Array.isArray(current)) {
      const shift = detached?.parent === current ? Number(detached.key) : Infinity
      const length = current.length - (shift === Infinity ? 0 : 1)
      if (token === '-' && last) return { parent: current, key: '-', exists: false, value: undefined }
      if (!ARRAY_INDEX.test(token)) return `${here()}: "${token}" is not an array index`
      const index = Number(token)
      const real = index >= shift ? index + 1 : index
      if (last) return { parent: current, key: String(index), exists: index < length, value: current[real] }
      if (index >= length) return `${here()} does not exist`
      current = current[real]
    } else {
      if (RESERVED.has(token)) return `${here()} names the reserved member "${token}"`
      const exists = Object.hasOwn(current, token) && !(detached?.parent === current && detached.key === token)
      if (last) return { parent: current, key: token, exists, value: exists ? current[token] : undefined }
      if (!exists) return `${here()} does not exist`
      current = current[token]
    }
  }
  throw new Error('unreachable')
}

/** Where `add` (and the target of copy and move) may put a value: RFC 6902 section 4.1. */
function placeFor (doc: unknown, pointer: string, detached?: Target): Target | string {
  const target = locate(doc, pointer, detached)
  if (typeof target === 'string') return target
  if (Array.isArray(target.parent) && target.key !== '-') {
    const length = target.parent.length - (detached?.parent === target.parent ? 1 : 0)
    if (Number(target.key) > length) return `${pointer} is beyond the end of the array (length ${length})`
  }
  return target
}

/** A value that must exist: the target of remove and replace, the source of copy and move. */
function existing (doc: unknown, pointer: string): Target | string {
  const target = locate(doc, pointer)
  if (typeof target === 'string') return target
  if (target.key === '-') return `${pointer}: "-" names no item; it can only be added to`
  return target.exists ? target : `${pointer} does not exist`
}

/** Moves without cloning: the value leaves its place, then goes in at the target. */
function move (from: Target, to: Target) {
  const value = from.value
  if (Array.isArray(from.parent)) from.parent.splice(Number(from.key), 1)
  else if (from.parent) delete from.parent[from.key]
  if (Array.isArray(to.parent)) {
    to.parent.splice(to.key === '-' ? to.parent.length : Number(to.key), 0, value)
  } else if (to.parent) {
    to.parent[to.key] = value
  }
}

const ROOT = '/root'
const rooted = (pointer: string) => ROOT + pointer

/**
 * Applies RFC 6902 operations in order to `document` (which it changes; pass a copy), all or
 * nothing. Each operation's cost is known before it runs, and the first one that would take
 * the document past `limits` is refused, so the work of a patch is bounded by the limits and
 * not by what the operations would build. Refusals name the operation by index (`/N` in the
 * operations document).
 *
 * add, remove, replace and copy are applied with rfc6902 once this function has checked that
 * they mean what RFC 6902 says (rfc6902 silently ignores some impossible ones, such as
 * replacing "/-"); move is done here, because RFC 6902 resolves its target after the source
 * is removed and rfc6902 resolves it before. The document is wrapped as `{root: document}`
 * so that an operation on the whole document (path "") works.
 */
export function applyPatches (
  document: unknown,
  documentBytes: number,
  operations: readonly PatchOperation[],
  limits: PatchLimits
): unknown {
  const wrapper = { root: document }
  let bytes = documentBytes
  let copied = 0
  operations.forEach((operation, index) => {
    const refuse = (reason: string): never => {
      const text = `Operation ${index} (${operation.op} ${operation.path || '""'}) cannot be applied: ${reason}`
      throw new RuleError('operations', [problem(text, `/${index}`)])
    }
    const found = (result: Target | string): Target => (typeof result === 'string' ? refuse(result) : result)
    const doc = wrapper.root
    const { op, path } = operation
    const from = operation.from ?? ''
    let grows: number
    let moving: { source: Target; target: Target } | undefined
    // A JSON body always has one; a caller composing writes in code might not.
    if ((op === 'add' || op === 'replace') && operation.value === undefined) refuse('it has no value')
    if (op === 'add') {
      grows = bytesOf(operation.value) - overwrittenBytes(found(placeFor(doc, path)))
    } else if (op === 'replace') {
      grows = bytesOf(operation.value) - bytesOf(found(existing(doc, path)).value)
    } else if (op === 'remove') {
      if (path === '') refuse('the whole document cannot be removed')
      grows = -bytesOf(found(existing(doc, path)).value)
    } else if (op === 'copy') {
      const size = bytesOf(found(existing(doc, from)).value)
      copied += size
      if (copied > limits.maxBytes) {
        refuse(`the copies in this patch would duplicate ${copied} bytes, more than the limit of ${limits.maxBytes}`)
      }
      grows = size - overwrittenBytes(found(placeFor(doc, path)))
    } else {
      if (from === '') refuse('the whole document cannot be moved')
      if (path.startsWith(`${from}/`)) refuse(`${from} cannot be moved into its own child`)
      const source = found(existing(doc, from))
      const target = found(placeFor(doc, path, source))
      moving = { source, target }
      grows = -overwrittenBytes(target)
    }
    if (bytes + grows > limits.maxBytes) {
      refuse(`the result would be about ${bytes + grows} bytes, more than the limit of ${limits.maxBytes}`)
    }
    bytes += grows
    if (moving) {
      move(moving.source, moving.target)
    } else {
      const [failure] = applyPatch(wrapper, [toRooted(operation)])
      // Every case rfc6902 refuses was refused above; an answer here is a defect of ours.
      if (failure) throw new Error(`rfc6902 refused an operation checked as valid: ${failure.name}`)
    }
    const root = wrapper.root
    if (Array.isArray(root) && root.length > limits.maxItems) {
      refuse(`the result would have ${root.length} items, more than the limit of ${limits.maxItems}`)
    }
  })
  return wrapper.root
}

/** Bytes a value put at `target` takes away: the whole document, or an object member it overwrites. */
function overwrittenBytes (target: Target): number {
  if (target.parent === undefined) return bytesOf(target.value)
  return target.exists && !Array.isArray(target.parent) ? bytesOf(target.value) : 0
}

function toRooted (operation: PatchOperation): Operation {
  return {
    ...operation,
    path: rooted(operation.path),
    ...(operation.from !== undefined && { from: rooted(operation.from) }),
  } as Operation
}
