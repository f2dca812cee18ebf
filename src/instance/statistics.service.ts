import { createHash } from 'node:crypto'
import type { Database } from '../db/types.js'
import { ROLES } from '../users/roles.js'
import type { InstanceSettings } from './settings.service.js'
import { instanceCounts, previousDayUsageRows } from './statistics.store.js'
import { SERVER_VERSION } from './version.js'

/**
 * The instance statistics in Unleash's shape (what Unleash counts and this server has; zeros
 * for what it has not: SAML, release templates and plans, Edge, read-only users, exports, which
 * record no event), signed with Unleash's `sum`.
 */
export async function instanceStatistics (db: Database, settings: InstanceSettings, oidcEnabled: () => Promise<boolean>) {
  const [counts, usage, oidc] = await Promise.all([instanceCounts(db), previousDayUsageRows(db), oidcEnabled()])
  const { instanceId } = settings.state
  const roles = ROLES.length
  const sum = createHash('sha256')
    .update(`${instanceId}${counts.users}${counts.featureToggles}${counts.projects}${roles}${counts.groups}${counts.environments}${counts.segments}`)
    .digest('hex')
  return {
    instanceId,
    timestamp: new Date(),
    versionOSS: SERVER_VERSION,
    versionEnterprise: '',
    users: counts.users,
    previousDayMetricsBucketsCount: usage,
    activeUsers: counts.activeUsers,
    licensedUsers: counts.activeUsers.last30,
    productionChanges: counts.productionChanges,
    featureToggles: counts.featureToggles,
    projects: counts.projects,
    contextFields: counts.contextFields,
    roles,
    groups: counts.groups,
    environments: counts.environments,
    segments: counts.segments,
    strategies: counts.strategies,
    SAMLenabled: false,
    OIDCenabled: oidc,
    clientApps: counts.clientApps,
    featureExports: 0,
    featureImports: counts.featureImports,
    apiTokens: counts.apiTokens,
    maxEnvironmentStrategies: counts.maxEnvironmentStrategies,
    maxConstraints: counts.maxConstraints,
    maxConstraintValues: counts.maxConstraintValues,
    releaseTemplates: 0,
    releasePlans: 0,
    edgeInstanceUsage: {},
    readOnlyUsers: 0,
    sum,
  }
}

export type Statistics = Awaited<ReturnType<typeof instanceStatistics>>

const csvCell = (value: unknown): string => {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  const text = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : JSON.stringify(value)
  return `"${text.replaceAll('"', '""')}"`
}

/** The statistics as CSV, as Unleash writes them: a header of quoted names, one row; nested values as JSON. */
export function statisticsCsv (stats: Statistics): string {
  const entries = Object.entries(stats)
  return `${entries.map(([key]) => csvCell(key)).join(',')}\n${entries.map(([, value]) => csvCell(value)).join(',')}`
}
