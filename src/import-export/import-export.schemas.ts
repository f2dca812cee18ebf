import { type Static, Type } from '@sinclair/typebox'
import { FEATURE_TYPES } from '../catalog/catalog.schemas.js'
import { OPERATORS } from '../constraints/constraints.schemas.js'
import { Nullable, StringEnum, UrlFriendly } from '../http/schemas.js'
import { Parameters } from '../strategies/strategies.schemas.js'
import { Variant } from '../variants/variants.schemas.js'

/** Most features one import may carry; the other lists are bounded by the body limit. */
export const MAX_IMPORT_FEATURES = 10_000
const MAX_ITEMS = 200_000

export const ExportQuery = Type.Object(
  {
    environment: UrlFriendly('The environment whose strategies, variants and state are exported'),
    project: Type.Optional(UrlFriendly('Export the features of this project (when neither features nor tag is given)')),
    features: Type.Optional(
      Type.Array(UrlFriendly('A feature name'), { maxItems: MAX_IMPORT_FEATURES, description: 'Export these features; empty or absent: by tag, by project, or all' })
    ),
    tag: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Export the features that have a tag of this value' })),
    downloadFile: Type.Optional(Type.Boolean({ description: 'true: answered as an attachment (Content-Disposition), for a browser to save' })),
    segmentConstraints: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          "true (default): segments carry description, project and constraints, so that an import here creates them; false: segments are {id, name} exactly as Unleash exports them, which Unleash's import requires (it refuses other members)",
      })
    ),
  },
  { additionalProperties: false }
)
export type ExportQuery = Static<typeof ExportQuery>

// What an export holds: Unleash 8.2's features-batch shapes, plus strategies' sortOrder and
// segments' constraints.

const ExportedFeature = Type.Object({
  name: Type.String(),
  description: Nullable(Type.String()),
  type: Type.String(),
  project: Type.String(),
  stale: Type.Boolean({ description: 'Always false: this server does not mark features stale' }),
  impressionData: Type.Boolean(),
  archived: Type.Boolean(),
})

const ExportedStrategy = Type.Object({
  name: Type.String(),
  id: Type.String(),
  featureName: Type.String(),
  title: Nullable(Type.String()),
  parameters: Type.Record(Type.String(), Type.String()),
  constraints: Type.Array(Type.Unknown(), { description: 'As stored; single-value operators carry values: [] beside value, as Unleash exports them' }),
  variants: Type.Array(Variant),
  sortOrder: Type.Integer({ description: 'Unlike Unleash, exported: the order SDKs evaluate strategies in survives the round trip' }),
  disabled: Type.Boolean(),
  segments: Type.Array(Type.Integer()),
})

const ExportedFeatureEnvironment = Type.Object({
  enabled: Type.Boolean(),
  featureName: Type.String(),
  environment: Type.String(),
  variants: Type.Array(Variant),
  name: Type.String({ description: 'The feature name again, as Unleash exports it' }),
})

const LegalValueOut = Type.Object({ value: Type.String(), description: Type.Optional(Type.String()) })

const ExportedContextField = Type.Object({
  name: Type.String(),
  description: Nullable(Type.String()),
  stickiness: Type.Boolean(),
  sortOrder: Type.Integer(),
  legalValues: Type.Array(LegalValueOut),
})

const ExportedSegment = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Optional(Nullable(Type.String())),
  project: Type.Optional(Nullable(Type.String())),
  constraints: Type.Optional(Type.Array(Type.Unknown(), { description: 'Unlike Unleash (which exports only id and name), so that an import can create the segment; left out with segmentConstraints: false' })),
})

const ExportedTagType = Type.Object({ name: Type.String(), description: Type.String(), icon: Nullable(Type.String()), color: Nullable(Type.String()) })

const Dependencies = Type.Object({
  feature: Type.String(),
  dependencies: Type.Array(Type.Object({ feature: Type.String(), enabled: Type.Boolean(), variants: Type.Optional(Type.Array(Type.String())) })),
})

export const ExportResult = Type.Object({
  features: Type.Array(ExportedFeature),
  featureStrategies: Type.Array(ExportedStrategy),
  featureEnvironments: Type.Array(ExportedFeatureEnvironment),
  contextFields: Type.Array(ExportedContextField, { description: 'The context fields the exported strategies and variants use (constraints, stickiness, overrides)' }),
  featureTags: Type.Array(Type.Object({ featureName: Type.String(), tagType: Type.String(), tagValue: Type.String() })),
  segments: Type.Array(ExportedSegment),
  tagTypes: Type.Array(ExportedTagType, { description: 'The tag types of the exported tags' }),
  dependencies: Type.Array(Dependencies),
})
export type ExportResult = Static<typeof ExportResult>

// What an import accepts: an export of this server or of Unleash. Members this server does not
// keep (createdAt, lastSeenAt, links, …) are accepted and ignored; those it keeps are checked
// as the single routes check them.

const open = { additionalProperties: true } as const
const Text = (maxLength: number) => Type.String({ maxLength })

const ImportConstraint = Type.Object(
  {
    contextName: Type.String({ minLength: 1, maxLength: 100 }),
    operator: StringEnum(OPERATORS),
    values: Type.Optional(Type.Array(Type.String(), { maxItems: MAX_ITEMS })),
    value: Type.Optional(Type.String()),
    inverted: Type.Optional(Type.Boolean()),
    caseInsensitive: Type.Optional(Type.Boolean()),
  },
  open
)
export type ImportConstraint = Static<typeof ImportConstraint>

const ImportFeature = Type.Object(
  {
    name: UrlFriendly('The feature'),
    description: Type.Optional(Nullable(Text(1000))),
    type: Type.Optional(StringEnum(FEATURE_TYPES)),
    project: Type.Optional(Type.String({ description: 'The project it was exported from (ignored: it is imported into the request\'s project)' })),
    impressionData: Type.Optional(Type.Boolean()),
    stale: Type.Optional(Type.Boolean({ description: 'Ignored' })),
    archived: Type.Optional(Type.Boolean({ description: 'Ignored' })),
  },
  open
)

const ImportStrategy = Type.Object(
  {
    name: UrlFriendly('The strategy definition'),
    featureName: UrlFriendly('The feature it belongs to; must be one of features'),
    id: Type.Optional(Type.String({ description: 'Ignored: the strategy gets an id here' })),
    title: Type.Optional(Nullable(Text(1000))),
    parameters: Type.Optional(Parameters),
    constraints: Type.Optional(Type.Array(ImportConstraint, { maxItems: MAX_ITEMS })),
    variants: Type.Optional(Type.Array(Type.Unknown(), { maxItems: MAX_ITEMS })),
    sortOrder: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 })),
    disabled: Type.Optional(Nullable(Type.Boolean())),
    segments: Type.Optional(Type.Array(Type.Integer(), { maxItems: MAX_ITEMS, description: 'Ids of segments listed in segments' })),
  },
  open
)
export type ImportStrategy = Static<typeof ImportStrategy>

const ImportFeatureEnvironment = Type.Object(
  {
    featureName: UrlFriendly('The feature; must be one of features'),
    enabled: Type.Boolean(),
    variants: Type.Optional(Type.Array(Type.Unknown(), { maxItems: MAX_ITEMS })),
  },
  open
)

const ImportContextField = Type.Object(
  {
    name: UrlFriendly('The context field'),
    description: Type.Optional(Nullable(Text(250))),
    stickiness: Type.Optional(Type.Boolean()),
    sortOrder: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 })),
    legalValues: Type.Optional(
      Type.Array(Type.Object({ value: Type.String({ minLength: 1, maxLength: 100 }), description: Type.Optional(Nullable(Text(1000))) }, open), { maxItems: 1000 })
    ),
  },
  open
)

const ImportSegment = Type.Object(
  {
    id: Type.Integer({ description: 'The id strategies of this data use for it' }),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(Nullable(Text(1000))),
    project: Type.Optional(Nullable(Type.String())),
    constraints: Type.Optional(Type.Array(ImportConstraint, { maxItems: MAX_ITEMS, description: 'When given, a segment of this name that does not exist is created with them' })),
  },
  open
)

const ImportTagType = Type.Object(
  {
    name: Type.String({ minLength: 2, maxLength: 50 }),
    description: Type.Optional(Nullable(Text(1000))),
    icon: Type.Optional(Nullable(Text(100))),
    color: Type.Optional(Nullable(Type.String({ maxLength: 7 }))),
  },
  open
)

const ImportDependencies = Type.Object(
  {
    feature: UrlFriendly('The child feature'),
    dependencies: Type.Array(
      Type.Object(
        { feature: UrlFriendly('The parent feature'), enabled: Type.Optional(Type.Boolean()), variants: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })) },
        open
      ),
      { maxItems: 100 }
    ),
  },
  open
)

export const ImportData = Type.Object(
  {
    features: Type.Array(ImportFeature, { maxItems: MAX_IMPORT_FEATURES }),
    featureStrategies: Type.Array(ImportStrategy, { maxItems: MAX_ITEMS }),
    featureEnvironments: Type.Optional(Type.Array(ImportFeatureEnvironment, { maxItems: MAX_ITEMS })),
    contextFields: Type.Optional(Type.Array(ImportContextField, { maxItems: MAX_ITEMS })),
    featureTags: Type.Optional(
      Type.Array(Type.Object({ featureName: UrlFriendly('The feature'), tagType: Type.String({ maxLength: 50 }), tagValue: Type.String({ maxLength: 50 }) }, open), { maxItems: MAX_ITEMS })
    ),
    segments: Type.Optional(Type.Array(ImportSegment, { maxItems: MAX_ITEMS })),
    tagTypes: Type.Optional(Type.Array(ImportTagType, { maxItems: MAX_ITEMS })),
    dependencies: Type.Optional(Type.Array(ImportDependencies, { maxItems: MAX_ITEMS })),
  },
  { additionalProperties: true, description: 'An export (this server\'s or Unleash\'s); members this server does not keep (links, createdAt, …) are ignored' }
)
export type ImportData = Static<typeof ImportData>

export const ImportBody = Type.Object(
  {
    project: UrlFriendly('The project to import into'),
    environment: UrlFriendly('The environment whose strategies, variants and state are set'),
    data: ImportData,
  },
  { additionalProperties: false }
)
export type ImportBody = Static<typeof ImportBody>

const ValidationItem = Type.Object({ message: Type.String(), affectedItems: Type.Array(Type.String()) })
export type ValidationItem = Static<typeof ValidationItem>

export const ImportValidation = Type.Object({
  errors: Type.Array(ValidationItem, { description: 'What would make the import refused' }),
  warnings: Type.Array(ValidationItem, { description: 'What the import would do that may surprise' }),
  permissions: Type.Array(ValidationItem, { description: 'What the token lacks to import this' }),
})
export type ImportValidation = Static<typeof ImportValidation>
