import { Type } from '@sinclair/typebox'
import { Nullable, StringEnum, Timestamp } from '../http/schemas.js'

export const Maintenance = Type.Object({ enabled: Type.Boolean({ description: 'Whether maintenance mode is on' }) }, { additionalProperties: false })

export const ToggleMaintenance = Type.Object(
  { enabled: Type.Boolean({ description: 'true: refuse every change until it is turned off; false: back to normal' }) },
  { additionalProperties: false }
)

const Count = Type.Integer({ minimum: 0 })
const Ranges = <K extends string>(keys: readonly K[]) => Type.Object(Object.fromEntries(keys.map((k) => [k, Count])) as Record<K, typeof Count>)

/** Unleash's instanceAdminStatsSchema, with what this server knows (zeros for what it has not: SAML, release plans, edge). */
export const InstanceStatistics = Type.Object({
  instanceId: Type.String({ description: 'Made once, when the database was first migrated' }),
  timestamp: Nullable(Timestamp),
  versionOSS: Type.String({ description: "This server's version" }),
  versionEnterprise: Type.String({ description: 'Always empty' }),
  users: Count,
  previousDayMetricsBucketsCount: Type.Object({ enabledCount: Count, variantCount: Count }, { description: 'SDK usage rows of the previous day (UTC): per feature, application and hour; those with variants' }),
  activeUsers: Ranges(['last7', 'last30', 'last60', 'last90'] as const),
  licensedUsers: Type.Integer({ minimum: 0, description: 'Users seen in the last 30 days' }),
  productionChanges: Ranges(['last30', 'last60', 'last90'] as const),
  featureToggles: Count,
  projects: Count,
  contextFields: Count,
  roles: Count,
  groups: Count,
  environments: Count,
  segments: Count,
  strategies: Count,
  SAMLenabled: Type.Boolean(),
  OIDCenabled: Type.Boolean(),
  clientApps: Type.Array(Type.Object({ range: StringEnum(['allTime', '30d', '7d'] as const), count: Count })),
  featureExports: Count,
  featureImports: Count,
  apiTokens: Ranges(['admin', 'client', 'frontend'] as const),
  maxEnvironmentStrategies: Count,
  maxConstraints: Count,
  maxConstraintValues: Count,
  releaseTemplates: Count,
  releasePlans: Count,
  edgeInstanceUsage: Type.Record(Type.String(), Type.Number({ minimum: 0 })),
  readOnlyUsers: Count,
  sum: Type.String({ description: 'SHA-256 (hex) of instanceId, users, featureToggles, projects, roles, groups, environments and segments, as Unleash computes it' }),
})

export const TelemetrySettings = Type.Object({
  versionInfoCollectionEnabled: Type.Boolean({ description: 'Always false: this server asks no one for newer versions' }),
  featureInfoCollectionEnabled: Type.Boolean({ description: 'Always false: this server sends no usage anywhere' }),
})
