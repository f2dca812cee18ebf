import type { Static } from '@sinclair/typebox'
import { coversProject, type TokenScope } from '../access/scope.js'
import type { Database } from '../db/types.js'
import { notFound } from '../errors.js'
import { requirePresent } from '../features/features.store.js'
import {
  appNames, appsOfFeature, definitionNames, describedApps, featureCounts, featuresOfApp, instancesOfApps, projectOfFeature,
  reportedApps, sdkVersions, unknownFlags, unknownFlagsOf,
} from './metrics.store.js'
import type { ApplicationDetails, ApplicationOverview, Applications, RawMetrics, UnknownFlags, UsageSummary } from './metrics.schemas.js'
import { outdatedSdks } from './sdk-versions.js'
import { likeSubstring } from './search-query.js'

const HOUR_MS = 3_600_000
const startOfHour = (at: number) => Math.floor(at / HOUR_MS) * HOUR_MS
/** At most this many applications are listed in a flag's usage (as Unleash). */
const MAX_APPS = 100
/** Strategies SDKs may name that Unleash no longer defines but does not call missing. */
const RETIRED_STRATEGIES = ['gradualRolloutRandom', 'gradualRolloutSessionId', 'gradualRolloutUserId', 'userWithId']

/**
 * The strategy names an instance registered with. Rows written before they were stored as an
 * array hold the array's JSON text as a JSON string: both read the same.
 */
function strategiesOf (stored: string): string[] {
  const parsed = JSON.parse(stored) as unknown
  const list = typeof parsed === 'string' ? JSON.parse(parsed) as unknown : parsed
  return Array.isArray(list) ? list.filter((s): s is string => typeof s === 'string') : []
}

/** `hoursBack` as Unleash reads it: a whole number of hours in range, else 24. */
export function hoursBack (text: string | undefined, max: number): number {
  const n = Number(text ?? Number.NaN)
  return text !== undefined && Number.isInteger(n) && n >= 1 && n <= max ? n : 24
}

/** A feature's counts, when the token may see it (a feature of another project has none, as one that does not exist). */
async function countsOf (db: Database, feature: string, since: Date, token: TokenScope) {
  const project = await projectOfFeature(db, feature)
  if (project !== undefined && !coversProject(token, project)) return []
  return featureCounts(db, feature, since, token)
}

/** Sums rows of one environment, app and hour (several tokens may report one app name): yes, no and variants. */
function sum (rows: Awaited<ReturnType<typeof featureCounts>>) {
  const out = new Map<string, { yes: number; no: number; variants: Record<string, number> }>()
  for (const r of rows) {
    const key = `${r.environment}\n${r.app_name}\n${r.hour.getTime()}`
    const s = out.get(key) ?? { yes: 0, no: 0, variants: {} }
    s.yes += Number(r.yes)
    s.no += Number(r.no)
    for (const [name, n] of Object.entries(r.variants)) s.variants[name] = (s.variants[name] ?? 0) + Number(n)
    out.set(key, s)
  }
  return out
}

/**
 * A flag's usage per hour over the last `hours` hours (the current one included): one row per
 * hour for every environment and application that reported it, zero-filled, oldest first (then
 * by environment and application).
 */
export async function rawMetrics (db: Database, feature: string, hours: number, token: TokenScope): Promise<Static<typeof RawMetrics>> {
  const last = startOfHour(Date.now())
  const first = last - (hours - 1) * HOUR_MS
  const rows = await countsOf(db, feature, new Date(first), token)
  const sums = sum(rows)
  const environments = [...new Set(rows.map((r) => r.environment))].sort()
  const apps = [...new Set(rows.map((r) => r.app_name))].sort().slice(0, MAX_APPS)
  const data: Static<typeof RawMetrics>['data'] = []
  for (let hour = first; hour <= last; hour += HOUR_MS) {
    for (const environment of environments) {
      for (const appName of apps) {
        const s = sums.get(`${environment}\n${appName}\n${hour}`)
        const timestamp = new Date(hour)
        data.push(s ? { featureName: feature, appName, environment, timestamp, yes: s.yes, no: s.no, variants: s.variants } : { featureName: feature, appName, environment, timestamp, yes: 0, no: 0 })
      }
    }
  }
  return { version: 1, maturity: 'stable', data }
}

/** A flag's last hour of usage per environment, and the applications that reported it in the last 24 hours. */
export async function usageSummary (db: Database, feature: string, token: TokenScope): Promise<Static<typeof UsageSummary>> {
  const now = Date.now()
  const project = await projectOfFeature(db, feature)
  const visible = project === undefined || coversProject(token, project)
  const rows = visible ? await featureCounts(db, feature, new Date(now - HOUR_MS), token) : []
  const perEnvironment = new Map<string, { environment: string; timestamp: Date; yes: number; no: number }>()
  for (const r of rows) {
    const e = perEnvironment.get(r.environment)
    if (e) {
      e.yes += Number(r.yes)
      e.no += Number(r.no)
      if (r.hour < e.timestamp) e.timestamp = r.hour
    } else {
      perEnvironment.set(r.environment, { environment: r.environment, timestamp: r.hour, yes: Number(r.yes), no: Number(r.no) })
    }
  }
  return {
    version: 1,
    maturity: 'stable',
    featureName: feature,
    lastHourUsage: [...perEnvironment.values()].sort((a, b) => a.environment.localeCompare(b.environment)),
    seenApplications: visible ? await appsOfFeature(db, feature, new Date(now - 24 * HOUR_MS), token) : [],
  }
}

/** `[{project, environments}]` of an application's registrations, from their tokens' scopes. */
function usageOf (registrations: Awaited<ReturnType<typeof reportedApps>>) {
  const byProject = new Map<string, Set<string>>()
  for (const r of registrations) {
    for (const project of JSON.parse(r.projects) as string[]) {
      const envs = byProject.get(project) ?? new Set<string>()
      envs.add(r.environment)
      byProject.set(project, envs)
    }
  }
  return [...byProject].sort(([a], [b]) => a.localeCompare(b)).map(([project, envs]) => ({ project, environments: [...envs].sort() }))
}

/** Applications reported by SDKs or described by people, as Unleash pages them (by name, 1000 at most). */
export async function applications (db: Database, params: { query?: string; offset?: string; limit?: string; sortOrder?: string }): Promise<Static<typeof Applications>> {
  const query = (params.query ?? '').split(',').map((q) => q.trim()).filter(Boolean).map(likeSubstring)
  const offset = Number.isInteger(Number(params.offset)) && Number(params.offset) > 0 ? Number(params.offset) : 0
  const limit = Number.isInteger(Number(params.limit)) && Number(params.limit) > 0 && Number(params.limit) <= 1000 ? Number(params.limit) : 1000
  const { names, total } = await appNames(db, query, params.sortOrder === 'desc' ? 'desc' : 'asc', offset, limit)
  const [described, reported, instances] = await Promise.all([describedApps(db, names), reportedApps(db, names), instancesOfApps(db, names)])
  return {
    total,
    applications: names.map((appName) => {
      const said = described.find((d) => d.app_name === appName)
      const strategies = new Set<string>(said ? JSON.parse(said.strategies) as string[] : [])
      for (const i of instances) if (i.app_name === appName) for (const s of strategiesOf(i.strategies)) strategies.add(s)
      return {
        appName,
        strategies: [...strategies].sort(),
        ...(said?.url && { url: said.url }),
        ...(said?.color && { color: said.color }),
        ...(said?.icon && { icon: said.icon }),
        usage: usageOf(reported.filter((r) => r.app_name === appName)),
      }
    }),
  }
}

/** One application, as Unleash answers it: what people said of it, its instances, its strategies and the flags it reported today. */
export async function application (db: Database, appName: string): Promise<Static<typeof ApplicationDetails>> {
  const [described, reported, instances, definitions, seen] = await Promise.all([
    describedApps(db, [appName]), reportedApps(db, [appName]), instancesOfApps(db, [appName]), definitionNames(db),
    featuresOfApp(db, appName, new Date(Date.now() - 24 * HOUR_MS)),
  ])
  const said = described[0]
  if (!said && reported.length === 0) throw notFound(`Could not find application with appName ${appName}`)
  const strategies = new Set<string>(said ? JSON.parse(said.strategies) as string[] : [])
  for (const i of instances) for (const s of strategiesOf(i.strategies)) strategies.add(s)
  const seenNames = [...new Set(seen.map((s) => s.feature_name))].sort()
  return {
    appName,
    createdAt: said?.created_at ?? reported.map((r) => r.last_seen_at).sort((a, b) => a.getTime() - b.getTime())[0] ?? null,
    description: said?.description ?? null,
    url: said?.url ?? null,
    color: said?.color ?? null,
    icon: said?.icon ?? null,
    strategies: [...strategies].sort().map((name) => {
      const found = definitions.find((d) => d.name === name)
      return found ? { name, description: found.description } : { name, notFound: true as const }
    }),
    instances: instances.map((i) => ({ appName, instanceId: i.instance_id, environment: i.environment, sdkVersion: i.sdk_version, clientIp: null, lastSeen: i.last_seen_at, createdAt: i.started_at })),
    seenToggles: seenNames.map((name) => {
      const f = seen.find((s) => s.feature_name === name)!
      return f.project_id === null ? { name, notFound: true as const } : { name, project: f.project_id, type: f.type ?? undefined, description: f.description, stale: f.stale ?? undefined }
    }),
    links: { self: `/api/applications/${appName}` },
  }
}

/** Where an application runs: per environment it reported usage in (the last 48 hours), its instances of the last day, SDKs and issues. */
export async function applicationOverview (db: Database, appName: string): Promise<Static<typeof ApplicationOverview>> {
  const now = Date.now()
  const [described, reported, features, instances, definitions, unknown] = await Promise.all([
    describedApps(db, [appName]), reportedApps(db, [appName]), featuresOfApp(db, appName, new Date(now - 48 * HOUR_MS)),
    instancesOfApps(db, [appName], new Date(now - 24 * HOUR_MS)), definitionNames(db), unknownFlagsOf(db, appName),
  ])
  if (described.length === 0 && reported.length === 0) throw notFound(`Could not find application with appName ${appName}`)
  const known = new Set(definitions.map((d) => d.name))
  const missing = new Set<string>()
  for (const i of instances) for (const s of strategiesOf(i.strategies)) if (!known.has(s) && !RETIRED_STRATEGIES.includes(s)) missing.add(s)
  const environments = [...new Set(features.map((f) => f.environment))].sort()
  return {
    projects: [...new Set(features.flatMap((f) => (f.project_id === null ? [] : [f.project_id])))].sort(),
    featureCount: new Set(features.map((f) => f.feature_name)).size,
    environments: environments.map((name) => {
      const here = instances.filter((i) => i.environment === name)
      const sdks = [...new Set(here.flatMap((i) => (i.sdk_version === null ? [] : [i.sdk_version])))].sort()
      return {
        name,
        instanceCount: new Set(here.map((i) => i.instance_id)).size,
        sdks,
        frontendSdks: [],
        backendSdks: sdks,
        lastSeen: here[0]?.last_seen_at ?? null,
        issues: { missingFeatures: unknown.filter((u) => u.environment === name).map((u) => u.name), outdatedSdks: outdatedSdks(sdks) },
      }
    }),
    issues: { missingStrategies: [...missing].sort() },
  }
}

/** An application's instances in one environment seen in the last 24 hours, newest first. */
export async function environmentInstances (db: Database, appName: string, environment: string) {
  const instances = await instancesOfApps(db, [appName], new Date(Date.now() - 24 * HOUR_MS), environment)
  return { instances: instances.map((i) => ({ instanceId: i.instance_id, sdkVersion: i.sdk_version, clientIp: null, lastSeen: i.last_seen_at })) }
}

/** SDK versions older than Unleash's oldest current ones, with the applications running them (of one project's flags, when given). */
export async function outdated (db: Database, project?: string) {
  if (project !== undefined) await requirePresent(db, { project })
  const rows = await sdkVersions(db, project)
  const bySdk = new Map<string, string[]>()
  for (const r of rows) bySdk.set(r.sdk_version!, [...(bySdk.get(r.sdk_version!) ?? []), r.app_name])
  return { sdks: [...bySdk].filter(([sdk]) => outdatedSdks([sdk]).length > 0).map(([sdkVersion, apps]) => ({ sdkVersion, applications: apps })) }
}

/** Names SDKs reported usage of that are no flag, reported in the last day: per application and environment. */
export async function unknown (db: Database): Promise<Static<typeof UnknownFlags>> {
  const rows = await unknownFlags(db, 1000)
  const flags = new Map<string, Static<typeof UnknownFlags>['unknownFlags'][number]>()
  for (const r of rows) {
    let flag = flags.get(r.name)
    if (!flag) flags.set(r.name, (flag = { name: r.name, lastSeenAt: r.last_seen_at, lastEventAt: r.last_event_at ? new Date(r.last_event_at) : null, reports: [] }))
    if (r.last_seen_at > flag.lastSeenAt) flag.lastSeenAt = r.last_seen_at
    let report = flag.reports.find((x) => x.appName === r.app_name)
    if (!report) flag.reports.push((report = { appName: r.app_name, environments: [] }))
    report.environments.push({ environment: r.environment, seenAt: r.last_seen_at })
  }
  return { unknownFlags: [...flags.values()] }
}
