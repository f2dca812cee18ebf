import type { InstanceSettings } from '../instance/settings.service.js'
import { SERVER_VERSION } from '../instance/version.js'

/** The flags of Unleash 8.2's ui-config that describe this server: on. */
const ON = new Set(['enableLegacyVariants', 'regexConstraintOperator', 'semverGteConstraintOperators', 'deltaApi'])

/** Every boolean flag Unleash 8.2 answers (its admin UI reads many of them unguarded). */
const BOOLEAN_FLAGS = [
  'anonymiseEventLog', 'enableLicense', 'responseTimeWithAppNameKillSwitch', 'maintenanceMode', 'strictSchemaValidation',
  'personalAccessTokensKillSwitch', 'migrationLock', 'demo', 'onboardingIntroTour', 'onboardingIntroTourAdvancedTopics',
  'interactiveDemoKillSwitch', 'filterInvalidClientMetrics', 'disableMetrics', 'celebrateUnleash', 'feedbackPosting',
  'encryptEmails', 'extendedUsageMetrics', 'outdatedSdksBanner', 'usePromiseTokenCache', 'disableUpdateMaxRevisionId',
  'disablePublishUnannouncedEvents', 'queryMissingTokens', 'responseTimeMetricsFix', 'disableShowContextFieldSelectionValues',
  'manyStrategiesPagination', 'enableLegacyVariants', 'extendedMetrics', 'removeUnsafeInlineStyleSrc', 'projectRoleAssignment',
  'webhookDomainLogging', 'productivityReportEmail', 'productivityReportUnsubscribers', 'tokenExpiryNotifications',
  'showUserDeviceCount', 'deltaApi', 'uniqueSdkTracking', 'consumptionModel', 'impactViews', 'disableImpactMetrics',
  'plausibleMetrics', 'flightRecorderSdk', 'flightRecorderAdminEvents', 'regexConstraintOperator',
  'semverGteConstraintOperators', 'userTokenWithClientApiLoggingKillSwitch', 'multiMetricChart', 'logRocketEnabled',
  'hubspotChatEnabled', 'newModalDesign', 'newProfileDropdown', 'floatingOnboardingChecklist', 'serviceNowIntegration',
  'topLabelInputs', 'recordSdkFlavorMetrics', 'secureTokenStorage', 'secureAccountTokenStorage', 'searchDocsWidget',
  'usersTabsUI', 'semverBuildMetadata', 'slackIntegrationProjectLevel', 'simplerStrategySetup', 'flagStatusTooltips',
  'totalUsageMetrics',
]

/** The flags Unleash 8.2 answers as variants: all off. */
const VARIANT_FLAGS = ['messageBanner', 'feedbackComments', 'flightRecorderFrontend', 'learningLab']

const FLAGS: Record<string, boolean | { name: string; enabled: boolean; feature_enabled: boolean }> = Object.fromEntries([
  ...BOOLEAN_FLAGS.map((name) => [name, ON.has(name)]),
  ...VARIANT_FLAGS.map((name) => [name, { name: 'disabled', enabled: false, feature_enabled: false }]),
])

/** What a limit this server does not have is answered as: PostgreSQL's largest integer. */
export const NO_LIMIT = 2_147_483_647

export interface Limits {
  maxSegmentValues: number
  strategyLimits: { maxSegments: number; maxStrategies: number; maxConstraintValues: number; maxConstraints: number }
}

/** Unleash's resourceLimits with this server's limits (clients read every key unguarded). */
export const resourceLimits = (limits: Limits) => ({
  segmentValues: limits.maxSegmentValues,
  strategySegments: limits.strategyLimits.maxSegments,
  actionSetActions: 0,
  actionSetsPerProject: 0,
  actionSetFilters: 0,
  actionSetFilterValues: 0,
  signalEndpoints: 0,
  signalTokensPerEndpoint: 0,
  featureEnvironmentStrategies: limits.strategyLimits.maxStrategies,
  constraintValues: limits.strategyLimits.maxConstraintValues,
  constraints: limits.strategyLimits.maxConstraints,
  environments: NO_LIMIT,
  projects: NO_LIMIT,
  apiTokens: NO_LIMIT,
  segments: NO_LIMIT,
  featureFlags: NO_LIMIT,
  releaseTemplates: 0,
})

export interface UiConfigContext {
  settings: InstanceSettings
  limits: Limits
  /** Whether an Admin turned password login off. */
  passwordDisabled: () => Promise<boolean>
  /** Whether OIDC_* variables fix single sign-on settings. */
  oidcFromEnvironment: boolean
}

/** Unleash's ui-config, honest about this server: what it is, how people sign in, its limits and modes. */
export async function uiConfig (ctx: UiConfigContext, unleashUrl: string, userId: number | undefined) {
  const { state } = ctx.settings
  return {
    version: SERVER_VERSION,
    environment: 'Open Source',
    unleashUrl,
    baseUriPath: '',
    authenticationType: 'open-source' as const,
    emailEnabled: false,
    disablePasswordAuth: await ctx.passwordDisabled(),
    maintenanceMode: state.maintenance,
    frontendApiOrigins: ctx.settings.frontendOrigins,
    versionInfo: { current: { oss: SERVER_VERSION, enterprise: '' }, latest: {}, isLatest: true, instanceId: state.instanceId },
    prometheusAPIAvailable: false,
    impactMetrics: 'disabled' as const,
    resourceLimits: resourceLimits(ctx.limits),
    flags: FLAGS,
    oidcConfiguredThroughEnv: ctx.oidcFromEnvironment,
    samlConfiguredThroughEnv: false,
    maxSessionsCount: 0,
    unleashContext: userId === undefined ? {} : { userId },
    storiesPageEnabled: false,
  }
}
