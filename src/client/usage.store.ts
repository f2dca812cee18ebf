import type { Static } from '@sinclair/typebox'
import { sql } from 'kysely'
import { ALL, type TokenScope } from '../auth/tokens.js'
import type { Database } from '../db/types.js'
import type { ClientMetrics, ClientRegistration } from './usage.schemas.js'

/** Records (or refreshes) an SDK instance. */
export async function registerApplication (db: Database, token: TokenScope, body: Static<typeof ClientRegistration>) {
  const row = {
    app_name: body.appName,
    instance_id: body.instanceId,
    environment: token.environments[0]!,
    token_name: token.name,
    sdk_version: body.sdkVersion ?? null,
    strategies: JSON.stringify(body.strategies),
    interval_ms: body.interval,
    started_at: new Date(body.started),
    last_seen_at: new Date(),
  }
  await db
    .insertInto('client_applications')
    .values(row)
    .onConflict((oc) => oc.columns(['app_name', 'instance_id']).doUpdateSet(row))
    .execute()
}

const startOfHour = (at: Date) => new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000)

/**
 * Adds an SDK's evaluation counts to the hourly buckets of the token's environment, for
 * features that exist, are not archived and are in the token's projects (others are
 * ignored, as Unleash does), and moves those features along their lifecycle: the first
 * evaluation in a production-type environment enters `live`, in any other `pre-live`
 * (unless already live). Features completed or archived stay where they are. One
 * transaction; the hour is the server's, not the client's.
 */
export async function recordMetrics (db: Database, token: TokenScope, body: Static<typeof ClientMetrics>) {
  const environment = token.environments[0]!
  const evaluated = Object.entries(body.bucket.toggles).filter(([, c]) => c.yes + c.no > 0)
  if (evaluated.length === 0) return
  const now = new Date()
  const hour = startOfHour(now)
  await db.transaction().execute(async (trx) => {
    let known = trx
      .selectFrom('features as f')
      .innerJoin('feature_environments as fe', 'fe.feature_name', 'f.name')
      .innerJoin('environments as e', 'e.name', 'fe.environment_name')
      .select(['f.name', 'e.type'])
      .where('fe.environment_name', '=', environment)
      .where('f.archived_at', 'is', null)
      .where('f.name', 'in', evaluated.map(([name]) => name))
    if (!token.projects.includes(ALL)) known = known.where('f.project_id', 'in', token.projects)
    const features = await known.orderBy('f.name').execute()
    if (features.length === 0) return
    const counts = new Map(evaluated)
    await trx
      .insertInto('client_metrics')
      .values(features.map((f) => ({
        feature_name: f.name,
        environment,
        app_name: body.appName,
        hour,
        yes: counts.get(f.name)!.yes,
        no: counts.get(f.name)!.no,
        last_seen_at: now,
      })))
      .onConflict((oc) =>
        oc.columns(['feature_name', 'environment', 'app_name', 'hour']).doUpdateSet((eb) => ({
          yes: sql`client_metrics.yes + ${eb.ref('excluded.yes')}`,
          no: sql`client_metrics.no + ${eb.ref('excluded.no')}`,
          last_seen_at: eb.ref('excluded.last_seen_at'),
        }))
      )
      .execute()
    const variants = features.flatMap((f) =>
      Object.entries(counts.get(f.name)!.variants ?? {})
        .filter(([variant, count]) => count > 0 && variant.length > 0 && !variant.includes('\u0000'))
        .map(([variant, count]) => ({ feature_name: f.name, environment, app_name: body.appName, hour, variant, count }))
    )
    if (variants.length > 0) {
      await trx
        .insertInto('client_metrics_variants')
        .values(variants)
        .onConflict((oc) =>
          oc.columns(['feature_name', 'environment', 'app_name', 'hour', 'variant']).doUpdateSet((eb) => ({
            count: sql`client_metrics_variants.count + ${eb.ref('excluded.count')}`,
          }))
        )
        .execute()
    }
    const stage = features[0]!.type === 'production' ? 'live' : 'pre-live'
    const names = features.map((f) => f.name)
    await trx
      .insertInto('feature_lifecycles')
      .columns(['feature_name', 'stage'])
      .expression((eb) =>
        eb
          .selectFrom('features as f')
          .select((s) => ['f.name', s.val(stage).as('stage')])
          .where('f.name', 'in', names)
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('feature_lifecycles as l')
                  .select('l.feature_name')
                  .whereRef('l.feature_name', '=', 'f.name')
                  .where('l.stage', 'in', stage === 'live' ? ['live', 'completed', 'archived'] : ['pre-live', 'live', 'completed', 'archived'])
              )
            )
          )
      )
      .onConflict((oc) => oc.columns(['feature_name', 'stage']).doNothing())
      .execute()
  })
}

/** When each environment last evaluated the feature, newest first. */
export async function lastEvaluated (db: Database, feature: string) {
  const rows = await db
    .selectFrom('client_metrics')
    .select(['environment', (eb) => eb.fn.max('last_seen_at').as('at')])
    .where('feature_name', '=', feature)
    .groupBy('environment')
    .orderBy('at', 'desc')
    .execute()
  return rows.map((r) => ({ environment: r.environment, lastEvaluatedAt: new Date(r.at) }))
}
