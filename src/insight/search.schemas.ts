import { Type } from '@sinclair/typebox'
import { Nullable, QueryText, Timestamp } from '../http/schemas.js'
import { STAGES } from '../vocabulary/stages.js'

/** Unleash's patterns, per parameter: which operators each filter accepts. */
const VALUE_PATTERN = '^(IS|IS_NOT|IS_ANY_OF|IS_NONE_OF):(.*?)(,([a-zA-Z0-9_]+))*$'
const LIST_PATTERN = '^(INCLUDE|DO_NOT_INCLUDE|INCLUDE_ALL_OF|INCLUDE_ANY_OF|EXCLUDE_IF_ANY_OF|EXCLUDE_ALL):(.*?)(,([a-zA-Z0-9_]+))*$'
const TAG_PATTERN = '^(INCLUDE|DO_NOT_INCLUDE|INCLUDE_ALL_OF|INCLUDE_ANY_OF|EXCLUDE_IF_ANY_OF|EXCLUDE_ALL):([^:,]+:.+?)(,\\s*[^:,]+:.+?)*$'
const DATE_PATTERN = '^(IS_BEFORE|IS_ON_OR_AFTER):\\d{4}-\\d{2}-\\d{2}$'

const Filter = (pattern: string, description: string) => Type.Optional(Type.String({ pattern, maxLength: 2000, description }))

export const SearchQuery = Type.Object({
  query: Type.Optional(QueryText({ maxLength: 2000, description: 'Comma-separated; a feature matches when its name or description contains any of them, in any case' })),
  project: Filter(VALUE_PATTERN, 'IS, IS_NOT, IS_ANY_OF or IS_NONE_OF project ids, e.g. IS:default'),
  type: Filter(VALUE_PATTERN, 'Feature types, e.g. IS_ANY_OF:release,experiment'),
  createdBy: Filter(VALUE_PATTERN, 'User ids; -42: created with an API token'),
  state: Filter(VALUE_PATTERN, 'active (not stale), stale, potentially-stale, e.g. IS:stale'),
  lifecycle: Filter(VALUE_PATTERN, `Current lifecycle stages (${STAGES.join(', ')}), e.g. IS_NOT:completed`),
  tag: Filter(TAG_PATTERN, 'INCLUDE, DO_NOT_INCLUDE, INCLUDE_ALL_OF, INCLUDE_ANY_OF, EXCLUDE_IF_ANY_OF or EXCLUDE_ALL type:value tags, e.g. INCLUDE:simple:beta'),
  segment: Filter(LIST_PATTERN, 'Segment names, with the operators of tag'),
  status: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 100, description: 'environment:enabled or environment:disabled; several are OR\'ed (other values are ignored)' })),
  createdAt: Filter(DATE_PATTERN, 'IS_BEFORE or IS_ON_OR_AFTER a day (UTC), e.g. IS_ON_OR_AFTER:2025-01-28'),
  lastSeenAt: Filter(DATE_PATTERN, 'When SDKs last evaluated it in an environment, as createdAt'),
  archived: Type.Optional(Type.String({ pattern: '^IS:(true|false)$', description: 'IS:true searches archived features instead' })),
  favorite: Type.Optional(Type.String({ pattern: '^(IS|IS_ANY_OF):(true|false)(,(true|false))*$', description: 'Favourites are not kept here: IS:true finds nothing' })),
  favoritesFirst: Type.Optional(QueryText({ maxLength: 10, description: 'Accepted; there are no favourites to put first' })),
  offset: Type.Optional(QueryText({ maxLength: 20, description: 'Features skipped (default 0)' })),
  limit: Type.Optional(QueryText({ maxLength: 20, description: 'Features answered, 1 to 100; anything else is the default, 50' })),
  sortBy: Type.Optional(QueryText({ maxLength: 200, description: 'createdAt (default), name, type, stale, project, lastSeenAt (never seen last), environment:<name> (by enabled there, features without it last)' })),
  sortOrder: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'Default asc; ties go by createdAt ascending, then name' })),
})

const SearchEnvironment = Type.Object({
  name: Type.String(),
  enabled: Type.Boolean(),
  type: Type.String(),
  sortOrder: Type.Number({ description: 'As Unleash orders its default environments (development 2, production 3), others 9999' }),
  variantCount: Type.Number(),
  lastSeenAt: Nullable(Timestamp),
  hasStrategies: Type.Boolean(),
  hasEnabledStrategies: Type.Boolean(),
  yes: Type.Integer({ minimum: 0, description: 'Evaluations that answered yes in the last hour' }),
  no: Type.Integer({ minimum: 0, description: 'Evaluations that answered no in the last hour' }),
  changeRequestIds: Type.Array(Type.Number()),
})

export const SearchedFeature = Type.Object({
  name: Type.String(),
  type: Type.String(),
  description: Nullable(Type.String()),
  dependencyType: Nullable(Type.Union([Type.Literal('parent'), Type.Literal('child')])),
  project: Type.String(),
  stale: Type.Boolean({ description: 'Marked stale by a person' }),
  favorite: Type.Boolean(),
  impressionData: Type.Boolean(),
  createdAt: Timestamp,
  archivedAt: Nullable(Timestamp),
  environments: Type.Array(SearchEnvironment, { description: 'Its environments the token covers (only those passing status and lastSeenAt, as Unleash)' }),
  segments: Type.Array(Type.String()),
  tags: Type.Optional(Type.Array(Type.Object({ value: Type.String(), type: Type.String(), color: Nullable(Type.String()) }))),
  lifecycle: Type.Optional(Type.Object({
    stage: Type.Union(STAGES.map((s) => Type.Literal(s))),
    status: Type.Optional(Type.String()),
    enteredStageAt: Timestamp,
  })),
  createdBy: Type.Object({ id: Type.Integer(), name: Type.String(), imageUrl: Type.String() }),
})

export const SearchResult = Type.Object({
  features: Type.Array(SearchedFeature),
  total: Type.Integer({ minimum: 0 }),
})
