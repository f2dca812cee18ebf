import type { TSchema } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import { NewFeature } from '../catalog/catalog.schemas.js'
import type { Config } from '../config.js'
import { NewContextField } from '../context/context.schemas.js'
import { checkLegalValues } from '../context/context.service.js'
import { NewDependency } from '../dependencies/dependencies.schemas.js'
import { LinkBody } from '../feature-links/feature-links.schemas.js'
import { MAX_LINKS_PER_FEATURE, normalizeLinkUrl } from '../feature-links/link-rules.js'
import { ApiError, type DocumentPlaces, invalidField, placedAt } from '../errors.js'
import { type UpsertSegment, upsertSegmentSchema } from '../segments/segments.schemas.js'
import { type SegmentRules, segmentFields } from '../segments/segments.service.js'
import { newStrategySchema, type NewStrategy, type ParameterDefinition, STRATEGY_PLACES } from '../strategies/strategies.schemas.js'
import { type StrategyRules, strategyRules, tooManyStrategies } from '../strategies/strategies.service.js'
import { resolveStrategy, strategyInput } from '../strategies/strategy-rules.js'
import { TagBody, TagTypeBody } from '../tags/tags.schemas.js'
import { tagOf } from '../tags/tags.service.js'
import { requireValid, strictAjv } from '../validation.js'
import { validateVariants, type VariantLimits } from '../variants/variants.js'
import { variantsBody } from '../variants/variants.schemas.js'
import type { ImportBody, ImportData } from './import-export.schemas.js'
import { importedConstraint } from './import-rules.js'

type LimitSettings = Pick<Config, 'strategyLimits' | 'bodyLimit' | 'maxSegmentValues' | 'maxVariants' | 'maxVariantsBytes'>

/**
 * The single route that writes each list's elements, and the body schema it validates: an
 * import checks every element with that very schema (built by the same function from the same
 * settings), so that a limit a single route has is an import's limit too.
 */
export const elementRoutes = (config: LimitSettings) => ({
  features: { route: 'POST /api/admin/projects/{projectId}/features', schema: NewFeature },
  featureStrategies: {
    route: 'POST /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies',
    schema: newStrategySchema(config.strategyLimits),
  },
  featureEnvironments: {
    route: 'PUT /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants',
    schema: variantsBody(config.maxVariants),
  },
  contextFields: { route: 'POST /api/admin/context', schema: NewContextField },
  segments: { route: 'POST /api/admin/segments', schema: upsertSegmentSchema(config.strategyLimits, config.maxSegmentValues) },
  tagTypes: { route: 'POST /api/admin/tag-types', schema: TagTypeBody },
  featureTags: { route: 'POST /api/admin/features/{featureName}/tags', schema: TagBody },
  dependencies: { route: 'POST /api/admin/projects/{projectId}/features/{featureName}/dependencies', schema: NewDependency },
  links: { route: 'POST /api/admin/projects/{projectId}/features/{featureName}/link', schema: LinkBody },
}) satisfies Record<string, { route: string; schema: TSchema }>

type Element = keyof ReturnType<typeof elementRoutes>

/** The rules the single routes apply, which the import applies to each element. */
export interface ImportRules {
  strategies: StrategyRules
  segments: SegmentRules
  variants: VariantLimits
  /** Each element's single-route body schema (elementRoutes), compiled once. */
  checks: Record<Element, ValidateFunction>
}

/** The rules of the single routes, from the configuration. */
export function importRules (config: LimitSettings): ImportRules {
  const routes = elementRoutes(config)
  return {
    strategies: strategyRules(config.strategyLimits, config.bodyLimit),
    segments: { limits: config.strategyLimits, maxValues: config.maxSegmentValues },
    variants: { maxVariants: config.maxVariants, maxBytes: config.maxVariantsBytes },
    checks: Object.fromEntries(Object.entries(routes).map(([element, { schema }]) => [element, strictAjv.compile(schema)])) as Record<Element, ValidateFunction>,
  }
}

/** A value without its undefined members (at any depth), as JSON would carry it. */
const defined = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

type Of<K extends keyof ImportData> = NonNullable<ImportData[K]>[number]

// What each element asks its single route for: the body that route takes, built from the
// element as an export (this server's or Unleash's) carries it. The checks and the writes both
// use these.

export const featureBody = (f: Of<'features'>) =>
  defined({ name: f.name, description: f.description ?? undefined, type: f.type, impressionData: f.impressionData }) as typeof NewFeature.static

export const strategyBody = (s: Of<'featureStrategies'>, segmentId: (id: number) => number = (id) => id) =>
  defined({
    name: s.name,
    title: s.title,
    disabled: s.disabled,
    sortOrder: s.sortOrder,
    parameters: s.parameters,
    constraints: s.constraints?.map(importedConstraint),
    variants: s.variants,
    // Two segments of the data may be one of the target's: it is used once.
    segments: s.segments && [...new Set(s.segments.map(segmentId))],
  }) as NewStrategy

export const contextFieldBody = (c: Of<'contextFields'>) =>
  defined({
    name: c.name,
    description: c.description,
    stickiness: c.stickiness,
    sortOrder: c.sortOrder,
    legalValues: c.legalValues?.map((v) => ({ value: v.value, description: v.description })),
  }) as typeof NewContextField.static

export const segmentBody = (s: Of<'segments'>, project: string) =>
  defined({ name: s.name, description: s.description, project: s.project ? project : null, constraints: (s.constraints ?? []).map(importedConstraint) }) as UpsertSegment

export const tagTypeBody = (t: Of<'tagTypes'>) =>
  defined({ name: t.name, description: t.description ?? '', ...(t.icon != null && { icon: t.icon }), ...(t.color ? { color: t.color } : {}) }) as typeof TagTypeBody.static

export const tagBody = (t: Of<'featureTags'>): typeof TagBody.static => ({ type: t.tagType, value: t.tagValue })

export const linkBody = (l: Of<'links'>['links'][number]) => defined({ url: l.url, title: l.title }) as LinkBody

export const dependencyBody = (d: Of<'dependencies'>['dependencies'][number]) =>
  defined({ feature: d.feature, enabled: d.enabled ?? true, ...(d.variants !== undefined && d.variants.length > 0 && { variants: d.variants }) }) as typeof NewDependency.static

/** What a single route would refuse of one element of the data: its 400, and the element's name for the validation's affectedItems. */
export interface ElementProblem {
  error: ApiError
  item: string
}

/** Members named otherwise in an export than in their route's body (a feature tag's `tagValue` is the route's `value`). */
const renamed = (error: ApiError, root: string, names: Record<string, string>) => {
  const rename = (text: string) => Object.entries(names).reduce((t, [from, to]) => t.replace(`${root}/${from}`, `${root}/${to}`), text)
  return new ApiError(error.errorName, rename(error.message), error.details.map((d) => ({ message: rename(d.message), ...(d.path !== undefined && { path: rename(d.path) }) })))
}

type Definitions = ReadonlyMap<string, { parameters: readonly ParameterDefinition[] }>

/**
 * Every element of the data that its single route would refuse, checked as that route checks
 * its body (elementRoutes' schema, then the route's rules that need no database), each placed
 * at the element (`/body/data/featureStrategies/3/constraints/0/value`); then what only an
 * import can get wrong. Strategies of no known definition are left to the validation's own
 * message.
 */
export const elementProblems = (body: ImportBody, rules: ImportRules, definitionOf: Definitions): ElementProblem[] => [
  ...singleRouteProblems(body, rules, definitionOf),
  ...listedTwiceProblems(body.data),
]

function singleRouteProblems (body: ImportBody, rules: ImportRules, definitionOf: Definitions) {
  const { data, environment } = body
  const problems: ElementProblem[] = []
  const check = (root: string, item: string, work: () => unknown, places: DocumentPlaces = {}, names: Record<string, string> = {}) => {
    try {
      work()
    } catch (error) {
      const placed = placedAt(error, root, places)
      if (!(placed instanceof ApiError)) throw placed
      problems.push({ error: renamed(placed, root, names), item })
    }
  }
  const { checks } = rules
  data.features.forEach((f, i) => check(`/body/data/features/${i}`, f.name, () => requireValid(checks.features, featureBody(f))))
  const segmentIds = new Set((data.segments ?? []).map((s) => s.id))
  data.featureStrategies.forEach((s, i) =>
    check(`/body/data/featureStrategies/${i}`, s.featureName, () => {
      // Unleash answers an id that is none of the data's segments with a 500.
      const dangling = (s.segments ?? []).findIndex((id) => !segmentIds.has(id))
      if (dangling >= 0) throw invalidField(`/body/segments/${dangling}`, `is ${s.segments![dangling]}, which is not the id of one of the data's segments`)
      const body = requireValid<NewStrategy>(checks.featureStrategies, strategyBody(s))
      const definition = definitionOf.get(body.name)
      if (definition) resolveStrategy(strategyInput(body, 0), definition, s.featureName, rules.strategies.limits)
    }, STRATEGY_PLACES))
  const counted = new Map<string, number>()
  const { limits } = rules.strategies
  data.featureStrategies.forEach((s, i) => {
    const ordinal = (counted.get(s.featureName) ?? 0) + 1
    counted.set(s.featureName, ordinal)
    if (ordinal === limits.maxStrategies + 1) {
      problems.push({ error: tooManyStrategies(`/body/data/featureStrategies/${i}`, ordinal, { feature: s.featureName, environment }, limits), item: s.featureName })
    }
  })
  ;(data.featureEnvironments ?? []).forEach((e, i) =>
    check(`/body/data/featureEnvironments/${i}/variants`, e.featureName, () => {
      validateVariants(requireValid(checks.featureEnvironments, e.variants ?? []), rules.variants)
    }, { variants: '' }))
  ;(data.contextFields ?? []).forEach((c, i) =>
    check(`/body/data/contextFields/${i}`, c.name, () => checkLegalValues(requireValid<typeof NewContextField.static>(checks.contextFields, contextFieldBody(c)).legalValues ?? [], '/body')))
  ;(data.segments ?? []).forEach((s, i) =>
    check(`/body/data/segments/${i}`, s.name, () => segmentFields(requireValid(checks.segments, segmentBody(s, 'project')), rules.segments), { segment: '' }))
  ;(data.tagTypes ?? []).forEach((t, i) => check(`/body/data/tagTypes/${i}`, t.name, () => requireValid(checks.tagTypes, tagTypeBody(t))))
  ;(data.featureTags ?? []).forEach((t, i) =>
    check(`/body/data/featureTags/${i}`, t.featureName, () => tagOf(requireValid(checks.featureTags, tagBody(t)), '/body'), {}, { value: 'tagValue', type: 'tagType' }))
  ;(data.dependencies ?? []).forEach((d, i) =>
    d.dependencies.forEach((p, j) => check(`/body/data/dependencies/${i}/dependencies/${j}`, d.feature, () => requireValid(checks.dependencies, dependencyBody(p)))))
  ;(data.links ?? []).forEach((l, i) => {
    l.links.forEach((link, j) => check(`/body/data/links/${i}/links/${j}`, l.feature, () => normalizeLinkUrl(requireValid<LinkBody>(checks.links, linkBody(link)).url, '/body/url')))
    if (l.links.length > MAX_LINKS_PER_FEATURE) {
      problems.push({ error: invalidField(`/body/data/links/${i}/links/${MAX_LINKS_PER_FEATURE}`, `would be link ${MAX_LINKS_PER_FEATURE + 1} of feature ${l.feature}; at most ${MAX_LINKS_PER_FEATURE} are allowed`), item: l.feature })
    }
  })
  return problems
}

/**
 * What only an import can get wrong, refused at the second element: a segment named as an
 * earlier one with other constraints (segments are matched by name), a feature's environment
 * state or its dependencies listed twice.
 */
function listedTwiceProblems (data: ImportData) {
  const problems: ElementProblem[] = []
  const listedTwice = <T>(list: readonly T[], key: (item: T) => string, root: string, why: (name: string, first: string) => string) => {
    const first = new Map<string, number>()
    list.forEach((item, i) => {
      const name = key(item)
      const j = first.get(name)
      if (j === undefined) first.set(name, i)
      else problems.push({ error: invalidField(`${root}/${i}`, why(name, `${root}/${j}`)), item: name })
    })
  }
  listedTwice(data.featureEnvironments ?? [], (e) => e.featureName, '/body/data/featureEnvironments', (name, first) => `lists feature ${name} a second time (${first} lists it first): a feature has one state in the environment`)
  listedTwice(data.dependencies ?? [], (d) => d.feature, '/body/data/dependencies', (name, first) => `lists the dependencies of ${name} a second time (${first} lists them first)`)
  listedTwice(data.links ?? [], (l) => l.feature, '/body/data/links', (name, first) => `lists the links of ${name} a second time (${first} lists them first)`)
  const firstSegment = new Map<string, { i: number; text: string }>()
  ;(data.segments ?? []).forEach((s, i) => {
    const text = JSON.stringify(segmentBody(s, 'project').constraints)
    const first = firstSegment.get(s.name)
    if (first === undefined) firstSegment.set(s.name, { i, text })
    else if (first.text !== text) {
      const why = `is named ${s.name}, as /body/data/segments/${first.i} is, with other constraints: a segment is known by its name, so strategies of both would use one of them`
      problems.push({ error: invalidField(`/body/data/segments/${i}`, why), item: s.name })
    }
  })
  return problems
}
