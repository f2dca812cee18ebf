import type { Static } from '@sinclair/typebox'
import { ALL, type TokenScope } from '../access/scope.js'
import type { Database } from '../db/types.js'
import { invalidField } from '../errors.js'
import { moveOnEvaluation } from '../lifecycle/lifecycle.service.js'
import type { ClientMetrics, ClientRegistration } from './usage.schemas.js'
import {
  addCounts,
  type ApplicationKey,
  countApplications,
  countInstances,
  deleteUsage,
  type InstanceFacts,
  insertApplication,
  insertInstance,
  isProduction,
  lockTokenUsage,
  touchApplication,
  updateInstance,
} from './usage.store.js'

export interface UsageLimits {
  /** Most applications (app names) one client token may report. */
  maxApplications: number
  /** Most SDK instances one client token may have registered at once. */
  maxInstances: number
}

/** Instances not seen for this long are forgotten (as Unleash does after two days). */
export const INSTANCE_RETENTION_MS = 48 * 3_600_000

const HOUR_MS = 3_600_000
const startOfHour = (at: Date) => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS)

const applicationKey = (token: TokenScope, appName: string): ApplicationKey => ({
  tokenName: token.name,
  environment: token.environments[0]!,
  projects: JSON.stringify(token.projects),
  appName,
})

/**
 * The application's id, marked seen. A new one counts against the token's cap, checked under
 * the token's lock so that concurrent reports cannot pass it together; past it, 400.
 */
async function applicationFor (db: Database, token: TokenScope, appName: string, limits: UsageLimits, now: Date) {
  const key = applicationKey(token, appName)
  const known = await touchApplication(db, key, now)
  if (known !== undefined) return known
  return db.transaction().execute(async (trx) => {
    await lockTokenUsage(trx, token.name)
    const again = await touchApplication(trx, key, now)
    if (again !== undefined) return again
    if ((await countApplications(trx, token.name)) >= limits.maxApplications) {
      throw invalidField(
        '/body/appName',
        `is a new application, and client token ${token.name} already reported ${limits.maxApplications} (CLIENT_MAX_APPLICATIONS); applications unseen for USAGE_RETENTION_DAYS are forgotten`
      )
    }
    return insertApplication(trx, key, now)
  })
}

/** Records (or refreshes) an SDK instance of the token's environment and scope. */
export async function registerInstance (
  db: Database,
  token: TokenScope,
  body: Static<typeof ClientRegistration>,
  limits: UsageLimits
): Promise<void> {
  const now = new Date()
  const applicationId = await applicationFor(db, token, body.appName, limits, now)
  const facts: InstanceFacts = {
    instanceId: body.instanceId,
    sdkVersion: body.sdkVersion ?? null,
    strategies: JSON.stringify(body.strategies),
    intervalMs: body.interval,
    startedAt: new Date(body.started),
  }
  if (await updateInstance(db, applicationId, facts, now)) return
  await db.transaction().execute(async (trx) => {
    await lockTokenUsage(trx, token.name)
    if ((await countInstances(trx, token.name)) >= limits.maxInstances) {
      throw invalidField(
        '/body/instanceId',
        `is a new instance, and client token ${token.name} already has ${limits.maxInstances} registered (CLIENT_MAX_INSTANCES); instances unseen for 48 hours are forgotten`
      )
    }
    await insertInstance(trx, applicationId, facts, now)
  })
}

/**
 * Adds an SDK's evaluation counts to the current hour (the server's, not the client's) of its
 * application, for features that exist, are not archived and are in the token's projects
 * (others are ignored, as Unleash does), and moves the evaluated features along their
 * lifecycle.
 */
export async function recordMetrics (
  db: Database,
  token: TokenScope,
  body: Static<typeof ClientMetrics>,
  limits: UsageLimits
): Promise<void> {
  const environment = token.environments[0]!
  const reported = Object.entries(body.bucket.toggles)
    .filter(([, c]) => c.yes + c.no > 0)
    .map(([feature, c]) => ({
      feature,
      yes: c.yes,
      no: c.no,
      variants: Object.fromEntries(Object.entries(c.variants ?? {}).filter(([, n]) => n > 0)),
    }))
  if (reported.length === 0) return
  const now = new Date()
  const applicationId = await applicationFor(db, token, body.appName, limits, now)
  const projects = token.projects.includes(ALL) ? undefined : token.projects
  const counted = await addCounts(db, { applicationId, environment, projects }, startOfHour(now), now, reported)
  if (counted.length === 0) return
  const production = await isProduction(db, environment)
  await moveOnEvaluation(db, counted, { name: environment, production }, { name: token.name })
}

/**
 * Deletes usage past its retention: hourly counts older than `retentionDays`, and with them
 * the applications not seen for as long; SDK instances not seen for 48 hours.
 */
export function pruneUsage (db: Database, retentionDays: number, now = new Date()) {
  return deleteUsage(db, new Date(now.getTime() - retentionDays * 24 * HOUR_MS), new Date(now.getTime() - INSTANCE_RETENTION_MS))
}
