import { coversEnvironment, coversProject, type TokenScope } from '../access/scope.js'
import type { Constraint } from '../constraints/constraints.schemas.js'
import { contextFieldsNamed } from '../context/context.store.js'
import { readSnapshot } from '../db/snapshot.js'
import type { Database, Queryable } from '../db/types.js'
import { parentsOfFeatures } from '../dependencies/dependencies.store.js'
import { linksOfFeatures } from '../feature-links/feature-links.store.js'
import { notFound, permissionDenied } from '../errors.js'
import { requirePresent } from '../features/features.store.js'
import { segmentsWhere } from '../segments/segments.store.js'
import { strategiesOfFeatures } from '../strategies/strategies.store.js'
import { featuresTagged, listTagTypes, tagsOfFeatures } from '../tags/tags.store.js'
import type { Variant } from '../variants/variants.schemas.js'
import { exportedConstraint } from './import-rules.js'
import type { ExportQuery, ExportResult } from './import-export.schemas.js'
import { environmentExists, featureEnvironmentsOf, featuresNamed, liveFeatureNames } from './import-export.store.js'

/**
 * The features chosen by `features`, else `tag`, else `project`, else every feature (not
 * archived), of the token's projects, with their strategies, variants and state in one
 * environment and what those use: context fields, segments, tags and tag types, dependencies.
 */
export async function exportFeatures (db: Database, query: ExportQuery, token: TokenScope): Promise<ExportResult> {
  const { environment } = query
  if (!coversEnvironment(token, environment)) throw permissionDenied(`API token ${token.name} has no access to environment ${environment}`)
  if (query.project !== undefined && !coversProject(token, query.project)) throw permissionDenied(`API token ${token.name} has no access to project ${query.project}`)
  // About ten statements: one snapshot, so that a write committed between two of them cannot tear the export.
  return readSnapshot(db, (trx) => readExport(trx, query, token))
}

async function readExport (db: Queryable, query: ExportQuery, token: TokenScope): Promise<ExportResult> {
  const { environment } = query
  if (query.project !== undefined) await requirePresent(db, { project: query.project })
  if (!(await environmentExists(db, environment))) throw notFound(`Environment ${environment} does not exist`)
  const names =
    query.features !== undefined && query.features.length > 0
      ? query.features
      : query.tag !== undefined
        ? await featuresTagged(db, query.tag)
        : await liveFeatureNames(db, query.project)
  const features = (await featuresNamed(db, [...new Set(names)])).filter((f) => coversProject(token, f.project))
  const featureNames = features.map((f) => f.name)
  const [environments, strategies, tags, parents, links] = await Promise.all([
    featureEnvironmentsOf(db, featureNames, environment),
    strategiesOfFeatures(db, featureNames, environment),
    tagsOfFeatures(db, featureNames),
    parentsOfFeatures(db, featureNames),
    linksOfFeatures(db, featureNames),
  ])
  const featureStrategies = featureNames.flatMap((name) =>
    (strategies.get(name) ?? []).map((s) => ({
      name: s.name,
      id: s.id,
      featureName: name,
      title: s.title,
      parameters: s.parameters,
      constraints: (s.constraints as Constraint[]).map(exportedConstraint),
      variants: s.variants,
      sortOrder: s.sortOrder,
      disabled: s.disabled,
      segments: s.segments,
    }))
  )
  const featureEnvironments = environments.map((e) => ({ enabled: e.enabled, featureName: e.featureName, environment, variants: JSON.parse(e.variants) as Variant[], name: e.featureName }))
  const used = usedContextNames(featureStrategies, featureEnvironments)
  const segmentIds = [...new Set(featureStrategies.flatMap((s) => s.segments))]
  const [contextFields, segments, tagTypes] = await Promise.all([
    contextFieldsNamed(db, [...used]),
    segmentsWhere(db, { ids: segmentIds }),
    listTagTypes(db, [...new Set(tags.map((t) => t.tagType))]),
  ])
  return {
    features: features.map((f) => ({ name: f.name, description: f.description, type: f.type, project: f.project, stale: f.stale, impressionData: f.impressionData, archived: f.archived })),
    featureStrategies,
    featureEnvironments,
    contextFields: contextFields.map((c) => ({ name: c.name, description: c.description, stickiness: c.stickiness, sortOrder: c.sortOrder, legalValues: c.legalValues.map((v) => ({ value: v.value, ...(v.description ? { description: v.description } : {}) })) })),
    featureTags: tags,
    segments: segments.map((s) =>
      query.segmentConstraints === true
        ? { id: s.id, name: s.name, description: s.description, project: s.project, constraints: (s.constraints as Constraint[]).map(exportedConstraint) }
        : { id: s.id, name: s.name }),
    tagTypes,
    dependencies: featureNames.flatMap((name) => {
      const list = parents.get(name)
      return list ? [{ feature: name, dependencies: list }] : []
    }),
    links: featureNames.flatMap((name) => {
      const list = links.get(name)
      return list ? [{ feature: name, links: list.map((l) => ({ id: l.id, url: l.url, title: l.title })) }] : []
    }),
  }
}

/** The context fields strategies and variants read: constraints, stickiness, overrides (as Unleash). */
function usedContextNames (strategies: { parameters: Record<string, string>; constraints: Constraint[]; variants: Variant[] }[], environments: { variants: Variant[] }[]) {
  const names = new Set<string>()
  const ofVariants = (variants: Variant[]) => {
    for (const v of variants) {
      if (v.stickiness) names.add(v.stickiness)
      for (const o of v.overrides ?? []) names.add(o.contextName)
    }
  }
  for (const s of strategies) {
    if (s.parameters.stickiness) names.add(s.parameters.stickiness)
    for (const c of s.constraints) names.add(c.contextName)
    ofVariants(s.variants)
  }
  for (const e of environments) ofVariants(e.variants)
  return names
}
