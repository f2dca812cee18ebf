import type { Database } from '../../src/db/types.js'

/**
 * What is stored for one feature: every feature-environment (its variants parsed, and the
 * stored text itself, so that "nothing changed" compares bytes), its lifecycle, its events.
 */
export async function featureState (db: Database, feature: string) {
  const [environments, lifecycle, events] = await Promise.all([
    db
      .selectFrom('feature_environments')
      .select(['environment_name', 'variants', 'revision', 'enabled'])
      .where('feature_name', '=', feature)
      .orderBy('environment_name')
      .execute(),
    db
      .selectFrom('feature_lifecycles')
      .select(['stage', 'status', 'status_value', 'entered_stage_at'])
      .where('feature_name', '=', feature)
      .orderBy('stage')
      .execute(),
    db.selectFrom('events').select(['id']).where('feature_name', '=', feature).execute(),
  ])
  return {
    environments: environments.map((e) => ({
      environment_name: e.environment_name,
      enabled: e.enabled,
      revision: e.revision,
      json: e.variants,
      variants: JSON.parse(e.variants) as { name: string; weight: number }[],
    })),
    lifecycle,
    eventCount: events.length,
  }
}

/** The feature's events, oldest first, with data and pre_data parsed. */
export async function eventsOf (db: Database, feature: string) {
  const rows = await db
    .selectFrom('events')
    .selectAll()
    .where('feature_name', '=', feature)
    .orderBy('id')
    .execute()
  return rows.map((row) => ({
    ...row,
    data: row.data === null ? null : JSON.parse(row.data),
    pre_data: row.pre_data === null ? null : JSON.parse(row.pre_data),
  }))
}

const TABLES = [
  'projects',
  'environments',
  'project_environments',
  'features',
  'feature_environments',
  'feature_lifecycles',
  'api_tokens',
  'events',
  'usage_applications',
  'usage_instances',
  'usage_counts',
  'usage_evaluations',
  'strategy_definitions',
  'feature_strategies',
  'segments',
  'feature_strategy_segments',
  'feature_dependencies',
  'webhooks',
  'webhook_deliveries',
  'webhook_attempts',
  'context_fields',
  'feature_types',
  'tag_types',
  'tags',
  'feature_tags',
  'users',
  'project_roles',
  'sessions',
  'personal_access_tokens',
  'login_failures',
  'auth_settings',
  'oidc_logins',
  'oidc_sessions',
  'groups',
  'group_users',
  'group_project_roles',
  'applications',
  'unknown_flags',
  'change_request_settings',
  'change_requests',
  'change_request_changes',
  'change_request_reviews',
  'change_request_comments',
  'change_request_reviewers',
  'feature_links',
  'favorite_features',
  'favorite_projects',
  'password_reset_tokens',
  'signup_tokens',
  'signup_token_users',
  'instance_settings',
  'user_feedback',
  'user_splash',
] as const

/**
 * Every stored row of every table, as text: equal before and after a refused request means
 * the request changed nothing anywhere.
 */
export async function databaseFingerprint (db: Database): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {}
  for (const table of TABLES) {
    const rows = await db.selectFrom(table).selectAll().execute()
    out[table] = rows.map((row) => JSON.stringify(row)).sort()
  }
  return out
}
