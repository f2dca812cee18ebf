import type { Database } from '../db/types.js'
import { requirePresent } from '../features/features.store.js'
import { ROLE_IDS } from '../vocabulary/roles.js'
import { admins, type FlagCounts, latestProjectEvents, onboardingFacts, personalFlags, personalProjectIds, projectRolesOf, projectSummaries } from './dashboard.store.js'

/** The share of flags neither stale nor potentially stale, in percent (100 without flags), as Unleash reckons a project's health. */
const healthOf = ({ total, stale, potentiallyStale }: FlagCounts) => (total === 0 ? 100 : Math.round((100 * (total - stale - potentiallyStale)) / total))

const present = <T extends object>(value: T) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined))

/** The signed-in person's dashboard: their projects and flags, and who the Admins are. */
export async function personalDashboard (db: Database, userId: number) {
  const [projects, flags, adminList] = await Promise.all([
    personalProjectIds(db, userId).then((ids) => projectSummaries(db, ids)),
    personalFlags(db, userId),
    admins(db),
  ])
  return {
    projects: projects.map((p) => {
      const health = healthOf(p.flags)
      return { id: p.id, name: p.name, health, technicalDebt: 100 - health, memberCount: p.members, featureCount: p.flags.total }
    }),
    flags,
    projectOwners: [],
    admins: adminList.map((a) => ({ id: a.id, ...present({ name: a.name, username: a.username, email: a.email }) })),
  }
}

/** One project on the person's dashboard: its latest events, onboarding, the person's roles there, its flags' health. 404 for a project that does not exist. */
export async function personalProjectDetails (db: Database, userId: number, project: string) {
  await requirePresent(db, { project })
  const [[summary], events, facts, roles] = await Promise.all([
    projectSummaries(db, [project]),
    latestProjectEvents(db, project, 10),
    onboardingFacts(db, project),
    projectRolesOf(db, userId, project),
  ])
  const flags = summary?.flags ?? { total: 0, stale: 0, potentiallyStale: 0 }
  const health = healthOf(flags)
  return {
    latestEvents: events.map((e) => ({ id: Number(e.id), summary: null, createdBy: e.created_by, createdByImageUrl: '', createdAt: e.created_at })),
    onboardingStatus: facts.sdk
      ? { status: facts.enabled ? 'onboarded' as const : 'sdk-connected' as const }
      : facts.feature !== undefined ? { status: 'first-flag-created' as const, feature: facts.feature } : { status: 'onboarding-started' as const },
    owners: [{ ownerType: 'system' as const }],
    roles: [...new Set(roles)].map((name) => ({ id: ROLE_IDS[name as keyof typeof ROLE_IDS], name, type: 'project' as const })),
    insights: {
      avgHealthCurrentWindow: null,
      avgHealthPastWindow: null,
      totalFlags: flags.total,
      activeFlags: flags.total - flags.stale - flags.potentiallyStale,
      staleFlags: flags.stale,
      potentiallyStaleFlags: flags.potentiallyStale,
      health,
      technicalDebt: 100 - health,
    },
  }
}
