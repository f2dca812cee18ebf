import { createHash } from 'node:crypto'
import type { Static } from '@sinclair/typebox'
import type { TokenScope } from '../access/scope.js'
import { groupBy } from '../db/rows.js'
import type { Database } from '../db/types.js'
import { currentStagesOf } from '../lifecycle/lifecycle.store.js'
import { type FeatureSearch, parseSearch, type SearchParams, TOKEN_CREATOR_ID } from './search-query.js'
import type { SearchResult } from './search.schemas.js'
import { creators, lastHourCounts, searchedEnvironments, searchedFeatures, searchedSegments, searchedTags, searchFeatureNames } from './search.store.js'

/** Where Unleash puts its default environments in a list; other environments come after, by name. */
const SORT_ORDERS: Record<string, number> = { default: 1, development: 2, production: 3 }
export const environmentSortOrder = (name: string) => SORT_ORDERS[name] ?? 9999

/** A Gravatar address for a person (as Unleash makes it: a hash of the email, else the name). */
export const imageUrl = (ident: string) =>
  `https://gravatar.com/avatar/${createHash('sha256').update(ident.toLowerCase().trim()).digest('hex')}?s=42&d=retro&r=g`

/** Unleash's name for what an API token created. */
const TOKEN_CREATOR = 'Unleash Admin Token User'

/** Features found by Unleash's search grammar, one page of them, with how many match in all. */
export async function searchFeatures (db: Database, params: SearchParams, token: TokenScope): Promise<Static<typeof SearchResult>> {
  const search = parseSearch(params)
  const { names, total } = await searchFeatureNames(db, search, token)
  const features = await describe(db, names, search, token)
  return { features, total }
}

/** The page's features as Unleash's search answers them, in the page's order. */
async function describe (db: Database, names: string[], search: FeatureSearch, token: TokenScope) {
  const onlyTags = search.tag?.match === 'any' ? search.tag.tags : undefined
  const [rows, environments, counts, tags, segments, created, stages] = await Promise.all([
    searchedFeatures(db, names),
    searchedEnvironments(db, names, search, token),
    lastHourCounts(db, names),
    searchedTags(db, names, onlyTags),
    searchedSegments(db, names),
    creators(db, names),
    currentStagesOf(db, names),
  ])
  const byName = new Map(rows.map((r) => [r.name, r]))
  const count = new Map(counts.map((c) => [`${c.feature_name}\n${c.environment}`, c]))
  const environmentsOf = groupBy(environments, (e) => e.feature_name, (e) => {
    const c = count.get(`${e.feature_name}\n${e.environment_name}`)
    return {
      name: e.environment_name,
      enabled: e.enabled,
      type: e.type,
      sortOrder: environmentSortOrder(e.environment_name),
      variantCount: Number(e.variant_count),
      lastSeenAt: e.last_seen_at,
      hasStrategies: Boolean(e.has_strategies),
      hasEnabledStrategies: Boolean(e.has_enabled_strategies),
      yes: Number(c?.yes ?? 0),
      no: Number(c?.no ?? 0),
      changeRequestIds: [],
    }
  })
  const tagsOf = groupBy(tags, (t) => t.feature_name, (t) => ({ value: t.tag_value, type: t.tag_type, color: t.color }))
  const segmentsOf = groupBy(segments, (s) => s.feature_name, (s) => s.name)
  const creatorOf = new Map(created.map((c) => [c.feature_name, c]))
  // A feature archived or deleted between the statements is left out.
  return names.flatMap((name) => {
    const f = byName.get(name)
    if (!f) return []
    const stage = stages.get(name)
    const featureTags = tagsOf.get(name)
    return [{
      name,
      type: f.type,
      description: f.description,
      dependencyType: f.is_child ? 'child' as const : f.is_parent ? 'parent' as const : null,
      project: f.project_id,
      stale: f.stale,
      favorite: false,
      impressionData: f.impression_data,
      createdAt: f.created_at,
      archivedAt: f.archived_at,
      environments: (environmentsOf.get(name) ?? []).sort((a, b) => a.sortOrder - b.sortOrder || a.name.localeCompare(b.name)),
      segments: segmentsOf.get(name) ?? [],
      ...(featureTags && { tags: featureTags }),
      ...(stage && { lifecycle: { stage: stage.stage, ...(stage.status !== null && { status: stage.status }), enteredStageAt: stage.enteredStageAt } }),
      createdBy: createdBy(creatorOf.get(name)),
    }]
  })
}

/** Who created a feature, as Unleash's search names them. */
function createdBy (event: Awaited<ReturnType<typeof creators>>[number] | undefined) {
  if (event && event.created_by_user_id === null) return { id: TOKEN_CREATOR_ID, name: TOKEN_CREATOR, imageUrl: imageUrl(TOKEN_CREATOR) }
  if (!event || event.user_id === null) return { id: 0, name: 'unknown', imageUrl: imageUrl('unknown') }
  const name = event.name || event.username || event.email || 'unknown'
  return { id: event.user_id, name, imageUrl: imageUrl(event.email ?? name) }
}
