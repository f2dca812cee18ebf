import type { Static } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { notFound } from '../errors.js'
import { withChange, type Writer } from '../events/events.service.js'
import type { Author } from '../events/events.schemas.js'
import { lockFeatures } from '../features/features.store.js'
import { groupBy } from '../db/rows.js'
import type { HealthReport, ProjectInsights, ProjectDora } from './projects.schemas.js'
import {
  activity, agingFeatures, featureEnvironments, featureTags, firstProductionEnables, members, projectEnvironments, projectRow,
  setStaleFlags, staleFlags, typeCounts,
} from './projects.store.js'
import { environmentSortOrder } from './search.service.js'
import { averageDays, daysBetween, healthCounts, healthRating } from '../vocabulary/staleness.js'

const DAY_MS = 24 * 3_600_000

/**
 * Marks features of a project stale, or no longer stale (what people decide; potentially stale is
 * computed). All listed features in one change, each under its lock: each whose mark changes
 * records feature-stale-on or feature-stale-off; one already so is left alone. 404 names the
 * first feature, in the order given, that is not in the project; then nothing changes. The
 * single write for a feature's stale mark: JSON Patch on /stale calls it too.
 */
export function setStale (writer: Writer, project: string, features: readonly string[], stale: boolean, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const locked = await lockFeatures(trx, project, features)
    const marks = await staleFlags(trx, locked.map((f) => f.name))
    const changing = locked.map((f) => f.name).filter((name) => marks.get(name) !== stale)
    await setStaleFlags(trx, changing, stale)
    for (const name of changing) record({ type: stale ? 'feature-stale-on' : 'feature-stale-off', createdBy, project, featureName: name })
  })
}

async function requireProject (db: Database, project: string) {
  const row = await projectRow(db, project)
  if (!row) throw notFound(`Project ${project} does not exist`)
  return row
}

const aging = (rows: Awaited<ReturnType<typeof agingFeatures>>) => rows.map((f) => ({ stale: f.stale, createdAt: f.created_at, lifetimeDays: f.lifetime_days }))

/** Unleash's project stats over the last 30 days (and the 30 before), computed when asked. */
async function stats (db: Database, project: string, now: Date) {
  const day30 = new Date(now.getTime() - 30 * DAY_MS)
  const day60 = new Date(now.getTime() - 60 * DAY_MS)
  const [current, past, leadTimes, people] = await Promise.all([
    activity(db, project, day30, new Date(now.getTime() + DAY_MS)),
    activity(db, project, day60, day30),
    firstProductionEnables(db, project),
    members(db, project, day30),
  ])
  return {
    avgTimeToProdCurrentWindow: averageDays(leadTimes.map((l) => daysBetween(l.created_at, l.enabled_at))),
    createdCurrentWindow: current.created,
    createdPastWindow: past.created,
    archivedCurrentWindow: current.archived,
    archivedPastWindow: past.archived,
    projectActivityCurrentWindow: current.events,
    projectActivityPastWindow: past.events,
    projectMembersAddedCurrentWindow: people.added,
  }
}

/** A project's health: its features (not archived) with their environments, and how many are stale or potentially stale. */
export async function healthReport (db: Database, project: string): Promise<Static<typeof HealthReport>> {
  const now = new Date()
  const row = await requireProject(db, project)
  const [features, environments, featureEnvs, tags, people, projectStats] = await Promise.all([
    agingFeatures(db, project), projectEnvironments(db, project), featureEnvironments(db, project), featureTags(db, project),
    members(db, project, now), stats(db, project, now),
  ])
  const envsOf = groupBy(featureEnvs, (e) => e.feature_name, (e) => ({
    name: e.environment_name,
    enabled: e.enabled,
    type: e.type,
    sortOrder: environmentSortOrder(e.environment_name),
    variantCount: Number(e.variant_count),
    lastSeenAt: e.last_seen_at,
    hasStrategies: Boolean(e.has_strategies),
    hasEnabledStrategies: Boolean(e.has_enabled_strategies),
  }))
  const tagsOf = groupBy(tags, (t) => t.feature_name, (t) => ({ value: t.tag_value, type: t.tag_type }))
  const health = healthRating(aging(features), now)
  return {
    version: 1,
    name: row.name,
    description: row.description,
    mode: 'open',
    featureLimit: null,
    featureNaming: { pattern: null, example: null, description: null },
    defaultStickiness: 'default',
    health,
    technicalDebt: 100 - health,
    favorite: false,
    createdAt: row.created_at,
    updatedAt: row.created_at,
    stats: projectStats,
    members: people.current,
    environments: environments.sort((a, b) => environmentSortOrder(a) - environmentSortOrder(b) || a.localeCompare(b)).map((environment) => ({ environment })),
    features: features.map((f) => {
      const featureTagsOf = tagsOf.get(f.name)
      return {
        name: f.name,
        type: f.type,
        description: f.description,
        favorite: false,
        createdAt: f.created_at,
        stale: f.stale,
        impressionData: f.impression_data,
        environments: (envsOf.get(f.name) ?? []).sort((a, b) => a.sortOrder - b.sortOrder || a.name.localeCompare(b.name)),
        ...(featureTagsOf && { tags: featureTagsOf }),
      }
    }),
    ...healthCounts(aging(features), now),
  }
}

/** Unleash's lead time: whole days from creation to the first switch-on in production, per release feature, and their average. */
export async function dora (db: Database, project: string): Promise<Static<typeof ProjectDora>> {
  await requireProject(db, project)
  const leadTimes = await firstProductionEnables(db, project)
  const days = leadTimes.map((l) => daysBetween(l.created_at, l.enabled_at))
  return {
    features: leadTimes.map((l, i) => ({ name: l.feature_name!, timeToProduction: days[i]! })),
    projectAverage: averageDays(days),
  }
}

/** A project's insights: its stats, feature types, health and technical debt, lead time and members. */
export async function insights (db: Database, project: string): Promise<Static<typeof ProjectInsights>> {
  const now = new Date()
  await requireProject(db, project)
  const [projectStats, types, features, leadTime, people] = await Promise.all([
    stats(db, project, now), typeCounts(db, project), agingFeatures(db, project), dora(db, project), members(db, project, new Date(now.getTime() - 30 * DAY_MS)),
  ])
  const counts = healthCounts(aging(features), now)
  const rating = healthRating(aging(features), now)
  return {
    stats: projectStats,
    featureTypeCounts: types,
    technicalDebt: { rating: 100 - rating, ...counts },
    leadTime,
    members: { currentMembers: people.current, change: people.added },
    health: { rating, ...counts },
  }
}
