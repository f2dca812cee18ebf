import type { Static } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import { ulid } from 'ulid'
import { lockFeatureEnvironment, readFeatureEnvironment } from '../features/features.store.js'
import { switchEnvironment } from '../features/features.service.js'
import type { FeatureEnvironmentRef } from '../features/missing.js'
import type { Database, Queryable } from '../db/types.js'
import { invalidField, notFound, RuleError } from '../errors.js'
import { type Change, withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { requireIfMatch } from '../http/conditional.js'
import { strongEtag } from '../http/etag.js'
import { ajvProblems, strictAjv } from '../validation.js'
import { applyPatches } from '../variants/json-patch.js'
import type { PatchOperation } from '../variants/variants.schemas.js'
import { segmentsById } from '../segments/segments.store.js'
import { findDefinition } from './definitions.store.js'
import { type FeatureStrategy, type newStrategySchema, type StoredStrategy, strategyDocumentSchema, type StrategyLimits, type updateStrategySchema } from './strategies.schemas.js'
import {
  deleteStrategy,
  findStrategy,
  hasActiveStrategy,
  insertStrategy,
  listStrategies,
  setSortOrder,
  strategyCount,
  updateStrategy,
} from './strategies.store.js'
import { resolveStrategy, type StrategyDocument, type StrategyInput } from './strategy-rules.js'

type NewStrategy = Static<ReturnType<typeof newStrategySchema>>
type UpdateStrategy = Static<ReturnType<typeof updateStrategySchema>>

/** The configured limits, and the checks compiled for them once. */
export interface StrategyRules {
  limits: StrategyLimits
  /** Largest strategy document a JSON Patch may build, in bytes. */
  maxBytes: number
  checkDocument: ValidateFunction
}

export function strategyRules (limits: StrategyLimits, maxBytes: number): StrategyRules {
  return { limits, maxBytes, checkDocument: strictAjv.compile(strategyDocumentSchema(limits)) }
}

/** The document a read returns (without the id): what PUT replaces and PATCH patches. */
const documentOf = (s: FeatureStrategy): StrategyDocument => ({
  name: s.name,
  title: s.title,
  disabled: s.disabled,
  sortOrder: s.sortOrder,
  parameters: s.parameters,
  constraints: s.constraints as StrategyDocument['constraints'],
  variants: s.variants,
  segments: s.segments,
})

const missingStrategy = (ref: FeatureEnvironmentRef, id: string) =>
  notFound(`Strategy ${id} does not exist for feature ${ref.feature} in environment ${ref.environment}`)

/**
 * A strategy about to be changed: its feature-environment locked (and whether the feature is on
 * there), the strategy read under that lock; 404 when it is not there, 412 when `ifMatch` does
 * not hold.
 */
async function lockStrategy (trx: Change['trx'], ref: FeatureEnvironmentRef, id: string, ifMatch: string | undefined) {
  const { enabled } = await lockFeatureEnvironment(trx, ref)
  const current = await findStrategy(trx, ref, id)
  if (!current) throw missingStrategy(ref, id)
  requireIfMatch(ifMatch, strongEtag(current.revision))
  return { enabled, current }
}

/** The definition a strategy names; 400 at `path` when there is none. */
async function definitionFor (db: Queryable, name: string, path: string) {
  const definition = await findDefinition(db, name)
  if (!definition) throw invalidField(path, `names no strategy definition: ${name} (GET /api/admin/strategies lists them; POST there adds a custom one)`)
  return definition
}

/**
 * The segments a strategy uses must exist and, when they belong to a project, to the
 * strategy's; 400 naming the first that does not, at `<root>/segments/<index>`. Their rows'
 * key locks are held, so that none is deleted before the change commits.
 */
async function checkSegments (change: Change, ref: FeatureEnvironmentRef, ids: readonly number[], root: string) {
  const found = new Map((await segmentsById(change.trx, ids)).map((s) => [s.id, s]))
  ids.forEach((id, i) => {
    const segment = found.get(id)
    if (!segment) throw invalidField(`${root}/segments/${i}`, `names no segment: ${id}`)
    if (segment.project !== null && segment.project !== ref.project) {
      throw invalidField(`${root}/segments/${i}`, `names segment ${segment.name} of project ${segment.project}, which only strategies of that project may use`)
    }
  })
}

/**
 * After a strategy was changed or removed: a feature switched on with no strategy left that is
 * not disabled would be on for everyone in every SDK, so it is switched off (as Unleash does),
 * with its event.
 */
async function switchOffIfNoActiveStrategy (change: Change, ref: FeatureEnvironmentRef, enabled: boolean, createdBy: Author) {
  if (!enabled || (await hasActiveStrategy(change.trx, ref))) return
  await switchEnvironment(change, ref, false, createdBy)
}

const eventOf = (ref: FeatureEnvironmentRef, createdBy: Author) => ({
  createdBy,
  project: ref.project,
  featureName: ref.feature,
  environment: ref.environment,
})

export async function strategiesOf (db: Database, ref: FeatureEnvironmentRef): Promise<FeatureStrategy[]> {
  await readFeatureEnvironment(db, ref)
  return (await listStrategies(db, ref)).map((s) => s.strategy)
}

export async function strategyOf (db: Database, ref: FeatureEnvironmentRef, id: string): Promise<StoredStrategy> {
  await readFeatureEnvironment(db, ref)
  const found = await findStrategy(db, ref, id)
  if (!found) throw missingStrategy(ref, id)
  return found
}

/** Adds a strategy to a feature-environment (feature-strategy-add). */
export function addStrategy (writer: Writer, ref: FeatureEnvironmentRef, body: NewStrategy, rules: StrategyRules, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    await lockFeatureEnvironment(trx, ref)
    const { count, nextSortOrder } = await strategyCount(trx, ref)
    if (count >= rules.limits.maxStrategies) {
      throw invalidField('/body', `would be strategy ${count + 1} of feature ${ref.feature} in ${ref.environment}; at most ${rules.limits.maxStrategies} are allowed (MAX_STRATEGIES)`)
    }
    const definition = await definitionFor(trx, body.name, '/body/name')
    const input: StrategyInput = {
      name: body.name,
      title: body.title ?? null,
      disabled: body.disabled ?? false,
      sortOrder: body.sortOrder ?? nextSortOrder,
      parameters: body.parameters ?? {},
      constraints: body.constraints ?? [],
      variants: body.variants ?? [],
      segments: body.segments ?? [],
    }
    const document = resolveStrategy(input, definition, ref.feature, rules.limits)
    await checkSegments({ trx, record }, ref, body.segments ?? [], '/body')
    const created = await insertStrategy(trx, ref, ulid(), document)
    record({ ...eventOf(ref, createdBy), type: 'feature-strategy-add', data: toJsonText(created.strategy) })
    return created
  })
}

/**
 * Writes a strategy's new document (PUT and PATCH): a document equal to the stored one changes
 * nothing and records nothing; otherwise the revision moves and feature-strategy-update records
 * both. Switching off follows when no active strategy is left.
 */
async function writeStrategy (change: Change, ref: FeatureEnvironmentRef, enabled: boolean, current: StoredStrategy, next: StrategyDocument, createdBy: Author) {
  if (JSON.stringify(next) === JSON.stringify(documentOf(current.strategy))) return current
  const updated = await updateStrategy(change.trx, current.strategy.id, next)
  change.record({ ...eventOf(ref, createdBy), type: 'feature-strategy-update', data: toJsonText(updated.strategy), preData: toJsonText(current.strategy) })
  await switchOffIfNoActiveStrategy(change, ref, enabled, createdBy)
  return updated
}

/**
 * PUT: replaces the strategy, as Unleash does: name, title and disabled are kept when left out;
 * parameters and constraints are replaced (empty when left out, with flexibleRollout's
 * defaults). Unlike Unleash, a sortOrder sent is applied (Unleash ignores it here).
 */
export function replaceStrategy (
  writer: Writer,
  ref: FeatureEnvironmentRef,
  id: string,
  body: UpdateStrategy,
  rules: StrategyRules,
  request: { ifMatch: string | undefined; createdBy: Author }
) {
  return withChange(writer, async (change) => {
    const { enabled, current } = await lockStrategy(change.trx, ref, id, request.ifMatch)
    const name = body.name ?? current.strategy.name
    const definition = await definitionFor(change.trx, name, '/body/name')
    const input: StrategyInput = {
      name,
      title: body.title === undefined ? current.strategy.title : body.title,
      disabled: body.disabled ?? current.strategy.disabled,
      sortOrder: body.sortOrder ?? current.strategy.sortOrder,
      parameters: body.parameters ?? {},
      constraints: body.constraints ?? [],
      variants: body.variants ?? [],
      segments: body.segments ?? current.strategy.segments,
    }
    const document = resolveStrategy(input, definition, ref.feature, rules.limits)
    if (body.segments !== undefined) await checkSegments(change, ref, body.segments, '/body')
    return writeStrategy(change, ref, enabled, current, document, request.createdBy)
  })
}

/**
 * PATCH: RFC 6902 operations on the strategy's document (`{name, title, disabled, sortOrder,
 * parameters, constraints, variants, segments}`), with the engine, limits and all-or-nothing
 * rules of the variants patch; the result must be a valid strategy.
 */
export function patchStrategy (
  writer: Writer,
  ref: FeatureEnvironmentRef,
  id: string,
  operations: PatchOperation[],
  rules: StrategyRules,
  request: { ifMatch: string | undefined; createdBy: Author }
) {
  return withChange(writer, async (change) => {
    const { enabled, current } = await lockStrategy(change.trx, ref, id, request.ifMatch)
    const document = documentOf(current.strategy)
    const text = JSON.stringify(document)
    // The limits of the document hold after every operation; an object has no item limit.
    const patched = applyPatches(JSON.parse(text), Buffer.byteLength(text), operations, { maxItems: Infinity, maxBytes: rules.maxBytes })
    if (!rules.checkDocument(patched)) {
      const [first, ...rest] = ajvProblems(rules.checkDocument.errors ?? [])
      throw new RuleError('strategy', [first!, ...rest])
    }
    const sent = patched as Partial<StrategyInput> & Pick<StrategyInput, 'name' | 'title' | 'disabled' | 'sortOrder' | 'parameters' | 'constraints'>
    const next: StrategyInput = { ...sent, variants: sent.variants ?? [], segments: sent.segments ?? [] }
    const definition = await definitionFor(change.trx, next.name, '/strategy/name')
    const resolved = resolveStrategy(next, definition, ref.feature, rules.limits)
    await checkSegments(change, ref, next.segments, '/strategy')
    return writeStrategy(change, ref, enabled, current, resolved, request.createdBy)
  })
}

/** Removes a strategy (feature-strategy-remove); switching off follows when no active one is left. */
export function removeStrategy (writer: Writer, ref: FeatureEnvironmentRef, id: string, request: { ifMatch: string | undefined; createdBy: Author }) {
  return withChange(writer, async (change) => {
    const { enabled, current } = await lockStrategy(change.trx, ref, id, request.ifMatch)
    await deleteStrategy(change.trx, id)
    change.record({ ...eventOf(ref, request.createdBy), type: 'feature-strategy-remove', preData: toJsonText(current.strategy) })
    await switchOffIfNoActiveStrategy(change, ref, enabled, request.createdBy)
  })
}

/**
 * Sets the sortOrder of strategies of a feature-environment (strategy-order-changed, with the
 * order before and after); an id that is not one of its strategies is a 400 naming it.
 */
export function reorderStrategies (writer: Writer, ref: FeatureEnvironmentRef, orders: { id: string; sortOrder: number }[], createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    await lockFeatureEnvironment(trx, ref)
    const before = await listStrategies(trx, ref)
    const byId = new Map(before.map((s) => [s.strategy.id, s.strategy]))
    orders.forEach(({ id }, i) => {
      if (!byId.has(id)) throw invalidField(`/body/${i}/id`, `is not a strategy of feature ${ref.feature} in environment ${ref.environment}`)
    })
    let changed = false
    for (const { id, sortOrder } of orders) {
      if (byId.get(id)!.sortOrder === sortOrder) continue
      await setSortOrder(trx, id, sortOrder)
      changed = true
    }
    if (!changed) return
    const after = await listStrategies(trx, ref)
    record({
      ...eventOf(ref, createdBy),
      type: 'strategy-order-changed',
      data: toJsonText({ strategyIds: after.map((s) => s.strategy.id) }),
      preData: toJsonText({ strategyIds: before.map((s) => s.strategy.id) }),
    })
  })
}

/**
 * When a feature is switched on in an environment where no strategy is active, it gets a
 * flexibleRollout at 100 % (stickiness default, groupId the feature name), as Unleash does.
 * Call inside the switching change, with the feature-environment locked.
 */
export async function addDefaultStrategyIfNone (change: Change, ref: FeatureEnvironmentRef, createdBy: Author) {
  if (await hasActiveStrategy(change.trx, ref)) return
  const { nextSortOrder } = await strategyCount(change.trx, ref)
  const created = await insertStrategy(change.trx, ref, ulid(), {
    name: 'flexibleRollout',
    title: null,
    disabled: false,
    sortOrder: nextSortOrder,
    parameters: { rollout: '100', stickiness: 'default', groupId: ref.feature },
    constraints: [],
    variants: [],
    segments: [],
  })
  change.record({ ...eventOf(ref, createdBy), type: 'feature-strategy-add', data: toJsonText(created.strategy) })
}
