import { Type } from '@sinclair/typebox'
import { Nullable, StringEnum, Timestamp, UrlFriendly } from '../http/schemas.js'
import { LifecycleStage, StageName } from '../lifecycle/lifecycle.schemas.js'
import { FeatureStrategy } from '../strategies/strategies.schemas.js'
import { Tag } from '../tags/tags.schemas.js'
import { Variant } from '../variants/variants.schemas.js'
import { FEATURE_TYPES } from '../vocabulary/flag-types.js'

const Description = Type.String({ maxLength: 1000 })

export const NewProject = Type.Object(
  {
    id: UrlFriendly('URL-friendly id, used in paths'),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(Description),
  },
  { additionalProperties: false }
)

export const Project = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  createdAt: Timestamp,
})

export const NewEnvironment = Type.Object(
  {
    name: UrlFriendly('URL-friendly environment name'),
    type: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Free text, e.g. development, production',
    }),
  },
  { additionalProperties: false }
)

export const Environment = Type.Object({
  name: Type.String(),
  type: Type.String(),
  createdAt: Timestamp,
})

export const EnableEnvironment = Type.Object(
  { environment: UrlFriendly('Name of an existing environment') },
  { additionalProperties: false }
)

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
  impressionData: Type.Boolean(),
  createdAt: Timestamp,
  stale: Type.Boolean({ description: 'Marked stale by a person (POST /api/admin/projects/{p}/stale)' }),
})

/** When SDKs last evaluated the feature in an environment (null: never, as far as is kept). */
const LastSeenAt = Nullable(Timestamp)

export const FeatureListItem = Type.Composite([
  Feature,
  Type.Object({
    environments: Type.Array(Type.Object({ name: Type.String(), enabled: Type.Boolean(), lastSeenAt: LastSeenAt }), {
      description: "Whether the feature is on in each environment the token's scope covers, in name order",
    }),
    lifecycle: Type.Object(
      { stage: StageName, enteredStageAt: Timestamp },
      { description: 'The stage entered last' }
    ),
    tags: Type.Array(Tag, { description: 'Its tags, in the order they were added (as Unleash lists them with each feature)' }),
  }),
])

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
  }),
])
