import type { TSchema } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import { coversEnvironment, coversProject, isAdmin, type TokenScope } from '../access/scope.js'
import { NewFeature } from '../catalog/catalog.schemas.js'
import { createFeature, setFeatureEnabled, updateFeatureMetadata } from '../catalog/catalog.service.js'
import type { Config } from '../config.js'
import type { Constraint } from '../constraints/constraints.schemas.js'
import { NewContextField } from '../context/context.schemas.js'
import { createContextField } from '../context/context.service.js'
import { contextFieldsNamed } from '../context/context.store.js'
import { groupBy } from '../db/rows.js'
import type { Database, Queryable } from '../db/types.js'
import { addDependency, removeDependency } from '../dependencies/dependencies.service.js'
import { parentsOfFeatures } from '../dependencies/dependencies.store.js'
import { ApiError, invalidField, permissionDenied, RuleError } from '../errors.js'
import { type Change, writeChange } from '../events/events.service.js'
import type { Author } from '../events/events.schemas.js'
import { lockFeaturesByName, requirePresent } from '../features/features.store.js'
import { upsertSegmentSchema } from '../segments/segments.schemas.js'
import { createSegment, type SegmentRules } from '../segments/segments.service.js'
import { segmentsWhere } from '../segments/segments.store.js'
import { findDefinition, listDefinitions } from '../strategies/definitions.store.js'
import { addStrategy, removeStrategy, type StrategyRules, strategyRules } from '../strategies/strategies.service.js'
import { listStrategies } from '../strategies/strategies.store.js'
import { resolveStrategy, type StrategyDocument } from '../strategies/strategy-rules.js'
import { TagBody, TagTypeBody } from '../tags/tags.schemas.js'
import { addFeatureTag, createTagType, removeFeatureTag } from '../tags/tags.service.js'
import { listTagTypes, tagsOfFeature } from '../tags/tags.store.js'
import { strictAjv } from '../validation.js'
import type { VariantLimits } from '../variants/variants.js'
import { replaceVariants } from '../variants/variants.service.js'
import { checkSegmentIds, duplicates, type Findings, importedConstraint, refusalOf, validationOf } from './import-rules.js'
import type { ImportBody, ImportData } from './import-export.schemas.js'
import { featuresNamed, lockImports } from './import-export.store.js'

/** The rules the single routes apply, which the import applies to each element. */
export interface ImportRules {
  strategies: StrategyRules
  segments: SegmentRules
  variants: VariantLimits
}

/** The rules of the single routes, from the configuration. */
export const importRules = (config: Pick<Config, 'strategyLimits' | 'bodyLimit' | 'maxSegmentValues' | 'maxVariants' | 'maxVariantsBytes'>): ImportRules => ({
  strategies: strategyRules(config.strategyLimits, config.bodyLimit),
  segments: { limits: config.strategyLimits, maxValues: config.maxSegmentValues },
  variants: { maxVariants: config.maxVariants, maxBytes: config.maxVariantsBytes },
})

/** What an import does to features that exist already: set them as the data says, or leave them. */
export type ImportMode = 'overwrite' | 'create-if-missing'

const KEPT_MEMBERS = new Set(['features', 'featureStrategies', 'featureEnvironments', 'contextFields', 'featureTags', 'segments', 'tagTypes', 'dependencies'])

function requireScope (token: TokenScope, project: string, environment: string) {
  if (!coversProject(token, project)) throw permissionDenied(`API token ${token.name} has no access to project ${project}`)
  if (!coversEnvironment(token, environment)) throw permissionDenied(`API token ${token.name} has no access to environment ${environment}`)
}

// Validate and import

/** What the import would do and what stops it, from one look at the target. */
async function assess (db: Queryable, body: ImportBody, token: TokenScope) {
  const { project, data } = body
  const names = data.features.map((f) => f.name)
  const featureSet = new Set(names)
  const existing = await featuresNamed(db, [...featureSet])
  const archived = new Set(existing.filter((f) => f.archived).map((f) => f.name))
  const inProject = new Set(existing.filter((f) => f.project === project && !f.archived).map((f) => f.name))
  const kept = new Set(names.filter((n) => !archived.has(n)))

  const definitions = await listDefinitions(db)
  const strategyNames = [...new Set(data.featureStrategies.filter((s) => kept.has(s.featureName)).map((s) => s.name))]
  const definitionOf = new Map(definitions.map((d) => [d.name, d]))

  const dataFields = data.contextFields ?? []
  const targetFields = new Map((await contextFieldsNamed(db, [...new Set(dataFields.map((c) => c.name))])).map((c) => [c.name, c]))
  const lacking = dataFields.filter((c) => {
    const target = targetFields.get(c.name)
    return target !== undefined && (c.legalValues ?? []).some((v) => !target.legalValues.some((t) => t.value === v.value))
  })

  const dataSegments = data.segments ?? []
  const targetSegments = await segmentsWhere(db, { names: [...new Set(dataSegments.map((s) => s.name))] })
  const usable = (name: string) => targetSegments.find((s) => s.name === name && (s.project === null || s.project === project))
  const segmentsToCreate = dataSegments.filter((s) => !usable(s.name) && s.constraints !== undefined && !targetSegments.some((t) => t.name === s.name))
  const unsupportedSegments = dataSegments.filter((s) => !usable(s.name) && !segmentsToCreate.includes(s)).map((s) => s.name)

  const parents = [...new Set((data.dependencies ?? []).filter((d) => kept.has(d.feature)).flatMap((d) => d.dependencies.map((p) => p.feature)))]
  const outside = parents.filter((p) => !featureSet.has(p))
  const outsideFound = new Set((await featuresNamed(db, outside)).filter((f) => f.project === project).map((f) => f.name))

  const tags = (data.featureTags ?? []).filter((t) => kept.has(t.featureName))
  const tagTypeNames = [...new Set(tags.map((t) => t.tagType))]
  const targetTagTypes = new Set((await listTagTypes(db, tagTypeNames)).map((t) => t.name))
  const dataTagTypes = new Set((data.tagTypes ?? []).map((t) => t.name))
  const tagTypesToCreate = tagTypeNames.filter((n) => !targetTagTypes.has(n) && dataTagTypes.has(n))

  const strangers = [
    ...data.featureStrategies.map((s, i) => [`featureStrategies/${i}`, s.featureName] as const),
    ...(data.featureEnvironments ?? []).map((e, i) => [`featureEnvironments/${i}`, e.featureName] as const),
    ...(data.featureTags ?? []).map((t, i) => [`featureTags/${i}`, t.featureName] as const),
    ...(data.dependencies ?? []).map((d, i) => [`dependencies/${i}`, d.feature] as const),
  ].filter(([, feature]) => !featureSet.has(feature)).map(([where, feature]) => `${where} (${feature})`)

  const newContextFields = dataFields.filter((c) => !targetFields.has(c.name))
  const findings: Findings = {
    project,
    unsupportedStrategies: strategyNames.filter((n) => !definitionOf.has(n)),
    contextFieldsLackingValues: [...new Set(lacking.map((c) => c.name))],
    otherProjectFeatures: existing.filter((f) => f.project !== project && !f.archived).map((f) => `${f.name} (in project ${f.project})`),
    duplicateFeatures: duplicates(names),
    unsupportedSegments: [...new Set(unsupportedSegments)],
    missingDependencies: outside.filter((p) => !outsideFound.has(p)),
    missingTagTypes: tagTypeNames.filter((n) => !targetTagTypes.has(n) && !dataTagTypes.has(n)),
    strangers,
    customStrategies: strategyNames.filter((n) => definitionOf.get(n)?.editable === true),
    archivedFeatures: [...archived],
    existingFeatures: [...inProject],
    ignoredMembers: Object.keys(data).filter((k) => !KEPT_MEMBERS.has(k) && Array.isArray((data as Record<string, unknown>)[k]) && ((data as Record<string, unknown[]>)[k]!.length > 0)),
    missingPermissions: isAdmin(token)
      ? []
      : [
          ...(newContextFields.length > 0 ? ['CREATE_CONTEXT_FIELD'] : []),
          ...(tagTypesToCreate.length > 0 ? ['CREATE_TAG_TYPE'] : []),
          ...(segmentsToCreate.length > 0 ? ['CREATE_SEGMENT'] : []),
        ],
  }
  return { findings, kept, inProject, newContextFields, segmentsToCreate, usable, tagTypesToCreate, definitionOf }
}

/** The validation Unleash's import dialog shows: errors, warnings and missing permissions. Reads only. */
export async function validateImport (db: Database, body: ImportBody, token: TokenScope) {
  requireScope(token, body.project, body.environment)
  await requirePresent(db, { project: body.project, environment: body.environment })
  return validationOf((await assess(db, body, token)).findings)
}

/** A request body the single routes would refuse, refused here at the element's place. */
function conform<T> (check: ValidateFunction, value: unknown, path: string): T {
  if (!check(value)) {
    const [e] = check.errors ?? []
    const at = `${path}${e?.instancePath ?? ''}${e?.keyword === 'required' ? `/${String(e.params.missingProperty)}` : ''}`
    throw invalidField(at, e?.keyword === 'additionalProperties' ? `has ${String(e.params.additionalProperty)}, which is not an allowed property` : (e?.message ?? 'is invalid'))
  }
  return value as T
}

/**
 * Runs one composed write for the element at `path`; what the single route would refuse is
 * refused at the element's place (`/body/data/featureStrategies/3/constraints/0/value`), as a 400.
 */
async function at<T> (path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof RuleError) throw error.toApiError(path)
    if (!(error instanceof ApiError) || error.status >= 500 || error.status === 403) throw error
    const reroot = (text: string) => (text.startsWith('/body') ? path + text.slice('/body'.length) : `${path}: ${text}`)
    throw new ApiError('BadDataError', reroot(error.message), error.details.map((d) => ({ message: reroot(d.message), path: d.path === undefined ? path : reroot(d.path) })))
  }
}

const compiled = new Map<TSchema, ValidateFunction>()
const checker = (schema: TSchema) => {
  let check = compiled.get(schema)
  if (!check) compiled.set(schema, (check = strictAjv.compile(schema)))
  return check
}

/**
 * Imports an export into a project and environment, all or nothing, in one transaction, made
 * of the single writes (the same rules, events, version move and webhook outbox rows): tag
 * types, context fields and segments the data defines and the target lacks; each feature
 * (created, or, with `overwrite`, updated); in the environment its variants, strategies (in
 * the data's order) and enabled state; its tags and dependencies. What is already as the data
 * says is left alone, so importing the same data again changes nothing. A refusal anywhere is
 * a 400 naming the element; then nothing is stored.
 */
export function importFeatures (db: Database, body: ImportBody, token: TokenScope, author: Author, rules: ImportRules, mode: ImportMode = 'overwrite') {
  const { project, environment, data } = body
  requireScope(token, project, environment)
  checkSegmentIds(data)
  const createdBy = author
  return writeChange(db, async (outer) => {
    let changes = 0
    const change: Change = { trx: outer.trx, record: (event) => { changes++; outer.record(event) } }
    const { trx } = change
    await lockImports(trx)
    await requirePresent(trx, { project, environment })
    const parentNames = (data.dependencies ?? []).flatMap((d) => d.dependencies.map((p) => p.feature))
    await lockFeaturesByName(trx, [...new Set([...data.features.map((f) => f.name), ...parentNames])])
    const plan = await assess(trx, body, token)
    const refusal = refusalOf(plan.findings)
    if (refusal) throw refusal
    if (plan.findings.missingPermissions.length > 0) {
      throw permissionDenied(`${createdBy.name} needs access to all projects and environments (*) to create what this data defines: ${plan.findings.missingPermissions.join(', ')}`)
    }

    await createDefinitions(change, data, plan, author)
    const segmentIds = await mapSegments(change, data, plan, rules, author)
    const touched = data.features.filter((f) => plan.kept.has(f.name) && (mode === 'overwrite' || !plan.inProject.has(f.name)))
    const touchedSet = new Set(touched)
    const index = indexOf(data)
    for (const [i, feature] of data.features.entries()) {
      if (!touchedSet.has(feature)) continue
      const path = `/body/data/features/${i}`
      const fields = { description: feature.description ?? undefined, type: feature.type, impressionData: feature.impressionData }
      if (plan.inProject.has(feature.name)) {
        await at(path, () => updateFeatureMetadata(change, { project, feature: feature.name }, { ...fields, description: feature.description }, createdBy))
      } else {
        const fresh = conform<typeof NewFeature.static>(checker(NewFeature), JSON.parse(JSON.stringify({ name: feature.name, ...fields })), path)
        await at(path, () => createFeature(change, project, fresh, createdBy))
      }
    }
    for (const feature of touched) await importEnvironment(change, { project, feature: feature.name, environment }, index, plan, segmentIds, rules, createdBy)
    for (const feature of touched) await importTags(change, feature.name, index, token, author)
    await importDependencies(change, project, touched.map((f) => f.name), data, createdBy)
    if (changes > 0) outer.record({ type: 'features-imported', createdBy, project, environment })
    return { features: touched.length, changes }
  })
}

type Plan = Awaited<ReturnType<typeof assess>>

/** The data's elements by feature name, with their places in the data (for errors naming them). */
function indexOf (data: ImportData) {
  const group = <T>(items: readonly T[], key: (item: T) => string) =>
    groupBy(items.map((item, i) => ({ item, i })), (placed) => key(placed.item), (placed) => placed)
  return {
    strategies: group(data.featureStrategies, (s) => s.featureName),
    environments: group(data.featureEnvironments ?? [], (e) => e.featureName),
    tags: group(data.featureTags ?? [], (t) => t.featureName),
  }
}
type Index = ReturnType<typeof indexOf>

/** Tag types and context fields the data defines and the target lacks. */
async function createDefinitions (change: Change, data: ImportData, plan: Plan, author: Author) {
  for (const [i, tagType] of (data.tagTypes ?? []).entries()) {
    if (!plan.tagTypesToCreate.includes(tagType.name) || (data.tagTypes ?? []).findIndex((t) => t.name === tagType.name) !== i) continue
    const path = `/body/data/tagTypes/${i}`
    const value = { name: tagType.name, description: tagType.description ?? '', ...(tagType.icon != null && { icon: tagType.icon }), ...(tagType.color ? { color: tagType.color } : {}) }
    const checked = conform<typeof TagTypeBody.static>(checker(TagTypeBody), value, path)
    await at(path, () => createTagType(change, checked, author))
  }
  for (const [i, field] of (data.contextFields ?? []).entries()) {
    if (!plan.newContextFields.includes(field) || (data.contextFields ?? []).findIndex((c) => c.name === field.name) !== i) continue
    const path = `/body/data/contextFields/${i}`
    const value = JSON.parse(JSON.stringify({
      name: field.name,
      description: field.description,
      stickiness: field.stickiness,
      sortOrder: field.sortOrder,
      legalValues: field.legalValues?.map((v) => ({ value: v.value, description: v.description })),
    }))
    const checked = conform<typeof NewContextField.static>(checker(NewContextField), value, path)
    await at(path, () => createContextField(change, checked, author, path))
  }
}

/** The ids this data's strategies use, mapped to the target's segments (created when the data defines them). */
async function mapSegments (change: Change, data: ImportData, plan: Plan, rules: ImportRules, author: Author) {
  const ids = new Map<number, number>()
  const created = new Map<string, number>()
  const check = checker(upsertSegmentSchema(rules.segments.limits, rules.segments.maxValues))
  for (const [i, segment] of (data.segments ?? []).entries()) {
    const found = plan.usable(segment.name)?.id ?? created.get(segment.name)
    if (found !== undefined) {
      ids.set(segment.id, found)
      continue
    }
    const path = `/body/data/segments/${i}`
    const value = JSON.parse(JSON.stringify({
      name: segment.name,
      description: segment.description,
      project: segment.project ? plan.findings.project : null,
      constraints: (segment.constraints ?? []).map(importedConstraint),
    }))
    const checked = conform<Parameters<typeof createSegment>[1]>(check, value, path)
    const made = await at(path, () => createSegment(change, checked, rules.segments, author))
    created.set(segment.name, made.id)
    ids.set(segment.id, made.id)
  }
  return ids
}

/** What a strategy of the data asks for, in the single route's body form. */
function strategyBody (s: ImportData['featureStrategies'][number], segmentIds: Map<number, number>) {
  return JSON.parse(JSON.stringify({
    name: s.name,
    title: s.title,
    disabled: s.disabled,
    sortOrder: s.sortOrder,
    parameters: s.parameters,
    constraints: s.constraints?.map(importedConstraint),
    variants: s.variants,
    segments: s.segments?.map((id) => segmentIds.get(id)!),
  })) as Parameters<typeof addStrategy>[2]
}

/** A strategy's document in one form (its id left out; its sortOrder only when the data gives one). */
const comparable = (d: StrategyDocument, withOrder: boolean) =>
  JSON.stringify({
    name: d.name,
    title: d.title,
    disabled: d.disabled,
    sortOrder: withOrder ? d.sortOrder : 0,
    parameters: d.parameters,
    constraints: d.constraints,
    variants: d.variants,
    segments: [...d.segments].sort((a, b) => a - b),
  })

/**
 * A feature in the environment: its variants, then its strategies (the data's replace the
 * stored ones unless they are the same, in order), then its enabled state. New strategies are
 * added before the old ones are removed, so that a feature that is on never has none (which
 * would switch it off).
 */
async function importEnvironment (
  change: Change,
  ref: { project: string; feature: string; environment: string },
  index: Index,
  plan: Plan,
  segmentIds: Map<number, number>,
  rules: ImportRules,
  createdBy: Author
) {
  const [entry] = index.environments.get(ref.feature) ?? []
  const state = entry?.item
  if (entry && state) {
    await at(`/body/data/featureEnvironments/${entry.i}/variants`, () =>
      replaceVariants(change, ref, state.variants ?? [], rules.variants, { ifMatch: undefined, dryRun: false, createdBy }))
  }
  const wanted = (index.strategies.get(ref.feature) ?? []).map(({ item, i }) => ({ s: item, i }))
  const ordered = wanted.some(({ s }) => s.sortOrder !== undefined)
  if (ordered) wanted.sort((a, b) => (a.s.sortOrder ?? 0) - (b.s.sortOrder ?? 0))
  const bodies = wanted.map(({ s, i }) => ({ i, body: strategyBody(s, segmentIds) }))
  const current = (await listStrategies(change.trx, ref)).map((s) => s.strategy)
  const desired: StrategyDocument[] = []
  for (const { i, body } of bodies) {
    const definition = plan.definitionOf.get(body.name) ?? (await findDefinition(change.trx, body.name))
    if (!definition) throw invalidField(`/body/data/featureStrategies/${i}/name`, `names no strategy definition: ${body.name}`)
    desired.push(await at(`/body/data/featureStrategies/${i}`, async () =>
      resolveStrategy(
        {
          name: body.name,
          title: body.title ?? null,
          disabled: body.disabled ?? false,
          sortOrder: body.sortOrder ?? 0,
          parameters: body.parameters ?? {},
          constraints: body.constraints ?? [],
          variants: body.variants ?? [],
          segments: body.segments ?? [],
        },
        definition,
        ref.feature,
        rules.strategies.limits
      )))
  }
  // Switched on with no strategy, a feature gets the default one (as Unleash): that is what the data means.
  const same = (list: StrategyDocument[]) =>
    list.length === current.length && list.every((d, k) => comparable(d, ordered) === comparable({ ...current[k]!, constraints: current[k]!.constraints as Constraint[] }, ordered))
  const defaultOnly = bodies.length === 0 && state?.enabled === true && current.length === 1 && current[0]!.name === 'flexibleRollout'
  if (!same(desired) && !defaultOnly) {
    for (const { i, body } of bodies) await at(`/body/data/featureStrategies/${i}`, () => addStrategy(change, ref, body, rules.strategies, createdBy))
    for (const old of current) await removeStrategy(change, ref, old.id, { ifMatch: undefined, createdBy })
  }
  if (state) await setFeatureEnabled(change, ref, state.enabled, createdBy)
}

/** A feature's tags become the data's: those it lacks are added (tags and tag types created as needed), others removed. */
async function importTags (change: Change, feature: string, index: Index, token: TokenScope, author: Author) {
  const wanted = (index.tags.get(feature) ?? []).map(({ item, i }) => ({ t: item, i }))
  const current = await tagsOfFeature(change.trx, feature)
  const key = (type: string, value: string) => `${type}\u0000${value}`
  const wantedKeys = new Set(wanted.map(({ t }) => key(t.tagType, t.tagValue.trim())))
  for (const tag of current) {
    if (!wantedKeys.has(key(tag.type, tag.value))) await removeFeatureTag(change, feature, tag, token, author)
  }
  const have = new Set(current.map((t) => key(t.type, t.value)))
  for (const { t, i } of wanted) {
    if (have.has(key(t.tagType, t.tagValue.trim()))) continue
    const path = `/body/data/featureTags/${i}`
    const body = conform<typeof TagBody.static>(checker(TagBody), { type: t.tagType, value: t.tagValue }, path)
    await at(path, () => addFeatureTag(change, feature, body, token, author, path))
  }
}

/** The imported features' dependencies become the data's: others are removed first, then the data's added. */
async function importDependencies (change: Change, project: string, features: string[], data: ImportData, createdBy: Author) {
  const listed = new Map((data.dependencies ?? []).map((d, i) => [d.feature, { d, i }]))
  const current = await parentsOfFeatures(change.trx, features)
  for (const feature of features) {
    const wanted = new Set(listed.get(feature)?.d.dependencies.map((p) => p.feature) ?? [])
    for (const parent of current.get(feature) ?? []) {
      if (!wanted.has(parent.feature)) await removeDependency(change, { project, feature }, parent.feature, createdBy)
    }
  }
  for (const feature of features) {
    const entry = listed.get(feature)
    if (!entry) continue
    for (const [j, parent] of entry.d.dependencies.entries()) {
      const body = { feature: parent.feature, enabled: parent.enabled ?? true, ...(parent.variants !== undefined && parent.variants.length > 0 && { variants: parent.variants }) }
      await at(`/body/data/dependencies/${entry.i}/dependencies/${j}`, () => addDependency(change, { project, feature }, body, createdBy))
    }
  }
}
