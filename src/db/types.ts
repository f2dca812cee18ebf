import type { ColumnType, Generated, Kysely, Transaction } from 'kysely'
import type { TokenType } from '../access/scope.js'
import type { ProjectRoleName, RootRoleName } from '../vocabulary/roles.js'
import type { CompletionStatus, StageName } from '../vocabulary/stages.js'

type CreatedAt = ColumnType<Date, never, never>

export interface ProjectsTable {
  id: string
  name: string
  description: string | null
  created_at: CreatedAt
}

export interface EnvironmentsTable {
  name: string
  type: string
  created_at: CreatedAt
  /** Where it is listed: lower first. */
  sort_order: ColumnType<number, number | undefined, number>
  /** False: deprecated (still served and writable, no longer offered). */
  enabled: ColumnType<boolean, boolean | undefined, boolean>
  protected: ColumnType<boolean, boolean | undefined, boolean>
}

export interface ProjectEnvironmentsTable {
  project_id: string
  environment_name: string
  created_at: CreatedAt
  /** JSON text of the strategy a feature switched on with none gets there; null: flexibleRollout at 100 %. */
  default_strategy: ColumnType<string | null, string | null | undefined, string | null>
}

export interface FeaturesTable {
  name: string
  project_id: string
  description: string | null
  type: string
  created_at: CreatedAt
  /** Set while the feature is archived. */
  archived_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  impression_data: ColumnType<boolean, boolean | undefined, boolean>
  stale: ColumnType<boolean, boolean | undefined, boolean>
  /** The person who created it; null for an API token. */
  created_by_user_id: ColumnType<number | null, number | null | undefined, number | null>
}

/**
 * `variants` is a JSON column holding exactly the text the service wrote (see
 * serializeVariants): read and written as that text, never re-serialised by the database.
 */
export interface FeatureEnvironmentsTable {
  feature_name: string
  environment_name: string
  enabled: Generated<boolean>
  variants: ColumnType<string, string | undefined, string>
  revision: Generated<number>
}

export interface FeatureLifecyclesTable {
  feature_name: string
  stage: StageName
  status: CompletionStatus | null
  status_value: string | null
  entered_stage_at: ColumnType<Date, never, never>
}

export interface ApiTokensTable {
  name: string
  secret_hash: string
  projects: ColumnType<string[], string, string>
  environments: ColumnType<string[], string, string>
  type: ColumnType<TokenType, TokenType | undefined, never>
  created_at: CreatedAt
  /** NULL: never expires. */
  expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>
}

export interface EventsTable {
  id: ColumnType<string | number, never, never>
  type: string
  created_at: CreatedAt
  created_by: string
  created_by_user_id: ColumnType<number | null, number | null | undefined, never>
  project: string | null
  feature_name: string | null
  environment: string | null
  /** JSON text, as written. */
  data: ColumnType<string | null, string | null, never>
  pre_data: ColumnType<string | null, string | null, never>
  /** The writing transaction's id (xid8 as a number, text in JS); set by its default. */
  xact_id: ColumnType<string, never, never>
  /** The change request whose application made this change, and its author's name. */
  change_request_id: ColumnType<number | null, number | null | undefined, never>
  change_request_author: ColumnType<string | null, string | null | undefined, never>
}

/** Counters of committed changes; their sum is the state version (see committedVersion). */
export interface StateVersionShardsTable {
  shard: number
  changes: ColumnType<string, never, string>
}

export interface UsageApplicationsTable {
  id: Generated<number>
  token_name: string
  environment: string
  /** The reporting token's project scope, JSON text. */
  projects: string
  app_name: string
  last_seen_at: ColumnType<Date, Date | undefined, Date>
}

export interface UsageInstancesTable {
  application_id: number
  instance_id: string
  sdk_version: string | null
  /** JSON text */
  strategies: string
  /** Null for an instance known only from its metrics. */
  interval_ms: number | null
  started_at: Date | null
  last_seen_at: ColumnType<Date, Date | undefined, Date>
}

/** Counts are BIGINT: pg returns them as strings. */
type Counter = ColumnType<string, number | string, number | string>

export interface UsageCountsTable {
  feature_name: string
  application_id: number
  hour: Date
  yes: Counter
  no: Counter
  /** JSONB `{variant: count}`. */
  variants: ColumnType<Record<string, number>, string, string>
}

/** When a feature was last evaluated in an environment (by any application). */
export interface UsageEvaluationsTable {
  feature_name: string
  environment: string
  last_seen_at: Date
}

/** An application as people describe it (POST /api/admin/metrics/applications/{appName}). */
export interface ApplicationsTable {
  app_name: string
  description: string | null
  url: string | null
  color: string | null
  icon: string | null
  /** JSON text: strategy names. */
  strategies: ColumnType<string, string | undefined, string>
  created_by: string
  created_at: CreatedAt
  updated_at: ColumnType<Date, Date | undefined, Date>
}

/** A name SDKs reported usage of that is no flag, per application and environment. */
export interface UnknownFlagsTable {
  name: string
  app_name: string
  environment: string
  last_seen_at: Date
}

export interface StrategyDefinitionsTable {
  name: string
  display_name: string | null
  title: string | null
  description: string | null
  /** JSON text: [{name, type, description, required}] */
  parameters: string
  built_in: ColumnType<boolean, boolean | undefined, never>
  deprecated: ColumnType<boolean, boolean | undefined, boolean>
  sort_order: ColumnType<number, number | undefined, number>
  created_at: CreatedAt
}

export interface FeatureStrategiesTable {
  id: string
  feature_name: string
  environment_name: string
  strategy_name: string
  title: string | null
  disabled: boolean
  sort_order: number
  /** JSON text */
  parameters: string
  /** JSON text */
  constraints: string
  /** JSON text */
  variants: string
  revision: ColumnType<number, number | undefined, number>
  created_at: CreatedAt
}

export interface SegmentsTable {
  id: Generated<number>
  name: string
  description: string | null
  project_id: string | null
  /** JSON text */
  constraints: string
  created_by: string
  created_at: CreatedAt
}

export interface FeatureStrategySegmentsTable {
  strategy_id: string
  segment_id: number
}

export interface FeatureDependenciesTable {
  child: string
  parent: string
  enabled: boolean
  /** JSON text, or null when no variants were given. */
  variants: string | null
  created_at: CreatedAt
}

export interface WebhooksTable {
  id: Generated<number>
  description: string | null
  enabled: boolean
  events: string[]
  projects: string[]
  environments: string[]
  url: string
  content_type: string | null
  auth_header: string | null
  /** JSON text of `{name: value}`. */
  custom_headers: string | null
  body_template: string | null
  signing_secret: string
  previous_secret: string | null
  previous_secret_until: Date | null
  created_at: CreatedAt
}

export type DeliveryState = 'pending' | 'delivered' | 'dead'

export interface WebhookDeliveriesTable {
  id: ColumnType<string, never, never>
  webhook_id: number
  event_id: ColumnType<string, string | number, never>
  message_id: ColumnType<string, never, never>
  state: ColumnType<DeliveryState, never, DeliveryState>
  attempts: ColumnType<number, never, number>
  attempts_base: ColumnType<number, never, number>
  next_attempt_at: ColumnType<Date, never, Date>
  leased_until: ColumnType<Date | null, never, Date | null>
  created_at: CreatedAt
  finished_at: ColumnType<Date | null, never, Date | null>
}

export interface WebhookAttemptsTable {
  delivery_id: ColumnType<string, string, never>
  attempt: number
  started_at: Date
  duration_ms: number | null
  status: number | null
  error: string | null
}

export interface ContextFieldsTable {
  name: string
  description: string | null
  stickiness: ColumnType<boolean, boolean | undefined, boolean>
  sort_order: ColumnType<number, number | undefined, number>
  /** JSON text: [{value, description?}] */
  legal_values: ColumnType<string, string | undefined, string>
  created_at: CreatedAt
  /** The project the field belongs to; null: a root field. */
  project: ColumnType<string | null, string | null | undefined, string | null>
}

export interface FeatureTypesTable {
  id: string
  name: string
  description: string
  lifetime_days: number | null
  created_at: CreatedAt
}

export interface TagTypesTable {
  name: string
  description: ColumnType<string, string | undefined, string>
  icon: string | null
  color: string | null
  created_at: CreatedAt
}

export interface TagsTable {
  type: string
  value: string
  created_at: CreatedAt
}

export interface FeatureTagsTable {
  feature_name: string
  tag_type: string
  tag_value: string
  created_at: CreatedAt
}

export interface UsersTable {
  id: Generated<number>
  username: string | null
  email: string | null
  name: string | null
  root_role: RootRoleName
  /** scrypt in the PHC string format; null when the user cannot log in. */
  password_hash: string | null
  created_at: CreatedAt
  seen_at: Date | null
}

export interface ProjectRolesTable {
  user_id: number
  project_id: string
  role: ProjectRoleName
  created_at: CreatedAt
}

export interface SessionsTable {
  /** SHA-256 of the session id, hex. */
  id_hash: string
  user_id: number
  created_at: CreatedAt
  last_seen_at: ColumnType<Date, Date | undefined, Date>
  expires_at: Date
}

export interface PersonalAccessTokensTable {
  id: Generated<number>
  user_id: number
  description: string
  secret_hash: string
  expires_at: Date
  created_at: CreatedAt
  seen_at: Date | null
}

export interface LoginFailuresTable {
  scope: 'account' | 'address'
  key: string
  window_started_at: Date
  failures: number
}

/** A setting by name (JSONB): the OpenID Connect settings, whether password login is off. */
export interface AuthSettingsTable {
  name: string
  value: ColumnType<unknown, string, string>
  updated_at: ColumnType<Date, never, Date>
}

/** A login sent to the identity provider, until its browser comes back (used once). */
export interface OidcLoginsTable {
  binding_hash: string
  state: string
  nonce: string
  code_verifier: string | null
  redirect: string
  address_key: string
  created_at: CreatedAt
  expires_at: Date
}

export interface OidcSessionsTable {
  session_hash: string
  created_at: CreatedAt
}

export interface GroupsTable {
  id: Generated<number>
  name: string
  description: string | null
  mappings_sso: ColumnType<string[], string[] | undefined, string[]>
  root_role: RootRoleName | null
  created_by: string | null
  created_at: CreatedAt
}

export interface GroupUsersTable {
  group_id: number
  user_id: number
  /** 'SSO' when group syncing added it. */
  created_by: string | null
  created_at: CreatedAt
}

export interface GroupProjectRolesTable {
  group_id: number
  project_id: string
  role: ProjectRoleName
  created_at: CreatedAt
}

export interface ChangeRequestSettingsTable {
  project_id: string
  environment_name: string
  enabled: boolean
  required_approvals: number
  updated_at: ColumnType<Date, never, Date>
}

export interface ChangeRequestsTable {
  id: Generated<number>
  project_id: string
  environment_name: string
  state: string
  title: string | null
  min_approvals: number
  created_by_user_id: number | null
  created_by_name: string
  created_at: CreatedAt
  /** JSON text: each state entered, with the last time it was entered. */
  state_timestamps: string
  scheduled_at: Date | null
  schedule_status: 'pending' | 'failed' | 'suspended' | null
  schedule_reason: string | null
  scheduled_by_user_id: number | null
  scheduled_by_name: string | null
}

export interface ChangeRequestChangesTable {
  id: Generated<number>
  change_request_id: number
  feature_name: string | null
  segment_id: number | null
  action: string
  /** JSON text, as validated. */
  payload: string
  /** JSON text: the version of what the change changes, when it was added or last edited. */
  target: string
  created_by_user_id: number | null
  created_by_name: string
  created_at: CreatedAt
}

export interface ChangeRequestReviewsTable {
  id: Generated<number>
  change_request_id: number
  user_id: number | null
  user_name: string
  verdict: 'approved' | 'rejected'
  created_at: CreatedAt
}

export interface ChangeRequestCommentsTable {
  id: Generated<number>
  change_request_id: number
  user_id: number | null
  user_name: string
  text: string
  created_at: CreatedAt
}

export interface ChangeRequestReviewersTable {
  change_request_id: number
  user_id: number
}

/** A password-reset or invitation link (only the token's SHA-256), until used or expired. */
export interface PasswordResetTokensTable {
  token_hash: string
  user_id: number
  kind: 'reset' | 'invite'
  created_by: string | null
  created_at: CreatedAt
  expires_at: Date
}

/** A public sign-up token (an invite link): its secret, as Unleash keeps it. */
export interface SignupTokensTable {
  secret: string
  name: string
  role: ColumnType<RootRoleName, RootRoleName | undefined, RootRoleName>
  enabled: ColumnType<boolean, boolean | undefined, boolean>
  expires_at: Date
  created_by: string | null
  created_at: CreatedAt
}

export interface SignupTokenUsersTable {
  secret: string
  user_id: number
  created_at: CreatedAt
}

/** A setting of the instance by name (JSONB): maintenance mode, the frontend API's origins, the instance id. */
export interface InstanceSettingsTable {
  name: string
  value: ColumnType<unknown, string, string>
  updated_at: ColumnType<Date, never, Date>
}

export interface UserFeedbackTable {
  user_id: number
  feedback_id: string
  given: Date | null
  never_show: boolean
}

export interface UserSplashTable {
  user_id: number
  splash_id: string
  seen_at: CreatedAt
}

export interface DB {
  change_request_settings: ChangeRequestSettingsTable
  change_requests: ChangeRequestsTable
  change_request_changes: ChangeRequestChangesTable
  change_request_reviews: ChangeRequestReviewsTable
  change_request_comments: ChangeRequestCommentsTable
  change_request_reviewers: ChangeRequestReviewersTable
  auth_settings: AuthSettingsTable
  oidc_logins: OidcLoginsTable
  oidc_sessions: OidcSessionsTable
  groups: GroupsTable
  group_users: GroupUsersTable
  group_project_roles: GroupProjectRolesTable
  context_fields: ContextFieldsTable
  feature_types: FeatureTypesTable
  tag_types: TagTypesTable
  tags: TagsTable
  feature_tags: FeatureTagsTable
  users: UsersTable
  project_roles: ProjectRolesTable
  sessions: SessionsTable
  personal_access_tokens: PersonalAccessTokensTable
  login_failures: LoginFailuresTable
  webhooks: WebhooksTable
  webhook_deliveries: WebhookDeliveriesTable
  webhook_attempts: WebhookAttemptsTable
  usage_applications: UsageApplicationsTable
  usage_instances: UsageInstancesTable
  usage_counts: UsageCountsTable
  usage_evaluations: UsageEvaluationsTable
  applications: ApplicationsTable
  unknown_flags: UnknownFlagsTable
  projects: ProjectsTable
  environments: EnvironmentsTable
  project_environments: ProjectEnvironmentsTable
  features: FeaturesTable
  feature_environments: FeatureEnvironmentsTable
  feature_lifecycles: FeatureLifecyclesTable
  api_tokens: ApiTokensTable
  events: EventsTable
  state_version_shards: StateVersionShardsTable
  strategy_definitions: StrategyDefinitionsTable
  feature_strategies: FeatureStrategiesTable
  segments: SegmentsTable
  feature_strategy_segments: FeatureStrategySegmentsTable
  feature_dependencies: FeatureDependenciesTable
  password_reset_tokens: PasswordResetTokensTable
  signup_tokens: SignupTokensTable
  signup_token_users: SignupTokenUsersTable
  instance_settings: InstanceSettingsTable
  user_feedback: UserFeedbackTable
  user_splash: UserSplashTable
  feature_links: FeatureLinksTable
  favorite_features: FavoriteFeaturesTable
  favorite_projects: FavoriteProjectsTable
}

export interface FeatureLinksTable {
  /** A ULID. */
  id: string
  feature_name: string
  url: string
  title: string | null
  created_at: CreatedAt
}

export interface FavoriteFeaturesTable {
  user_id: number
  feature_name: string
  created_at: CreatedAt
}

export interface FavoriteProjectsTable {
  user_id: number
  project_id: string
  created_at: CreatedAt
}

export type Database = Kysely<DB>
/** Either the database handle or an open transaction: stores take whichever the route holds. */
export type Queryable = Kysely<DB> | Transaction<DB>
