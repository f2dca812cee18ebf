import { type RawBuilder, sql } from 'kysely'
import type { Queryable } from '../db/types.js'

const n = (value: string | number | null | undefined) => Number(value ?? 0)

/**
 * The counts of the instance statistics, each one statement of its own (one snapshot would
 * cost a transaction; counts a moment apart tell the same story).
 */
export async function instanceCounts (db: Queryable) {
  const q = <T>(text: RawBuilder<T>) => text.execute(db).then((r) => r.rows[0]!)
  const [totals, activeUsers, apiTokens, productionChanges, clientApps, maxima] = await Promise.all([
    q(sql<Record<string, string>>`SELECT
      (SELECT count(*) FROM users) AS users,
      (SELECT count(*) FROM features WHERE archived_at IS NULL) AS features,
      (SELECT count(*) FROM features WHERE archived_at IS NOT NULL) AS archived_features,
      (SELECT count(*) FROM projects) AS projects,
      (SELECT count(*) FROM context_fields) AS context_fields,
      (SELECT count(*) FROM groups) AS groups,
      (SELECT count(*) FROM environments) AS environments,
      (SELECT count(*) FROM segments) AS segments,
      (SELECT count(*) FROM strategy_definitions) AS strategies,
      (SELECT count(*) FROM events WHERE type = 'features-imported') AS imports`),
    q(sql<Record<string, string>>`SELECT
      count(*) FILTER (WHERE seen_at > now() - interval '7 days') AS last7,
      count(*) FILTER (WHERE seen_at > now() - interval '30 days') AS last30,
      count(*) FILTER (WHERE seen_at > now() - interval '60 days') AS last60,
      count(*) FILTER (WHERE seen_at > now() - interval '90 days') AS last90
      FROM users`),
    q(sql<Record<string, string>>`SELECT
      count(*) FILTER (WHERE type = 'admin') AS admin,
      count(*) FILTER (WHERE type = 'client') AS client,
      count(*) FILTER (WHERE type = 'frontend') AS frontend
      FROM api_tokens`),
    q(sql<Record<string, string>>`SELECT
      count(*) FILTER (WHERE created_at > now() - interval '30 days') AS last30,
      count(*) FILTER (WHERE created_at > now() - interval '60 days') AS last60,
      count(*) AS last90
      FROM events WHERE environment = 'production' AND created_at > now() - interval '90 days'`),
    q(sql<Record<string, string>>`SELECT
      count(DISTINCT app_name) FILTER (WHERE last_seen_at > now() - interval '7 days') AS d7,
      count(DISTINCT app_name) FILTER (WHERE last_seen_at > now() - interval '30 days') AS d30,
      count(DISTINCT app_name) AS all_time
      FROM usage_applications`),
    q(sql<Record<string, string | null>>`SELECT
      (SELECT max(n) FROM (SELECT count(*) AS n FROM feature_strategies GROUP BY feature_name, environment_name) s) AS strategies,
      (SELECT max(json_array_length(constraints)) FROM feature_strategies) AS constraints,
      (SELECT max(json_array_length(c->'values')) FROM feature_strategies, json_array_elements(constraints) c
        WHERE json_typeof(c->'values') = 'array') AS constraint_values`),
  ])
  return {
    users: n(totals.users),
    featureToggles: n(totals.features),
    archivedFeatureToggles: n(totals.archived_features),
    projects: n(totals.projects),
    contextFields: n(totals.context_fields),
    groups: n(totals.groups),
    environments: n(totals.environments),
    segments: n(totals.segments),
    strategies: n(totals.strategies),
    featureImports: n(totals.imports),
    activeUsers: { last7: n(activeUsers.last7), last30: n(activeUsers.last30), last60: n(activeUsers.last60), last90: n(activeUsers.last90) },
    apiTokens: { admin: n(apiTokens.admin), client: n(apiTokens.client), frontend: n(apiTokens.frontend) },
    productionChanges: { last30: n(productionChanges.last30), last60: n(productionChanges.last60), last90: n(productionChanges.last90) },
    clientApps: [
      { range: '7d' as const, count: n(clientApps.d7) },
      { range: '30d' as const, count: n(clientApps.d30) },
      { range: 'allTime' as const, count: n(clientApps.all_time) },
    ],
    maxEnvironmentStrategies: n(maxima.strategies),
    maxConstraints: n(maxima.constraints),
    maxConstraintValues: n(maxima.constraint_values),
  }
}

/** Usage rows of the previous day (UTC): one per feature, application and hour; and those with variants. */
export async function previousDayUsageRows (db: Queryable) {
  const { rows } = await sql<{ enabled: string; variants: string }>`SELECT
    count(*) AS enabled,
    count(*) FILTER (WHERE variants <> '{}'::jsonb) AS variants
    FROM usage_counts
    WHERE hour >= date_trunc('day', now()) - interval '1 day' AND hour < date_trunc('day', now())`.execute(db)
  return { enabledCount: n(rows[0]?.enabled), variantCount: n(rows[0]?.variants) }
}
