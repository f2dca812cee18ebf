/** The rules of the project reads (health, onboarding, time to production, applications), as Unleash computes them. */

/**
 * Percent of the flags (not archived) that are neither stale nor potentially stale, rounded;
 * 100 for a project without flags. Stale flags are not counted yet: there are none here.
 */
export function healthRating (flags: number, potentiallyStale: number): number {
  if (flags === 0) return 100
  return Math.max(0, Math.round(100 - (potentiallyStale / flags) * 100))
}

export type OnboardingStatus =
  | { status: 'onboarding-started' | 'sdk-connected' | 'onboarded' }
  | { status: 'first-flag-created'; feature: string }

/** Unleash's onboarding: an SDK reported and a flag was switched on; only an SDK; a flag; nothing yet. */
export function onboardingStatus (facts: { sdkConnected: boolean; everEnabled: boolean; firstFlag: string | null }): OnboardingStatus {
  if (facts.sdkConnected) return { status: facts.everEnabled ? 'onboarded' : 'sdk-connected' }
  if (facts.firstFlag !== null) return { status: 'first-flag-created', feature: facts.firstFlag }
  return { status: 'onboarding-started' }
}

const DAY_MS = 86_400_000

/**
 * The average days from creating a flag to switching it on in production, to one decimal (at
 * least 0.1 when there is any, as Unleash); 0 when none was.
 */
export function averageTimeToProduction (flags: readonly { created: Date; enabled: Date }[]): number {
  if (flags.length === 0) return 0
  const days = flags.reduce((sum, f) => sum + Math.max(0, Math.floor((f.enabled.getTime() - f.created.getTime()) / DAY_MS)), 0) / flags.length
  return Number(days.toFixed(1)) || 0.1
}

/** The page of `GET /projects/{p}/applications`, from its query as Unleash reads it: anything it cannot read is the default. */
export function applicationsPage (query: { query?: string; offset?: string; limit?: string; sortOrder?: string }) {
  const limit = Number(query.limit ?? 50)
  const offset = Number(query.offset ?? 0)
  return {
    terms: (query.query ?? '').split(',').map((t) => t.trim()).filter((t) => t.length > 0).slice(0, 20),
    limit: Number.isInteger(limit) && limit > 0 && limit <= 100 ? limit : 50,
    offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0,
    descending: query.sortOrder === 'desc',
  }
}

/**
 * Applications in Unleash's shape from their rows (in page order): each with its
 * environments, instances and SDKs (`name:version` split at the first colon), each list
 * sorted.
 */
export function groupApplications (rows: readonly { app: string; environment: string; instance: string | null; sdkVersion: string | null }[]) {
  const apps = new Map<string, { environments: Set<string>; instances: Set<string>; sdks: Map<string, Set<string>> }>()
  for (const row of rows) {
    let app = apps.get(row.app)
    if (!app) {
      app = { environments: new Set(), instances: new Set(), sdks: new Map() }
      apps.set(row.app, app)
    }
    app.environments.add(row.environment)
    if (row.instance !== null) app.instances.add(row.instance)
    if (row.sdkVersion) {
      const at = row.sdkVersion.indexOf(':')
      const name = at === -1 ? row.sdkVersion : row.sdkVersion.slice(0, at)
      const versions = app.sdks.get(name) ?? new Set<string>()
      if (at !== -1 && at < row.sdkVersion.length - 1) versions.add(row.sdkVersion.slice(at + 1))
      app.sdks.set(name, versions)
    }
  }
  const sorted = (values: Iterable<string>) => [...values].sort()
  return [...apps].map(([name, app]) => ({
    name,
    environments: sorted(app.environments),
    instances: sorted(app.instances),
    sdks: sorted(app.sdks.keys()).map((sdk) => ({ name: sdk, versions: sorted(app.sdks.get(sdk)!) })),
  }))
}
