import { Type } from '@sinclair/typebox'
import { Nullable, QueryText, Timestamp } from '../http/schemas.js'

export const FeatureNameParams = Type.Object({ name: QueryText({ minLength: 1, maxLength: 255, description: 'Feature name (one that does not exist has no usage)' }) })
export const AppNameParams = Type.Object({ appName: QueryText({ minLength: 1, maxLength: 255, description: 'Application name, as SDKs report it' }) })
export const AppEnvironmentParams = Type.Object({
  appName: QueryText({ minLength: 1, maxLength: 255, description: 'Application name' }),
  environment: QueryText({ minLength: 1, maxLength: 100, description: 'Environment name' }),
})

export const RawMetricsQuery = Type.Object({
  hoursBack: Type.Optional(QueryText({ maxLength: 20, description: 'Hours of the window, 1 to USAGE_RETENTION_DAYS × 24 (720 by default); anything else is 24, as Unleash reads it' })),
})

const UsageRow = Type.Object({
  featureName: Type.Optional(Type.String()),
  appName: Type.Optional(Type.String()),
  environment: Type.String(),
  timestamp: Timestamp,
  yes: Type.Integer({ minimum: 0 }),
  no: Type.Integer({ minimum: 0 }),
  variants: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 0 }))),
})

export const RawMetrics = Type.Object({
  version: Type.Literal(1),
  maturity: Type.Literal('stable'),
  data: Type.Array(UsageRow, { description: 'One row per hour of the window for every environment and application that reported, zero-filled, oldest first' }),
})

export const UsageSummary = Type.Object({
  version: Type.Literal(1),
  maturity: Type.Literal('stable'),
  featureName: Type.String(),
  lastHourUsage: Type.Array(UsageRow, { description: 'Per environment, the evaluations of the last hour' }),
  seenApplications: Type.Array(Type.String(), { description: 'Applications that reported it in the last 24 hours, by name' }),
})

export const ApplicationsQuery = Type.Object({
  query: Type.Optional(QueryText({ maxLength: 2000, description: 'Comma-separated; names that contain any of them, in any case' })),
  offset: Type.Optional(QueryText({ maxLength: 20, description: 'Applications skipped (default 0)' })),
  limit: Type.Optional(QueryText({ maxLength: 20, description: '1 to 1000; anything else is 1000' })),
  sortBy: Type.Optional(QueryText({ maxLength: 100, description: 'Always by name' })),
  sortOrder: Type.Optional(QueryText({ maxLength: 10, description: 'asc (default) or desc' })),
})

const Usage = Type.Object({ project: Type.String({ description: 'A project, or * for tokens of every project' }), environments: Type.Array(Type.String()) })

export const ListedApplication = Type.Object({
  appName: Type.String(),
  strategies: Type.Array(Type.String(), { description: 'Strategies its SDKs say they use, and those people named' }),
  url: Type.Optional(Type.String()),
  color: Type.Optional(Type.String()),
  icon: Type.Optional(Type.String()),
  usage: Type.Array(Usage, { description: 'The projects and environments of the tokens it reported with' }),
})

export const Applications = Type.Object({ total: Type.Integer({ minimum: 0 }), applications: Type.Array(ListedApplication) })

export const NewApplication = Type.Object(
  {
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    url: Type.Optional(Type.String({ maxLength: 1000 })),
    color: Type.Optional(Type.String({ maxLength: 100 })),
    icon: Type.Optional(Type.String({ maxLength: 100 })),
    strategies: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100, uniqueItems: true })),
  },
  { additionalProperties: false }
)

const Instance = Type.Object({
  appName: Type.String(),
  instanceId: Type.String(),
  environment: Type.String(),
  sdkVersion: Nullable(Type.String()),
  clientIp: Type.Null({ description: 'Not kept here' }),
  lastSeen: Timestamp,
  createdAt: Nullable(Timestamp),
})

export const ApplicationDetails = Type.Object({
  appName: Type.String(),
  createdAt: Nullable(Timestamp),
  description: Nullable(Type.String()),
  url: Nullable(Type.String()),
  color: Nullable(Type.String()),
  icon: Nullable(Type.String()),
  strategies: Type.Array(Type.Object({ name: Type.String(), description: Type.Optional(Nullable(Type.String())), notFound: Type.Optional(Type.Literal(true)) })),
  instances: Type.Array(Instance),
  seenToggles: Type.Array(Type.Object({ name: Type.String(), project: Type.Optional(Type.String()), type: Type.Optional(Type.String()), description: Type.Optional(Nullable(Type.String())), stale: Type.Optional(Type.Boolean()), notFound: Type.Optional(Type.Literal(true)) }), { description: 'Flags it reported in the last 24 hours' }),
  links: Type.Object({ self: Type.String() }),
})

export const ApplicationOverview = Type.Object({
  projects: Type.Array(Type.String()),
  featureCount: Type.Integer({ minimum: 0 }),
  environments: Type.Array(Type.Object({
    name: Type.String(),
    instanceCount: Type.Integer({ minimum: 0 }),
    sdks: Type.Array(Type.String()),
    frontendSdks: Type.Array(Type.String()),
    backendSdks: Type.Array(Type.String()),
    lastSeen: Nullable(Timestamp),
    issues: Type.Object({ missingFeatures: Type.Array(Type.String()), outdatedSdks: Type.Array(Type.String()) }),
  })),
  issues: Type.Object({ missingStrategies: Type.Array(Type.String()) }),
})

export const EnvironmentInstances = Type.Object({
  instances: Type.Array(Type.Object({ instanceId: Type.String(), sdkVersion: Nullable(Type.String()), clientIp: Type.Null(), lastSeen: Timestamp })),
})

export const OutdatedSdks = Type.Object({
  sdks: Type.Array(Type.Object({ sdkVersion: Type.String(), applications: Type.Array(Type.String()) })),
})

export const UnknownFlags = Type.Object({
  unknownFlags: Type.Array(Type.Object({
    name: Type.String(),
    lastSeenAt: Timestamp,
    lastEventAt: Nullable(Timestamp),
    reports: Type.Array(Type.Object({
      appName: Type.String(),
      environments: Type.Array(Type.Object({ environment: Type.String(), seenAt: Timestamp })),
    })),
  })),
})
