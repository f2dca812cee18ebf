import { Type } from '@sinclair/typebox'
import { Nullable } from '../http/schemas.js'

const Text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) })
const Instant = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$',
  description: 'RFC 3339 date-time',
})
const Count = Type.Integer({ minimum: 0, maximum: 1_000_000_000_000 })

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
    variants: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Count, { maxProperties: 100 })),
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
        toggles: Type.Record(Type.String({ maxLength: 100 }), ToggleCounts, {
          maxProperties: 1000,
          description: 'Evaluations per feature since the last report; unknown features are ignored',
        }),
      },
      { additionalProperties: false }
    ),
    impactMetrics: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 100, description: 'Accepted and ignored' })),
    ...SdkFacts,
  },
  { additionalProperties: false }
)
