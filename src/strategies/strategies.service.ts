import type { Static } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import { ulid } from 'ulid'
import { lockFeatureEnvironment, readFeatureEnvironment } from '../features/features.store.js'
import { switchEnvironment } from '../features/features.service.js'
import type { FeatureEnvironmentRef } from '../features/missing.js'
import type { Database } from '../db/types.js'
import { coversEnvironment, coversProject, type TokenScope } from '../access/scope.js'
import { invalidField, notFound, refusedAt, RuleError } from '../errors.js'
import { type Change, withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { requireIfMatch } from '../http/conditional.js'
import { strongEtag } from '../http/etag.js'
import { ajvProblems, strictAjv } from '../validation.js'
import { applyPatches } from '../variants/json-patch.js'
import type { PatchOperation } from '../variants/variants.schemas.js'
import { segmentsById, segmentsOfStrategy } from '../segments/segments.store.js'
import { findDefinitionForUse } from './definitions.store.js'
import { type FeatureStrategy, type NewStrategy, type StoredStrategy, STRATEGY_PLACES, strategyDocumentSchema, type StrategyLimits, type updateStrategySchema } from './strategies.schemas.js'
import {
  deleteStrategy,
  findStrategy,
  hasActiveStrategy,
  insertStrategy,
  listStrategies,
  projectDefaultStrategy,
  setSortOrder,
  strategyCount,
  strategyPlace,
  updateStrategy,
} from './strategies.store.js'
import { resolveStrategy, type StrategyDocument, type StrategyInput, strategyInput } from './strategy-rules.js'

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
async function definitionFor (trx: Change['trx'], name: string, path: string) {
  const definition = await findDefinitionForUse(trx, name)
  if (!definition) throw invalidField(path, `names no strategy definition: ${name} (GET /api/admin/strategies lists them; POST there adds a custom one)`)
  return definition
}

/**
 * The segments a strategy uses must exist and, when they belong to a project, to the
 * strategy's; 400 naming the first that does not, at `<root>/segments/<index>`. Their rows'
 * key locks are held, so that none is deleted before the change commits.
 */
async function checkSegments (change: Change, ref: FeatureEnvironmentRef, ids: readonly number[], root: string, member = 'segments') {
  const found = new Map((await segmentsById(change.trx, ids)).map((s) => [s.id, s]))
  ids.forEach((id, i) => {
    const segment = found.get(id)
    if (!segment) throw invalidField(`${root}/${member}/${i}`, `names no segment: ${id}`)
    if (segment.project !== null && segment.project !== ref.project) {
      throw invalidField(`${root}/${member}/${i}`, `names segment ${segment.name} of project ${segment.project}, which only strategies of that project may use`)
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

/** A new strategy's document, every rule of the strategy routes checked (definition, parameters, constraints, variants, segments); refusals at `/body`. */
async function resolveNew (change: Change, ref: FeatureEnvironmentRef, body: NewStrategy, sortOrder: number, rules: StrategyRules) {
  const definition = await definitionFor(change.trx, body.name, '/body/name')
  const document = resolveStrategy(strategyInput(body, sortOrder), definition, ref.feature, rules.limits)
  await checkSegments(change, ref, body.segments ?? [], '/body')
  return document
}

async function insertNew (change: Change, ref: FeatureEnvironmentRef, document: StrategyDocument, createdBy: Author) {
  const created = await insertStrategy(change.trx, ref, ulid(), document)
  change.record({ ...eventOf(ref, createdBy), type: 'feature-strategy-add', data: toJsonText(created.strategy) })
  return created
}

/** The refusal of a strategy past MAX_STRATEGIES: the `ordinal`th of its feature-environment, at `at`. */
export const tooManyStrategies = (at: string, ordinal: number, ref: Omit<FeatureEnvironmentRef, 'project'>, limits: StrategyLimits) =>
  invalidField(at, `would be strategy ${ordinal} of feature ${ref.feature} in ${ref.environment}; at most ${limits.maxStrategies} are allowed (MAX_STRATEGIES)`)

/** Adds a strategy to a feature-environment (feature-strategy-add). */
export function addStrategy (writer: Writer, ref: FeatureEnvironmentRef, body: NewStrategy, rules: StrategyRules, createdBy: Author) {
  return withChange(writer, async (change) => {
    await lockFeatureEnvironment(change.trx, ref)
    const { count, nextSortOrder } = await strategyCount(change.trx, ref)
    if (count >= rules.limits.maxStrategies) throw tooManyStrategies('/body', count + 1, ref, rules.limits)
    return insertNew(change, ref, await resolveNew(change, ref, body, nextSortOrder, rules), createdBy)
  })
}

/** Two lists of strategies say the same, in the same order (sortOrder compared only `withOrder`). */
const sameStrategies = (a: readonly StrategyDocument[], b: readonly StrategyDocument[], withOrder: boolean) => {
  const text = (d: StrategyDocument) => JSON.stringify({ ...d, sortOrder: withOrder ? d.sortOrder : 0 })
  return a.length === b.length && a.every((d, i) => text(d) === text(b[i]!))
}

/**
 * A feature-environment's strategies become `wanted`: in their sortOrder when any gives one,
 * else in the list's order. When they are these already (ids aside) nothing changes;
 * otherwise each is added as addStrategy adds one (its rules, feature-strategy-add) before the
 * old ones are removed (feature-strategy-remove), so that a feature that is on never passes
 * through having no strategy, which would switch it off. Only the final count is held to
 * MAX_STRATEGIES. A refusal names the element at `rootOf(index in wanted)`.
 */
export function setStrategies (
  writer: Writer,
  ref: FeatureEnvironmentRef,
  wanted: readonly NewStrategy[],
  rules: StrategyRules,
  createdBy: Author,
  rootOf: (index: number) => string = (index) => `/body/${index}`
) {
  return withChange(writer, async (change) => {
    const { enabled } = await lockFeatureEnvironment(change.trx, ref)
    const max = rules.limits.maxStrategies
    if (wanted.length > max) throw tooManyStrategies(rootOf(max), max + 1, ref, rules.limits)
    const ordered = wanted.some((s) => s.sortOrder !== undefined)
    const list = wanted.map((body, index) => ({ body, index }))
    if (ordered) list.sort((a, b) => (a.body.sortOrder ?? 0) - (b.body.sortOrder ?? 0))
    const current = (await listStrategies(change.trx, ref)).map((s) => s.strategy)
    const { nextSortOrder } = await strategyCount(change.trx, ref)
    const desired: StrategyDocument[] = []
    for (const [n, { body, index }] of list.entries()) {
      desired.push(await refusedAt(rootOf(index), () => resolveNew(change, ref, body, ordered ? 0 : nextSortOrder + n, rules), STRATEGY_PLACES))
    }
    if (sameStrategies(desired, current.map(documentOf), ordered)) return
    for (const document of desired) await insertNew(change, ref, document, createdBy)
    for (const old of current) await deleteOne(change, ref, old, createdBy)
    await switchOffIfNoActiveStrategy(change, ref, enabled, createdBy)
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
  // A body read back carries the strategy's own id (Unleash accepts it); another id is a mistake.
  if (body.id !== undefined && body.id !== id) throw invalidField('/body/id', `must be ${id}, the id in the path, if given: a strategy's id cannot change`)
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

async function deleteOne (change: Change, ref: FeatureEnvironmentRef, strategy: FeatureStrategy, createdBy: Author) {
  await deleteStrategy(change.trx, strategy.id)
  change.record({ ...eventOf(ref, createdBy), type: 'feature-strategy-remove', preData: toJsonText(strategy) })
}

/** Removes a strategy (feature-strategy-remove); switching off follows when no active one is left. */
export function removeStrategy (writer: Writer, ref: FeatureEnvironmentRef, id: string, request: { ifMatch: string | undefined; createdBy: Author }) {
  return withChange(writer, async (change) => {
    const { enabled, current } = await lockStrategy(change.trx, ref, id, request.ifMatch)
    await deleteOne(change, ref, current.strategy, request.createdBy)
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
 * When a feature is switched on in an environment where no strategy is active, it gets the
 * project's default strategy there (POST …/environments/{env}/default-strategy; without a
 * groupId, the feature's name), else a flexibleRollout at 100 % (stickiness default, groupId
 * the feature name), as Unleash does; feature-strategy-add names the environment like every
 * strategy event. A segment of the project's default that no longer exists is a 404 naming it
 * (leaving it out would widen who gets the feature). Call inside the switching change, with the
 * feature-environment locked.
 */
export async function addDefaultStrategyIfNone (change: Change, ref: FeatureEnvironmentRef, createdBy: Author) {
  if (await hasActiveStrategy(change.trx, ref)) return
  const { nextSortOrder } = await strategyCount(change.trx, ref)
  const stored = await projectDefaultStrategy(change.trx, ref)
  const document = stored === null ? builtInDefault(ref.feature, nextSortOrder) : fromProjectDefault(JSON.parse(stored) as StrategyDocument, ref.feature, nextSortOrder)
  const found = new Set((await segmentsById(change.trx, document.segments)).map((s) => s.id))
  const gone = document.segments.find((id) => !found.has(id))
  if (gone !== undefined) {
    throw notFound(`Segment ${gone} of the default strategy of project ${ref.project} in environment ${ref.environment} does not exist: set the default strategy again`)
  }
  await insertNew(change, ref, document, createdBy)
}

const builtInDefault = (feature: string, sortOrder: number): StrategyDocument => {
  const { name, parameters } = defaultStrategy(feature)
  return { name, title: null, disabled: false, sortOrder, parameters, constraints: [], variants: [], segments: [] }
}

/** A project's default strategy for one feature: at the end of its strategies, enabled, its groupId the feature's name unless it names one. */
const fromProjectDefault = (stored: StrategyDocument, feature: string, sortOrder: number): StrategyDocument => ({
  ...stored,
  disabled: false,
  sortOrder,
  parameters: { ...stored.parameters, groupId: stored.parameters.groupId || feature },
})

/** The strategy a feature switched on with none gets, as Unleash: flexibleRollout at 100 %, stickiness default, groupId the feature name. */
export const defaultStrategy = (feature: string) => ({ name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: feature } }) satisfies NewStrategy

/** Where a strategy is said to be (POST /api/admin/segments/strategies names it so). */
export interface StrategyPlace {
  project: string
  environment: string
  strategyId: string
}

/** The segments a strategy uses, when the reader may see its project and environment; none for a strategy that does not exist (as Unleash). */
export async function segmentsOfStrategyFor (db: Database, strategyId: string, token: TokenScope) {
  const place = await strategyPlace(db, strategyId)
  if (!place || !coversProject(token, place.project) || !coversEnvironment(token, place.environment)) return []
  return segmentsOfStrategy(db, strategyId)
}

/**
 * A strategy's segments become exactly these (feature-strategy-update with the strategy before
 * and after; the same segments again change nothing), each checked as a strategy's segments
 * are. Unlike Unleash, which checks neither and records nothing, the strategy must be of the
 * project and environment named (404 otherwise), so that a right in one project never reaches
 * another's strategy, and the change is recorded.
 */
export function setStrategySegments (writer: Writer, place: StrategyPlace, segmentIds: readonly number[], createdBy: Author) {
  return withChange(writer, async (change) => {
    const found = await strategyPlace(change.trx, place.strategyId)
    if (!found || found.project !== place.project || found.environment !== place.environment) {
      throw notFound(`Strategy ${place.strategyId} does not exist in environment ${place.environment} of project ${place.project}`)
    }
    const ref = { project: place.project, feature: found.feature, environment: place.environment }
    const { enabled, current } = await lockStrategy(change.trx, ref, place.strategyId, undefined)
    await checkSegments(change, ref, segmentIds, '/body', 'segmentIds')
    const segments = [...segmentIds].sort((a, b) => a - b)
    await writeStrategy(change, ref, enabled, current, { ...documentOf(current.strategy), segments }, createdBy)
  })
}
