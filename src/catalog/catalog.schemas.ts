import { Type } from '@sinclair/typebox'
import { Nullable, StringEnum, Timestamp, UrlFriendly } from '../http/schemas.js'
import { LifecycleStage, StageName } from '../lifecycle/lifecycle.schemas.js'
import { FeatureStrategy } from '../strategies/strategies.schemas.js'
import { FeatureLink } from '../feature-links/feature-links.schemas.js'
import { Tag } from '../tags/tags.schemas.js'
import { Variant } from '../variants/variants.schemas.js'
import { FEATURE_TYPES } from '../vocabulary/flag-types.js'

const Description = Type.String({ maxLength: 1000 })

export const NewFeature = Type.Object(
  {
    name: UrlFriendly('Unique across the whole instance'),
    description: Type.Optional(Description),
    type: Type.Optional(StringEnum(FEATURE_TYPES, { default: 'release' })),
    impressionData: Type.Optional(Type.Boolean({ default: false, description: 'SDKs emit impression events for the feature' })),
  },
  { additionalProperties: false }
)

export const FeatureUpdate = Type.Object(
  {
    name: Type.Optional(UrlFriendly('Must be the name in the path if given: a feature cannot be renamed')),
    description: Type.Optional(Nullable(Description)),
    type: Type.Optional(StringEnum(FEATURE_TYPES)),
    impressionData: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false }
)

export const Feature = Type.Object({
  name: Type.String(),
  project: Type.String(),
  description: Nullable(Type.String()),
  type: Type.String(),
  stale: Type.Boolean({ description: 'Marked stale (PATCH /stale): still served, but due to be cleaned up' }),
  impressionData: Type.Boolean(),
  createdAt: Timestamp,
})

/** A feature in one environment, as a project's feature list shows it (Unleash's projectFeatureEnvironmentSchema). */
const ListedEnvironment = Type.Object({
  name: Type.String(),
  type: Type.String({ description: "The environment's type" }),
  enabled: Type.Boolean(),
  sortOrder: Type.Integer({ description: "The environment's place in lists (environments oldest first, 1, 2, …)" }),
  variantCount: Type.Integer(),
  lastSeenAt: Type.Union([Timestamp, Type.Null()], { description: 'When an SDK last reported evaluating it there (null: never)' }),
  hasStrategies: Type.Boolean(),
  hasEnabledStrategies: Type.Boolean({ description: 'It has a strategy that is not disabled' }),
})

export const FeatureListQuery = Type.Object({
  include: Type.Optional(StringEnum(['lifecycle'], { description: 'lifecycle: each feature also carries its current lifecycle stage (not in Unleash\'s answer)' })),
})

export const FeatureListItem = Type.Object({
  name: Type.String(),
  type: Type.String(),
  description: Nullable(Type.String()),
  stale: Type.Boolean(),
  favorite: Type.Boolean({ description: 'One of your favourites (always false for an API token)' }),
  impressionData: Type.Boolean(),
  createdAt: Timestamp,
  environments: Type.Array(ListedEnvironment, { description: "The feature in each environment of its project that the token's scope covers, in name order" }),
  tags: Type.Array(Tag, { description: 'Its tags, in the order they were added (as Unleash lists them with each feature)' }),
  lifecycle: Type.Optional(Type.Object({ stage: StageName, enteredStageAt: Timestamp }, { description: 'The stage entered last; only with include=lifecycle' })),
})

export const FeatureList = Type.Object({
  version: Type.Literal(2, { description: 'As Unleash answers' }),
  features: Type.Array(FeatureListItem),
})

/** When SDKs last evaluated the feature in an environment (null: never, as far as is kept). */
const LastSeenAt = Nullable(Timestamp)

export const FeatureDetails = Type.Composite([
  Feature,
  Type.Object({
    lifecycle: Type.Composite([LifecycleStage], {
      description: 'The stage entered last, with its status and statusValue when it is completed',
    }),
    environments: Type.Array(
      Type.Object({
        name: Type.String(),
        enabled: Type.Boolean(),
        variants: Type.Array(Variant),
        lastSeenAt: LastSeenAt,
        strategies: Type.Array(FeatureStrategy, { description: 'In the order SDKs evaluate them (sortOrder)' }),
      }),
      { description: "The feature's environments that the token's scope covers" }
    ),
    dependencies: Type.Array(
      Type.Object({ feature: Type.String(), enabled: Type.Boolean(), variants: Type.Array(Type.String()) }),
      { description: 'The features this one depends on' }
    ),
    children: Type.Array(Type.String(), { description: 'The features that depend on this one' }),
    favorite: Type.Boolean({ description: 'One of your favourites (always false for an API token)' }),
    links: Type.Array(FeatureLink, { description: 'Links to elsewhere (issues, dashboards), in the order they were added' }),
  }),
])

/** One feature in one environment (Unleash's featureEnvironmentSchema: name is the feature's). */
export const FeatureInEnvironment = Type.Object({
  name: Type.String({ description: 'The feature, as Unleash names it here' }),
  featureName: Type.String(),
  environment: Type.String(),
  type: Type.String({ description: "The environment's type" }),
  enabled: Type.Boolean(),
  variantCount: Type.Integer(),
  variants: Type.Array(Variant),
  strategies: Type.Array(FeatureStrategy, { description: 'In the order SDKs evaluate them (sortOrder)' }),
  lastSeenAt: Type.Union([Timestamp, Type.Null()], { description: 'When an SDK last reported evaluating it there (null: never)' }),
})

export const CloneBody = Type.Object(
  {
    name: UrlFriendly('The new feature: unique across the whole instance'),
    replaceGroupId: Type.Optional(Type.Boolean({ default: true, description: "true: flexibleRollout strategies get the new name as their groupId (so the copy's rollout is not the same users')" })),
  },
  { additionalProperties: false }
)

/** Most features one bulk request names. */
export const MAX_BULK_FEATURES = 1000

export const BulkFeatures = Type.Object(
  { features: Type.Array(UrlFriendly('A feature of the project'), { maxItems: MAX_BULK_FEATURES, uniqueItems: true, description: `At most ${MAX_BULK_FEATURES}, each once` }) },
  { additionalProperties: false }
)

export const ToggleQuery = Type.Object({
  shouldActivateDisabledStrategies: Type.Optional(Type.Boolean({ default: false, description: 'Switching on: strategies that are disabled are enabled (instead of a default strategy added when none is active)' })),
})

export const NameCheck = Type.Object(
  {
    name: UrlFriendly('A feature name to check'),
    projectId: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'Accepted and not read: projects here have no naming pattern' }))),
  },
  { additionalProperties: false }
)
