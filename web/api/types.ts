// The admin API's answers, as the screens read them: each is the server's TypeBox schema (the
// one source of truth, which also validates, serialises and documents it), as JSON carries it.
// Only types come from src/ here (`import type`, erased by the build): no server code is bundled.
import type { Static, TSchema } from '@sinclair/typebox'
import type { CreatedToken as CreatedTokenSchema, TokenInfo } from '../../src/auth/tokens.schemas'
import type { ChangeRequestCounts, ChangeRequestListItem, ChangeRequestView, EnvironmentConfig, Reviewers } from '../../src/change-requests/change-requests.schemas'
import type { FeatureDetails as FeatureDetailsSchema, FeatureListItem } from '../../src/catalog/catalog.schemas'
import type { Environment as EnvironmentSchema } from '../../src/catalog/environments.schemas'
import type { Project as ProjectSchema } from '../../src/catalog/projects.schemas'
import type { Constraint } from '../../src/constraints/constraints.schemas'
import type { ListedContextField } from '../../src/context/context.schemas'
import type { Event } from '../../src/events/events.schemas'
import type { LifecycleStage as LifecycleStageSchema } from '../../src/lifecycle/lifecycle.schemas'
import type { ExportResult, ImportValidation } from '../../src/import-export/import-export.schemas'
import type { Group as GroupSchema, NewGroup } from '../../src/groups/groups.schemas'
import type { ListedSegment, SegmentUse as SegmentUseSchema } from '../../src/segments/segments.schemas'
import type { OidcSettingsResponse, PasswordAuth as PasswordAuthSchema } from '../../src/sso/sso.schemas'
import type { FeatureStrategy, StrategyDefinition as StrategyDefinitionSchema } from '../../src/strategies/strategies.schemas'
import type { Tag as TagSchema, TagType as TagTypeSchema } from '../../src/tags/tags.schemas'
import type { CreatedPat as CreatedPatSchema, Me as MeSchema, Pat, ProjectAccess as ProjectAccessSchema, TokenUser as TokenUserSchema, User as UserSchema } from '../../src/users/users.schemas'
import type { Payload as PayloadSchema, Variant as VariantSchema } from '../../src/variants/variants.schemas'
import type { Addon, CreatedAddon as CreatedAddonSchema, Delivery as DeliverySchema, RotatedSecret as RotatedSecretSchema } from '../../src/webhooks/webhooks.schemas'
import type { RawMetrics as RawMetricsSchema, UsageSummary as UsageSummarySchema } from '../../src/insight/metrics.schemas'
import type { SearchResult as SearchResultSchema } from '../../src/insight/search.schemas'
import type { FeatureType as FeatureTypeSchema } from '../../src/feature-types/feature-types.schemas'

export type { Constraint }
import type { ChangeAction } from '../../src/vocabulary/change-requests'
export type { ChangeAction, ChangeRequestState } from '../../src/vocabulary/change-requests'
export type { Operator } from '../../src/vocabulary/operators'
export type { StageName as Stage } from '../../src/vocabulary/stages'

/** A server type as JSON carries it: a date is a string. */
export type Json<T> =
  T extends Date ? string
    : T extends (infer U)[] ? Json<U>[]
      : T extends object ? { [K in keyof T]: Json<T[K]> }
        : T

/** What the API answers with, for a response schema. */
type Answer<S extends TSchema> = Json<Static<S>>

/**
 * Stored constraints are answered exactly as they were sent (the response schema says only
 * "an array"); they were validated as constraints when they were written.
 */
type WithConstraints<T> = Omit<T, 'constraints'> & { constraints: Constraint[] }

export type Project = Answer<typeof ProjectSchema>
export type Environment = Answer<typeof EnvironmentSchema>
type ListedFeature = Answer<typeof FeatureListItem>
/** A flag of a project's list as the flag list reads it: with its lifecycle stage (include=lifecycle) and its project (the list's). */
export type FeatureSummary = Omit<ListedFeature, 'lifecycle'> & Required<Pick<ListedFeature, 'lifecycle'>> & { project: string }
export type Strategy = WithConstraints<Answer<typeof FeatureStrategy>>
type DetailsEnvironment = Answer<typeof FeatureDetailsSchema>['environments'][number]
export type FeatureEnvironment = Omit<DetailsEnvironment, 'strategies'> & { strategies: Strategy[] }
export type FeatureDetails = Omit<Answer<typeof FeatureDetailsSchema>, 'environments'> & { environments: FeatureEnvironment[] }
export type LifecycleStage = Answer<typeof LifecycleStageSchema>
export type Variant = Answer<typeof VariantSchema>
export type Payload = Answer<typeof PayloadSchema>
export type StrategyDefinition = Answer<typeof StrategyDefinitionSchema>
export type StrategyParameter = StrategyDefinition['parameters'][number]
export type Segment = WithConstraints<Answer<typeof ListedSegment>>
export type SegmentUse = Answer<typeof SegmentUseSchema>
export type ContextField = Answer<typeof ListedContextField>
export type Tag = Answer<typeof TagSchema>
export type TagType = Answer<typeof TagTypeSchema>
export type StoredEvent = Answer<typeof Event>
export type ApiToken = Answer<typeof TokenInfo>
export type CreatedToken = Answer<typeof CreatedTokenSchema>
export type Webhook = Answer<typeof Addon>
export type CreatedWebhook = Answer<typeof CreatedAddonSchema>
export type RotatedSecret = Answer<typeof RotatedSecretSchema>
export type Delivery = Answer<typeof DeliverySchema>
export type Me = Answer<typeof MeSchema>
export type User = Answer<typeof UserSchema>
export type TokenUser = Answer<typeof TokenUserSchema>
export type PersonalAccessToken = Answer<typeof Pat>
export type CreatedPersonalAccessToken = Answer<typeof CreatedPatSchema>
export type Validation = Answer<typeof ImportValidation>
export type OidcSettings = Answer<typeof OidcSettingsResponse>
export type PasswordAuth = Answer<typeof PasswordAuthSchema>
export type Group = Answer<typeof GroupSchema>
/** Who has a role in a project: the project roles, the people and the groups holding one there. */
export type ProjectAccess = Answer<typeof ProjectAccessSchema>
/** A group as created or replaced (POST and PUT /api/admin/groups), without what the API ignores. */
export type GroupBody = Pick<Static<typeof NewGroup>, 'name' | 'description' | 'mappingsSSO' | 'rootRole' | 'users'>
export type Export = Answer<typeof ExportResult>

export type SearchResult = Answer<typeof SearchResultSchema>
export type SearchedFlag = SearchResult['features'][number]
export type RawMetrics = Answer<typeof RawMetricsSchema>
export type UsageRow = RawMetrics['data'][number]
export type UsageSummary = Answer<typeof UsageSummarySchema>
export type FeatureType = Answer<typeof FeatureTypeSchema>
export type ChangeRequest = Answer<typeof ChangeRequestView>
export type ChangeRequestSummary = Answer<typeof ChangeRequestListItem>
export type ChangeRequestConfig = Answer<typeof EnvironmentConfig>
export type ChangeRequestCount = Answer<typeof ChangeRequestCounts>
export type Reviewer = Answer<typeof Reviewers>['reviewers'][number]
/** A change as a proposal sends it (POST …/environments/{e}/change-requests). */
export interface ProposedChange { feature?: string; action: ChangeAction; payload?: unknown }

/** A flag as writes name it: its project and its name. */
export type FlagRef = Pick<FeatureDetails, 'project' | 'name'>
