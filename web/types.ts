// The shapes of the admin API's answers that the screens read (the OpenAPI document at
// /docs/json is their reference).

export interface Project { id: string; name: string; description: string | null; createdAt: string }
export interface Environment { name: string; type: string; createdAt: string }

export type Stage = 'initial' | 'pre-live' | 'live' | 'completed' | 'archived'

export interface FeatureSummary {
  name: string
  project: string
  description: string | null
  type: string
  impressionData: boolean
  createdAt: string
  /** Present when the server lists them (each environment of the project, on or off). */
  environments?: { name: string; enabled: boolean }[]
  lifecycle?: { stage: Stage; enteredStageAt: string }
  tags?: Tag[]
}

export interface Payload { type: 'json' | 'csv' | 'string' | 'number'; value: string }
export interface Override { contextName: string; values: string[] }
export interface Variant {
  name: string
  weight: number
  weightType: 'variable' | 'fix'
  stickiness: string
  payload?: Payload
  overrides?: Override[]
}

export interface Constraint {
  contextName: string
  operator: Operator
  values?: string[]
  value?: string
  inverted?: boolean
  caseInsensitive?: boolean
}

export type Operator =
  | 'IN' | 'NOT_IN' | 'STR_STARTS_WITH' | 'STR_ENDS_WITH' | 'STR_CONTAINS'
  | 'NUM_EQ' | 'NUM_GT' | 'NUM_GTE' | 'NUM_LT' | 'NUM_LTE'
  | 'DATE_AFTER' | 'DATE_BEFORE'
  | 'SEMVER_EQ' | 'SEMVER_GT' | 'SEMVER_GTE' | 'SEMVER_LT' | 'SEMVER_LTE'
  | 'REGEX' | 'IN_CIDR'

export interface Strategy {
  id: string
  name: string
  title: string | null
  disabled: boolean
  sortOrder: number
  constraints: Constraint[]
  parameters: Record<string, string>
  variants: Variant[]
  segments: number[]
}

export interface FeatureEnvironment {
  name: string
  enabled: boolean
  variants: Variant[]
  strategies: Strategy[]
}

export interface Dependency { feature: string; enabled: boolean; variants?: string[] }

export interface LifecycleStage {
  stage: Stage
  enteredStageAt: string
  status?: 'kept' | 'discarded'
  statusValue?: string
  lastEvaluated?: { environment: string; lastEvaluatedAt: string }[]
}

export interface FeatureDetails extends FeatureSummary {
  lifecycle: LifecycleStage
  environments: FeatureEnvironment[]
  dependencies: Dependency[]
  children: string[]
}

export interface StrategyParameter { name: string; type: 'string' | 'percentage' | 'list' | 'number' | 'boolean'; description: string; required: boolean }
export interface StrategyDefinition {
  name: string
  displayName: string | null
  title: string | null
  description: string | null
  editable: boolean
  deprecated: boolean
  parameters: StrategyParameter[]
}

export interface Segment {
  id: number
  name: string
  description: string | null
  project: string | null
  constraints: Constraint[]
  createdBy: string
  createdAt: string
}

export interface StoredEvent {
  id: number
  type: string
  createdAt: string
  createdBy: string
  project: string | null
  featureName: string | null
  environment?: string
  data: unknown
  preData?: unknown
}

export interface ApiToken {
  tokenName: string
  type: 'admin' | 'client' | 'frontend'
  projects: string[]
  environments: string[]
  createdAt: string
  secret?: string
}

export interface Webhook {
  id: number
  provider: 'webhook'
  description: string | null
  enabled: boolean
  events: string[]
  projects: string[]
  environments: string[]
  parameters: { url: string; contentType?: string; authorization?: string; customHeaders?: Record<string, string>; bodyTemplate?: string }
  createdAt: string
  signingSecret?: string
}

export interface Delivery {
  id: number
  eventId: number
  eventType: string
  messageId: string
  state: 'pending' | 'delivered' | 'dead'
  attempts: { attempt: number; startedAt: string; durationMs: number | null; status: number | null; error: string | null }[]
  nextAttemptAt: string | null
  createdAt: string
  finishedAt: string | null
}

export interface Tag { type: string; value: string }
export interface TagType { name: string; description?: string; icon?: string | null }

export interface ContextField {
  name: string
  description?: string
  stickiness?: boolean
  sortOrder?: number
  legalValues?: { value: string; description?: string }[]
  createdAt?: string
}

/** The signed-in person, as GET /api/admin/user answers. */
export interface Me {
  user: { id: number; name?: string | null; username?: string | null; email?: string | null; rootRole?: number | string }
  permissions?: { permission: string; project?: string; environment?: string }[]
}

export type Role = 'Admin' | 'Editor' | 'Viewer'

export interface User {
  id: number
  name?: string | null
  username?: string | null
  email?: string | null
  rootRole?: number | string
  createdAt?: string
  seenAt?: string | null
}

export interface PersonalAccessToken { id: number; description: string; expiresAt: string; createdAt: string; seenAt?: string | null; secret?: string }
