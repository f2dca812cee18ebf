import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { Nullable, UrlFriendly } from '../http/schemas.js'
import { Variant } from '../variants/variants.schemas.js'

/** Most features one import may carry; the other lists are bounded by the body limit (and MAX_ITEMS). */
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
        default: false,
        description:
          "false (default): segments are {id, name} exactly as Unleash exports them, which Unleash's import requires (it refuses other members); true: they also carry description, project and constraints, so that an import here creates the segments the target lacks",
      })
    ),
  },
  { additionalProperties: false }
)
export type ExportQuery = Static<typeof ExportQuery>

// What an export holds: Unleash 8.2's features-batch shapes, plus strategies' sortOrder (and,
// when asked for, segments' constraints).

const ExportedFeature = Type.Object({
  name: Type.String(),
  description: Nullable(Type.String()),
  type: Type.String(),
  project: Type.String(),
  stale: Type.Boolean(),
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
  constraints: Type.Optional(Type.Array(Type.Unknown(), { description: 'Only with segmentConstraints: true (Unleash exports only id and name), so that an import here can create the segment' })),
})

const ExportedLinks = Type.Object({
  feature: Type.String(),
  links: Type.Array(Type.Object({ id: Type.String(), url: Type.String(), title: Nullable(Type.String()) }), { description: 'In the order they were added' }),
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
  links: Type.Array(ExportedLinks, { description: 'The links of the features that have any (as Unleash: always present, [] when none has)' }),
})
export type ExportResult = Static<typeof ExportResult>

// What an import accepts: an export of this server or of Unleash. Members this server does not
// keep (createdAt, lastSeenAt, …) are accepted and ignored. This schema says only the
// shape the import reads (names, types, list sizes bounded by the body limit); every element
// is then checked by the schema and rules of the single route that writes it, so that an
// import refuses what that route refuses, with the same sentence (import-elements.ts).

const open = { additionalProperties: true } as const
const List = <T extends TSchema>(items: T, description?: string) => Type.Array(items, { maxItems: MAX_ITEMS, ...(description !== undefined && { description }) })
const Text = Type.String()
const MaybeText = Type.Optional(Nullable(Type.String()))

const ImportConstraint = Type.Object(
  {
    contextName: Text,
    operator: Text,
    values: Type.Optional(List(Text)),
    value: Type.Optional(Text),
    inverted: Type.Optional(Type.Boolean()),
    caseInsensitive: Type.Optional(Type.Boolean()),
  },
  open
)
export type ImportConstraint = Static<typeof ImportConstraint>

const ImportFeature = Type.Object(
  {
    name: UrlFriendly('The feature'),
    description: MaybeText,
    type: Type.Optional(Text),
    project: Type.Optional(Type.String({ description: 'The project it was exported from (ignored: it is imported into the request\'s project)' })),
    impressionData: Type.Optional(Type.Boolean()),
    stale: Type.Optional(Type.Boolean({ description: 'Marked stale, as PATCH /stale marks it' })),
    archived: Type.Optional(Type.Boolean({ description: 'Ignored' })),
  },
  open
)

const ImportStrategy = Type.Object(
  {
    name: UrlFriendly('The strategy definition'),
    featureName: UrlFriendly('The feature it belongs to; must be one of features'),
    id: Type.Optional(Type.String({ description: 'Ignored: the strategy gets an id here' })),
    title: MaybeText,
    parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    constraints: Type.Optional(List(ImportConstraint)),
    variants: Type.Optional(List(Type.Unknown())),
    sortOrder: Type.Optional(Type.Integer()),
    disabled: Type.Optional(Nullable(Type.Boolean())),
    segments: Type.Optional(List(Type.Integer(), 'Ids of segments listed in segments')),
  },
  open
)
export type ImportStrategy = Static<typeof ImportStrategy>

const ImportFeatureEnvironment = Type.Object(
  {
    featureName: UrlFriendly('The feature; must be one of features, listed once'),
    enabled: Type.Boolean(),
    variants: Type.Optional(List(Type.Unknown())),
  },
  open
)

const ImportContextField = Type.Object(
  {
    name: UrlFriendly('The context field'),
    description: MaybeText,
    stickiness: Type.Optional(Type.Boolean()),
    sortOrder: Type.Optional(Type.Integer()),
    legalValues: Type.Optional(List(Type.Object({ value: Text, description: MaybeText }, open))),
  },
  open
)

const ImportSegment = Type.Object(
  {
    id: Type.Integer({ description: 'The id strategies of this data use for it' }),
    name: Text,
    description: MaybeText,
    project: MaybeText,
    constraints: Type.Optional(List(ImportConstraint, 'When given, a segment of this name that does not exist is created with them')),
  },
  open
)

const ImportTagType = Type.Object({ name: Text, description: MaybeText, icon: MaybeText, color: MaybeText }, open)

const ImportDependencies = Type.Object(
  {
    feature: UrlFriendly('The child feature, listed once'),
    dependencies: List(Type.Object({ feature: UrlFriendly('The parent feature'), enabled: Type.Optional(Type.Boolean()), variants: Type.Optional(List(Text)) }, open)),
  },
  open
)

const ImportLinks = Type.Object(
  {
    feature: UrlFriendly('The feature, listed once'),
    links: List(Type.Object({ url: Text, title: MaybeText }, open)),
  },
  open
)

export const ImportData = Type.Object(
  {
    features: Type.Array(ImportFeature, { maxItems: MAX_IMPORT_FEATURES }),
    featureStrategies: List(ImportStrategy),
    featureEnvironments: Type.Optional(List(ImportFeatureEnvironment)),
    contextFields: Type.Optional(List(ImportContextField)),
    featureTags: Type.Optional(List(Type.Object({ featureName: UrlFriendly('The feature'), tagType: Text, tagValue: Text }, open))),
    segments: Type.Optional(List(ImportSegment)),
    tagTypes: Type.Optional(List(ImportTagType)),
    dependencies: Type.Optional(List(ImportDependencies)),
    links: Type.Optional(List(ImportLinks, 'When given, the links of each imported feature become the listed ones (none for a feature not listed)')),
  },
  {
    additionalProperties: true,
    description:
      "An export (this server's or Unleash's); members this server does not keep (createdAt, …) are ignored. Each element is checked as the single route that writes it checks its body (features as POST …/features, featureStrategies as POST …/strategies, featureEnvironments' variants as PUT …/variants, contextFields as POST /api/admin/context, segments as POST /api/admin/segments, tagTypes as POST /api/admin/tag-types, featureTags as POST /api/admin/features/{name}/tags, dependencies as POST …/dependencies, links as POST …/link): the same limits, refused with the same sentence at the element's place.",
  }
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
