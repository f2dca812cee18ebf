import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { Nullable } from '../http/schemas.js'

const Text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) })
const Instant = Type.String({
  format: 'date-time',
  maxLength: 64,
  description: 'RFC 3339 date-time (a real one: no month 13, no hour 25)',
})
const Count = Type.Integer({ minimum: 0, maximum: 1_000_000_000_000 })

/**
 * An object whose member names are names (1–100 characters, as the index that stores them
 * can hold) mapping to `value`. The limit sits in propertyNames: TypeBox's Record would drop
 * a length limit given on its key.
 */
const NamedCounts = <T extends TSchema>(value: T, maxProperties: number, description: string) =>
  Type.Record(Type.String(), value, {
    maxProperties,
    propertyNames: { minLength: 1, maxLength: 100 },
    description,
  })

/** What every Unleash SDK sends about itself besides its name and instance. */
const SdkFacts = {
  environment: Type.Optional(Text(100, 'Ignored: the client token decides the environment')),
  connectionId: Type.Optional(Text(255)),
  sdkVersion: Type.Optional(Text(255)),
  platformName: Type.Optional(Text(255)),
  platformVersion: Type.Optional(Text(255)),
  yggdrasilVersion: Type.Optional(Nullable(Text(255))),
  specVersion: Type.Optional(Text(50)),
  sdkFlavor: Type.Optional(Text(255)),
  sdkFlavorVersion: Type.Optional(Text(255)),
}

export const ClientRegistration = Type.Object(
  {
    appName: Text(255),
    instanceId: Text(255),
    strategies: Type.Array(Text(255), { maxItems: 100 }),
    started: Instant,
    interval: Type.Integer({ minimum: 0, maximum: 86_400_000, description: 'Metrics interval in milliseconds' }),
    ...SdkFacts,
  },
  { additionalProperties: false }
)

export const ToggleCounts = Type.Object(
  {
    yes: Count,
    no: Count,
    variants: Type.Optional(
      NamedCounts(Count, 100, 'Evaluations per variant name (at most 100 names of at most 100 characters)')
    ),
  },
  { additionalProperties: false }
)

export const ClientMetrics = Type.Object(
  {
    appName: Text(255),
    instanceId: Text(255),
    bucket: Type.Object(
      {
        start: Instant,
        stop: Instant,
        toggles: NamedCounts(
          ToggleCounts,
          1000,
          'Evaluations per feature since the last report (at most 1000 names of at most 100 characters); unknown features are ignored'
        ),
      },
      { additionalProperties: false }
    ),
    impactMetrics: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 100, description: 'Accepted and ignored' })),
    ...SdkFacts,
  },
  { additionalProperties: false }
)

/**
 * POST /api/client/metrics/bulk: what Unleash Edge (and a relay) sends for the SDKs behind it,
 * as Unleash's bulkMetricsSchema. Members Unleash may add are accepted and ignored.
 */
export const BulkRegistration = Type.Object({
  appName: Text(255),
  instanceId: Text(255),
  environment: Text(100, 'Registered with the token\'s environment, whatever this says'),
  interval: Type.Optional(Type.Number({ minimum: 0, maximum: 86_400_000 })),
  started: Type.Optional(Type.Union([Instant, Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description: 'Milliseconds since 1970' })])),
  strategies: Type.Optional(Type.Array(Text(255), { maxItems: 100 })),
  projects: Type.Optional(Type.Array(Text(100), { maxItems: 1000 })),
  sdkVersion: Type.Optional(Text(255)),
  sdkType: Type.Optional(Nullable(Type.Union([Type.Literal('frontend'), Type.Literal('backend')], { description: 'frontend: a browser SDK, not stored (as its registration); backend or none: an SDK instance' }))),
  sdkFlavor: Type.Optional(Text(256)),
  sdkFlavorVersion: Type.Optional(Text(32)),
  connectVia: Type.Optional(Type.Array(Type.Object({ appName: Text(255), instanceId: Text(255) }), { maxItems: 100 })),
})

export const BulkMetric = Type.Object({
  featureName: Type.String({ minLength: 1, maxLength: 100 }),
  appName: Text(255),
  environment: Text(100, 'Only metrics of the token\'s environment are counted (as Unleash)'),
  timestamp: Type.Optional(Instant),
  yes: Type.Optional(Count),
  no: Type.Optional(Count),
  variants: Type.Optional(NamedCounts(Count, 100, 'Evaluations per variant name (at most 100 names of at most 100 characters)')),
})

export const BulkMetrics = Type.Object({
  applications: Type.Array(BulkRegistration, { maxItems: 1000 }),
  metrics: Type.Array(BulkMetric, { maxItems: 10_000 }),
  impactMetrics: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 100, description: 'Accepted and ignored' })),
  seenTokens: Type.Optional(Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000, description: 'Accepted and ignored' })),
})
export type BulkMetrics = Static<typeof BulkMetrics>
export type ClientRegistration = Static<typeof ClientRegistration>
export type ClientMetrics = Static<typeof ClientMetrics>
