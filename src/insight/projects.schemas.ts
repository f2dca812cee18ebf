import { Type } from '@sinclair/typebox'
import { Nullable, Timestamp, UrlFriendly } from '../http/schemas.js'

export const BatchStale = Type.Object(
  {
    features: Type.Array(UrlFriendly('Feature name'), { minItems: 1, maxItems: 1000, uniqueItems: true }),
    stale: Type.Boolean({ description: 'true: mark them stale; false: no longer stale' }),
  },
  { additionalProperties: false }
)

const Stats = Type.Object({
  avgTimeToProdCurrentWindow: Type.Number({ description: 'Average whole days from creation to the first switch-on in production, of release flags' }),
  createdCurrentWindow: Type.Number({ description: 'Flags created in the last 30 days (not archived since)' }),
  createdPastWindow: Type.Number({ description: 'The same, the 30 days before' }),
  archivedCurrentWindow: Type.Number(),
  archivedPastWindow: Type.Number(),
  projectActivityCurrentWindow: Type.Number({ description: 'Events of the project in the last 30 days' }),
  projectActivityPastWindow: Type.Number(),
  projectMembersAddedCurrentWindow: Type.Number(),
})

const Counts = {
  activeCount: Type.Number({ description: 'Flags not marked stale (potentially stale ones too, as Unleash counts them)' }),
  potentiallyStaleCount: Type.Number({ description: 'Flags not marked stale that outlived their type\'s expected lifetime' }),
  staleCount: Type.Number({ description: 'Flags marked stale' }),
}

const HealthEnvironment = Type.Object({
  name: Type.String(),
  enabled: Type.Boolean(),
  type: Type.String(),
  sortOrder: Type.Number(),
  variantCount: Type.Number(),
  lastSeenAt: Nullable(Timestamp),
  hasStrategies: Type.Boolean(),
  hasEnabledStrategies: Type.Boolean(),
})

export const HealthReport = Type.Object({
  version: Type.Literal(1),
  name: Type.String(),
  description: Nullable(Type.String()),
  mode: Type.Literal('open'),
  featureLimit: Type.Null(),
  featureNaming: Type.Object({ pattern: Type.Null(), example: Type.Null(), description: Type.Null() }),
  defaultStickiness: Type.String(),
  health: Type.Integer({ description: 'Percent of flags neither stale nor potentially stale (rounded), computed when asked' }),
  technicalDebt: Type.Number({ minimum: 0, maximum: 100, description: '100 less health' }),
  favorite: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  stats: Stats,
  members: Type.Integer({ minimum: 0 }),
  environments: Type.Array(Type.Object({ environment: Type.String() })),
  features: Type.Array(Type.Object({
    name: Type.String(),
    type: Type.String(),
    description: Nullable(Type.String()),
    favorite: Type.Boolean(),
    createdAt: Timestamp,
    stale: Type.Boolean(),
    impressionData: Type.Boolean(),
    environments: Type.Array(HealthEnvironment),
    tags: Type.Optional(Type.Array(Type.Object({ value: Type.String(), type: Type.String() }))),
  }), { description: 'Its flags that are not archived, by name' }),
  ...Counts,
})

export const ProjectDora = Type.Object({
  features: Type.Array(Type.Object({ name: Type.String(), timeToProduction: Type.Number({ description: 'Whole days' }) })),
  projectAverage: Type.Number(),
})

const Rating = Type.Object({ rating: Type.Integer({ minimum: 0, maximum: 100 }), ...Counts })

export const ProjectInsights = Type.Object({
  stats: Stats,
  featureTypeCounts: Type.Array(Type.Object({ type: Type.String(), count: Type.Number() })),
  technicalDebt: Rating,
  leadTime: ProjectDora,
  members: Type.Object({ currentMembers: Type.Number(), change: Type.Number({ description: 'People given a role in the last 30 days' }) }),
  health: Rating,
})
