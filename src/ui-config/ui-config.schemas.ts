import { Type } from '@sinclair/typebox'
import { StringEnum } from '../http/schemas.js'

/** A flag Unleash answers as a variant (`{name, enabled, feature_enabled?}`). */
const VariantFlag = Type.Object({ name: Type.String(), enabled: Type.Boolean(), feature_enabled: Type.Optional(Type.Boolean()) })

const Limit = Type.Integer({ minimum: 0 })

/** Every key of Unleash 8.2's resourceLimitsSchema (readOnlyUsers is optional there, and left out). */
export const ResourceLimits = Type.Object(
  {
    segmentValues: Limit,
    strategySegments: Limit,
    actionSetActions: Limit,
    actionSetsPerProject: Limit,
    actionSetFilters: Limit,
    actionSetFilterValues: Limit,
    signalEndpoints: Limit,
    signalTokensPerEndpoint: Limit,
    featureEnvironmentStrategies: Limit,
    constraintValues: Limit,
    constraints: Limit,
    environments: Limit,
    projects: Limit,
    apiTokens: Limit,
    segments: Limit,
    featureFlags: Limit,
    releaseTemplates: Limit,
  },
  { description: "This server's limits: the MAX_* settings where it has one; 2147483647 where it has none; 0 for what it does not serve (actions, signals, release templates)" }
)

/** Unleash's uiConfigSchema, as this server fills it. */
export const UiConfig = Type.Object(
  {
    version: Type.String({ description: "This server's version" }),
    environment: Type.String({ description: 'Open Source' }),
    unleashUrl: Type.String({ description: 'UNLEASH_URL, else the request\'s own origin' }),
    baseUriPath: Type.String({ description: 'Always empty: the server is served at the root' }),
    authenticationType: StringEnum(['open-source', 'demo', 'enterprise', 'hosted', 'custom', 'none'] as const, { description: 'open-source: password login (and single sign-on when on)' }),
    emailEnabled: Type.Boolean({ description: 'Always false: no mail is sent; Admins hand on reset and invite links' }),
    disablePasswordAuth: Type.Boolean({ description: 'Whether an Admin turned password login off (POST /api/admin/auth/simple/settings)' }),
    maintenanceMode: Type.Boolean({ description: 'Whether maintenance mode is on (every change refused)' }),
    frontendApiOrigins: Type.Array(Type.String(), { description: 'The origins whose pages may call the frontend API and OFREP' }),
    versionInfo: Type.Object({
      current: Type.Object({ oss: Type.String(), enterprise: Type.String({ description: 'Always empty' }) }),
      latest: Type.Object({}, { description: 'Always empty: this server asks no one for newer versions' }),
      isLatest: Type.Boolean(),
      instanceId: Type.String(),
    }),
    prometheusAPIAvailable: Type.Boolean(),
    impactMetrics: StringEnum(['disabled', 'unconfigured', 'external', 'internal', 'full'] as const),
    resourceLimits: ResourceLimits,
    flags: Type.Record(Type.String(), Type.Union([Type.Boolean(), VariantFlag]), {
      description: 'Every flag Unleash 8.2 answers, false but those that describe this server: enableLegacyVariants (environment variants), regexConstraintOperator, semverGteConstraintOperators, deltaApi',
    }),
    oidcConfiguredThroughEnv: Type.Boolean({ description: 'Whether OIDC_* variables fix some single sign-on settings' }),
    samlConfiguredThroughEnv: Type.Boolean(),
    maxSessionsCount: Type.Number(),
    unleashContext: Type.Object({ userId: Type.Optional(Type.Integer()) }, { description: 'The signed-in person\'s id' }),
    storiesPageEnabled: Type.Boolean(),
  },
  { additionalProperties: false }
)

export const SetCors = Type.Object(
  {
    frontendApiOrigins: Type.Array(Type.String({ minLength: 1, maxLength: 500 }), {
      maxItems: 100,
      description: '* (any), or origins exactly as browsers send them (https://app.example.com); [] allows none',
    }),
  },
  { additionalProperties: false }
)

export const UiError = Type.Object(
  {
    errorMessage: Type.String({ maxLength: 10_000 }),
    errorStack: Type.Optional(Type.String({ maxLength: 100_000 })),
  },
  { additionalProperties: false }
)
