import type { Static } from '@sinclair/typebox'
import { ALL, type TokenScope } from '../access/scope.js'
import { readSnapshot } from '../db/snapshot.js'
import type { Database, Queryable } from '../db/types.js'
import { notFound } from '../errors.js'
import { withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { averageDaysInStages, currentStageCounts } from '../lifecycle/lifecycle.store.js'
import type { StrategyDocument } from '../strategies/strategy-rules.js'
import { applicationRowsOfProject } from './project-applications.store.js'
import { applicationsPage, averageTimeToProduction, groupApplications, healthRating, onboardingStatus } from './project-rules.js'
import {
  activityByDate,
  enabledEnvironments,
  flagCreators,
  flagTypeCounts,
  projectResources,
  projectSummaries,
  type ProjectSummary,
  timesToProduction,
  windowCounts,
} from './project-stats.store.js'
import type { NewProject } from './projects.schemas.js'
import { findProject, insertProject } from './projects.store.js'

const missing = (id: string) => notFound(`Project ${id} does not exist`)

const healthOf = (s: ProjectSummary) => {
  const health = healthRating(s.flags, s.potentiallyStale)
  return { health, technicalDebt: 100 - health }
}

/** The projects the token may see, by name, with what Unleash's project list shows. */
export async function projects (db: Database, token: TokenScope) {
  return readSnapshot(db, async (trx) => {
    const summaries = await projectSummaries(trx, token.projects.includes(ALL) ? undefined : token.projects)
    const stages = await currentStageCounts(trx, summaries.map((s) => s.id))
    return summaries.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      createdAt: s.createdAt,
      ...healthOf(s),
      featureCount: s.flags,
      memberCount: s.members,
      cleanupCount: stages.get(s.id)?.completed ?? 0,
      mode: 'open' as const,
      archivedAt: null,
      lastUpdatedAt: s.lastUpdatedAt,
      lastReportedFlagUsage: s.lastReportedFlagUsage,
      onboardingStatus: onboardingStatus(s.onboarding),
      owners: [{ ownerType: 'system' as const }],
    }))
  })
}

export async function project (db: Database, id: string) {
  const found = await findProject(db, id)
  if (!found) throw missing(id)
  return found
}

export function createProject (writer: Writer, body: Static<typeof NewProject>, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const created = await insertProject(trx, body)
    record({ type: 'project-created', createdBy, project: created.id, data: toJsonText(body) })
    return created
  })
}

async function summaryOf (trx: Queryable, id: string) {
  const [summary] = await projectSummaries(trx, [id])
  if (!summary) throw missing(id)
  return summary
}

/** Unleash's project overview: settings as this server has them, health, members, environments, flag types, onboarding and 30-day counts. */
export function overview (db: Database, id: string) {
  return readSnapshot(db, async (trx) => {
    const summary = await summaryOf(trx, id)
    const environments = await enabledEnvironments(trx, id)
    return {
      version: 1 as const,
      name: summary.name,
      description: summary.description,
      mode: 'open' as const,
      featureLimit: null,
      featureNaming: { pattern: null, example: null, description: null },
      linkTemplates: [],
      defaultStickiness: 'default',
      members: summary.members,
      ...healthOf(summary),
      createdAt: summary.createdAt,
      updatedAt: summary.lastUpdatedAt,
      archivedAt: null,
      onboardingStatus: onboardingStatus(summary.onboarding),
      environments: environments.map((e) => ({
        environment: e.environment_name,
        ...(e.default_strategy !== null && { defaultStrategy: JSON.parse(e.default_strategy) as StrategyDocument }),
      })),
      featureTypeCounts: await flagTypeCounts(trx, id),
      stats: { avgTimeToProdCurrentWindow: averageTimeToProduction(await timesToProduction(trx, id)), ...(await windowCounts(trx, id)) },
    }
  })
}

/** Unleash's project status: activity per day, resources, health, the lifecycle summary and the potentially stale flags. */
export function status (db: Database, id: string) {
  return readSnapshot(db, async (trx) => {
    const summary = await summaryOf(trx, id)
    const resources = await projectResources(trx, id)
    const current = (await currentStageCounts(trx, [id])).get(id) ?? {}
    const days = await averageDaysInStages(trx, id)
    const stage = (name: 'initial' | 'pre-live' | 'live' | 'completed') => ({ averageDays: days.get(name) ?? null, currentFlags: current[name] ?? 0 })
    const { health, technicalDebt } = healthOf(summary)
    return {
      activityCountByDate: await activityByDate(trx, id),
      resources: { members: summary.members, apiTokens: resources.apiTokens, segments: resources.segments },
      health: { current: health },
      technicalDebt: { current: technicalDebt },
      lifecycleSummary: {
        initial: stage('initial'),
        preLive: stage('pre-live'),
        live: stage('live'),
        completed: stage('completed'),
        archived: { currentFlags: resources.archived, last30Days: resources.archivedRecently },
      },
      staleFlags: { total: summary.potentiallyStale },
    }
  })
}

/** Who created the project's flags: `{id, name}` of each person (name, else username, else email). */
export async function projectFlagCreators (db: Database, id: string) {
  const people = await flagCreators(db, id)
  if (people.length === 0 && !(await findProject(db, id))) throw missing(id)
  return people.flatMap((p) => {
    const name = p.name || p.username || p.email
    return name ? [{ id: p.id, name }] : []
  })
}

/** One page of the applications that reported using the project's flags, as Unleash pages them. */
export async function projectApplications (db: Database, id: string, query: Parameters<typeof applicationsPage>[0]) {
  if (!(await findProject(db, id))) throw missing(id)
  const { total, rows } = await applicationRowsOfProject(db, id, applicationsPage(query))
  return { total, applications: groupApplications(rows) }
}
