import { coversEnvironment, coversProject, isAdmin, type TokenScope } from '../access/scope.js'
import { createFeature, setFeatureEnabled, setFeatureStale, updateFeatureMetadata } from '../catalog/catalog.service.js'
import { createContextField } from '../context/context.service.js'
import { contextFieldsNamed } from '../context/context.store.js'
import { groupBy } from '../db/rows.js'
import type { Database, Queryable } from '../db/types.js'
import { setDependencies } from '../dependencies/dependencies.service.js'
import { permissionDenied, refusedAt } from '../errors.js'
import { type Change, writeChange } from '../events/events.service.js'
import type { Author } from '../events/events.schemas.js'
import type { FeatureEnvironmentRef } from '../features/missing.js'
import { setLinks } from '../feature-links/feature-links.service.js'
import { lockFeaturesByName, requirePresent } from '../features/features.store.js'
import { createSegment } from '../segments/segments.service.js'
import { segmentsWhere } from '../segments/segments.store.js'
import { listDefinitions } from '../strategies/definitions.store.js'
import { defaultStrategy, setStrategies } from '../strategies/strategies.service.js'
import { createTagType, setFeatureTags } from '../tags/tags.service.js'
import { listTagTypes } from '../tags/tags.store.js'
import { replaceVariants } from '../variants/variants.service.js'
import type { ImportBody, ImportData } from './import-export.schemas.js'
import { featuresNamed, lockImports } from './import-export.store.js'
import {
  contextFieldBody,
  dependencyBody,
  elementProblems,
  linkBody,
  featureBody,
  type ImportRules,
  segmentBody,
  strategyBody,
  tagBody,
  tagTypeBody,
} from './import-elements.js'
import { duplicates, type Findings, refusalOf, validationOf } from './import-rules.js'

/** What an import does to features that exist already: set them as the data says, or leave them. */
export type ImportMode = 'overwrite' | 'create-if-missing'

const KEPT_MEMBERS = new Set(['features', 'featureStrategies', 'featureEnvironments', 'contextFields', 'featureTags', 'segments', 'tagTypes', 'dependencies', 'links'])

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
    ...(data.links ?? []).map((l, i) => [`links/${i}`, l.feature] as const),
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
  return { findings, kept, inProject, newContextFields: new Set(newContextFields.map((c) => c.name)), usable, tagTypesToCreate: new Set(tagTypesToCreate), definitionOf }
}

/**
 * The validation Unleash's import dialog shows: errors (with every element a single route
 * would refuse, in the words of its 400), warnings and missing permissions. Reads only.
 */
export async function validateImport (db: Database, body: ImportBody, token: TokenScope, rules: ImportRules) {
  requireScope(token, body.project, body.environment)
  await requirePresent(db, { project: body.project, environment: body.environment })
  const plan = await assess(db, body, token)
  return validationOf(plan.findings, elementProblems(body, rules, plan.definitionOf).map((p) => ({ message: p.error.message, item: p.item })))
}

/**
 * Imports an export into a project and environment, all or nothing, in one transaction, made
 * of the single writes (the same rules, events, version move and webhook outbox rows): tag
 * types, context fields and segments the data defines and the target lacks; each feature
 * (created, or, with `overwrite`, updated); in the environment its variants, strategies
 * (setStrategies) and enabled state; its tags (setFeatureTags) and dependencies
 * (setDependencies). What is already as the data says is left alone, so importing the same
 * data again changes nothing. Every element is checked as its single route checks it before
 * anything is written; a refusal anywhere is a 400 naming the element, and nothing is stored.
 */
export function importFeatures (db: Database, body: ImportBody, token: TokenScope, author: Author, rules: ImportRules, mode: ImportMode = 'overwrite') {
  const { project, environment, data } = body
  requireScope(token, project, environment)
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
    const [refused] = elementProblems(body, rules, plan.definitionOf)
    if (refused) throw refused.error
    if (plan.findings.missingPermissions.length > 0) {
      throw permissionDenied(`${author.name} needs access to all projects and environments (*) to create what this data defines: ${plan.findings.missingPermissions.join(', ')}`)
    }

    await createDefinitions(change, data, plan, author)
    const segmentIds = await mapSegments(change, data, plan, rules, author)
    const touched = data.features.filter((f) => plan.kept.has(f.name) && (mode === 'overwrite' || !plan.inProject.has(f.name)))
    const touchedSet = new Set(touched)
    for (const [i, feature] of data.features.entries()) {
      if (!touchedSet.has(feature)) continue
      const fields = featureBody(feature)
      await refusedAt(`/body/data/features/${i}`, () =>
        plan.inProject.has(feature.name)
          ? updateFeatureMetadata(change, { project, feature: feature.name }, { ...fields, name: undefined, description: feature.description }, author)
          : createFeature(change, project, fields, author))
      if (feature.stale !== undefined) await setFeatureStale(change, { project, feature: feature.name }, feature.stale, author)
    }
    const index = indexOf(data)
    for (const feature of touched) await importEnvironment(change, { project, feature: feature.name, environment }, index, segmentIds, rules, author)
    for (const feature of touched) {
      const tags = index.tags.get(feature.name) ?? []
      await setFeatureTags(change, feature.name, tags.map(({ item }) => tagBody(item)), token, author, (k) => `/body/data/featureTags/${tags[k]!.i}`)
    }
    const children = touched.map((f) => ({ feature: f.name, listed: index.dependencies.get(f.name)?.[0] }))
    await setDependencies(
      change,
      project,
      children.map(({ feature, listed }) => ({ feature, dependencies: listed?.item.dependencies.map(dependencyBody) ?? [] })),
      author,
      (c, p) => `/body/data/dependencies/${children[c]!.listed!.i}/dependencies/${p}`
    )
    if (data.links !== undefined) {
      for (const feature of touched) {
        const [listed] = index.links.get(feature.name) ?? []
        await setLinks(change, { project, feature: feature.name }, listed?.item.links.map(linkBody) ?? [], author, (j) => `/body/data/links/${listed?.i}/links/${j}`)
      }
    }
    if (changes > 0) outer.record({ type: 'features-imported', createdBy: author, project, environment })
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
    dependencies: group(data.dependencies ?? [], (d) => d.feature),
    links: group(data.links ?? [], (l) => l.feature),
  }
}
type Index = ReturnType<typeof indexOf>

/** Tag types and context fields the data defines and the target lacks (the first of a name listed twice). */
async function createDefinitions (change: Change, data: ImportData, plan: Plan, author: Author) {
  const created = new Set<string>()
  for (const [i, tagType] of (data.tagTypes ?? []).entries()) {
    if (!plan.tagTypesToCreate.has(tagType.name) || created.has(tagType.name)) continue
    created.add(tagType.name)
    await refusedAt(`/body/data/tagTypes/${i}`, () => createTagType(change, tagTypeBody(tagType), author))
  }
  for (const [i, field] of (data.contextFields ?? []).entries()) {
    if (!plan.newContextFields.has(field.name) || created.has(`context ${field.name}`)) continue
    created.add(`context ${field.name}`)
    await refusedAt(`/body/data/contextFields/${i}`, () => createContextField(change, contextFieldBody(field), author))
  }
}

/** The ids this data's strategies use, mapped to the target's segments (created when the data defines them). */
async function mapSegments (change: Change, data: ImportData, plan: Plan, rules: ImportRules, author: Author) {
  const ids = new Map<number, number>()
  const created = new Map<string, number>()
  for (const [i, segment] of (data.segments ?? []).entries()) {
    const found = plan.usable(segment.name)?.id ?? created.get(segment.name)
    if (found === undefined) {
      const made = await refusedAt(`/body/data/segments/${i}`, () => createSegment(change, segmentBody(segment, plan.findings.project), rules.segments, author), { segment: '' })
      created.set(segment.name, made.id)
    }
    ids.set(segment.id, found ?? created.get(segment.name)!)
  }
  return ids
}

/**
 * A feature in the environment: its variants, then its strategies become the data's (in the
 * data's sortOrder, else file order), then its enabled state. Switched on with no strategy,
 * a feature has the default one (as Unleash): that is what such data means, so it is what the
 * strategies become.
 */
async function importEnvironment (change: Change, ref: FeatureEnvironmentRef, index: Index, segmentIds: Map<number, number>, rules: ImportRules, createdBy: Author) {
  const [entry] = index.environments.get(ref.feature) ?? []
  const state = entry?.item
  if (entry && state) {
    await refusedAt(`/body/data/featureEnvironments/${entry.i}/variants`, () =>
      replaceVariants(change, ref, state.variants ?? [], rules.variants, { ifMatch: undefined, dryRun: false, createdBy }), { variants: '' })
  }
  const strategies = index.strategies.get(ref.feature) ?? []
  const wanted = strategies.length === 0 && state?.enabled === true ? [defaultStrategy(ref.feature)] : strategies.map(({ item }) => strategyBody(item, (id) => segmentIds.get(id)!))
  const rootOf = (k: number) => (strategies[k] ? `/body/data/featureStrategies/${strategies[k].i}` : `/body/data/featureEnvironments/${entry?.i}`)
  await setStrategies(change, ref, wanted, rules.strategies, createdBy, rootOf)
  if (state) await setFeatureEnabled(change, ref, state.enabled, createdBy)
}
