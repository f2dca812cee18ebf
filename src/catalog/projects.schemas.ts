import { Type } from '@sinclair/typebox'
import { Nullable, QueryText, StringEnum, Timestamp, UrlFriendly } from '../http/schemas.js'
import { FeatureStrategy } from '../strategies/strategies.schemas.js'

const Description = Type.String({ maxLength: 1000 })

export const NewProject = Type.Object(
  {
    id: UrlFriendly('URL-friendly id, used in paths'),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(Description),
  },
  { additionalProperties: false }
)

export const Project = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  createdAt: Timestamp,
})

export const EnableEnvironment = Type.Object(
  { environment: UrlFriendly('Name of an existing environment') },
  { additionalProperties: false }
)

/** How far a project is in Unleash's onboarding: a flag, an SDK that reported, a flag switched on. */
export const OnboardingStatus = Type.Union(
  [
    Type.Object(
      { status: StringEnum(['onboarding-started', 'sdk-connected', 'onboarded'] as const) },
      { additionalProperties: false }
    ),
    Type.Object(
      { status: StringEnum(['first-flag-created'] as const), feature: Type.String({ description: 'A flag of the project (the first created)' }) },
      { additionalProperties: false }
    ),
  ],
  {
    description:
      'onboarded: an SDK reported usage of the project and one of its flags was switched on once; sdk-connected: only the first; first-flag-created: the project has a flag (not archived); else onboarding-started',
  }
)

const Health = {
  health: Type.Integer({ minimum: 0, maximum: 100, description: 'Percent of the flags (not archived) that are not potentially stale (older than their type\'s expected lifetime)' }),
  technicalDebt: Type.Integer({ minimum: 0, maximum: 100, description: '100 minus health' }),
}

/** A project in the list, with what Unleash's project list shows. */
export const ListedProject = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    createdAt: Timestamp,
    ...Health,
    featureCount: Type.Integer({ minimum: 0, description: 'Flags, not archived' }),
    memberCount: Type.Integer({ minimum: 0, description: 'People with a role in the project, their own or a group\'s' }),
    cleanupCount: Type.Integer({ minimum: 0, description: 'Flags in the lifecycle stage completed, not archived: ready to be cleaned up' }),
    mode: StringEnum(['open'] as const, { description: 'Always open here' }),
    archivedAt: Type.Null({ description: 'Projects are not archived here' }),
    lastUpdatedAt: Nullable(Timestamp),
    lastReportedFlagUsage: Nullable(Timestamp),
    onboardingStatus: OnboardingStatus,
    owners: Type.Array(Type.Object({ ownerType: StringEnum(['system'] as const) }, { additionalProperties: false }), {
      description: 'As Unleash answers for a project without an Owner role (there is none here)',
    }),
  },
  { additionalProperties: false }
)

const WindowCounts = Type.Object(
  {
    avgTimeToProdCurrentWindow: Type.Number({ description: 'Average days from creating a release flag to switching it on in a production environment' }),
    createdCurrentWindow: Type.Integer({ description: 'Flags created in the last 30 days' }),
    createdPastWindow: Type.Integer({ description: 'Flags created 60 to 30 days ago' }),
    archivedCurrentWindow: Type.Integer(),
    archivedPastWindow: Type.Integer(),
    projectActivityCurrentWindow: Type.Integer({ description: 'Events of the project in the last 30 days' }),
    projectActivityPastWindow: Type.Integer(),
    projectMembersAddedCurrentWindow: Type.Integer(),
  },
  { additionalProperties: false }
)

/** A project's default strategy in an environment, as stored and answered. */
export const DefaultStrategy = Type.Omit(FeatureStrategy, ['id'])

export const ProjectOverview = Type.Object(
  {
    version: Type.Literal(1),
    name: Type.String(),
    description: Nullable(Type.String()),
    mode: StringEnum(['open'] as const),
    featureLimit: Type.Null(),
    featureNaming: Type.Object({ pattern: Type.Null(), example: Type.Null(), description: Type.Null() }, { additionalProperties: false }),
    linkTemplates: Type.Array(Type.Object({ title: Nullable(Type.String()), urlTemplate: Type.String() })),
    defaultStickiness: Type.String(),
    members: Type.Integer({ minimum: 0 }),
    ...Health,
    createdAt: Timestamp,
    updatedAt: Nullable(Timestamp),
    archivedAt: Type.Null(),
    onboardingStatus: OnboardingStatus,
    environments: Type.Array(
      Type.Object({ environment: Type.String(), defaultStrategy: Type.Optional(DefaultStrategy) }, { additionalProperties: false }),
      { description: 'The environments enabled in the project, in list order, with its default strategy in each that has one' }
    ),
    featureTypeCounts: Type.Array(Type.Object({ type: Type.String(), count: Type.Integer() }, { additionalProperties: false })),
    stats: WindowCounts,
  },
  { additionalProperties: false }
)

const StageSummary = Type.Object(
  { averageDays: Nullable(Type.Number({ description: 'Average whole days flags of the project spent in the stage before leaving it' })), currentFlags: Type.Integer() },
  { additionalProperties: false }
)

export const ProjectStatus = Type.Object(
  {
    activityCountByDate: Type.Array(Type.Object({ date: Type.String({ description: 'YYYY-MM-DD (UTC)' }), count: Type.Integer() }, { additionalProperties: false }), {
      description: 'Events of the project per day, the last year, oldest first',
    }),
    resources: Type.Object(
      {
        members: Type.Integer({ minimum: 0 }),
        apiTokens: Type.Integer({ minimum: 0, description: 'Tokens that name the project' }),
        segments: Type.Integer({ minimum: 0, description: 'Segments of the project' }),
      },
      { additionalProperties: false }
    ),
    health: Type.Object({ current: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
    technicalDebt: Type.Object({ current: Type.Integer({ minimum: 0, maximum: 100 }) }, { additionalProperties: false }),
    lifecycleSummary: Type.Object(
      {
        initial: StageSummary,
        preLive: StageSummary,
        live: StageSummary,
        completed: StageSummary,
        archived: Type.Object({ currentFlags: Type.Integer(), last30Days: Type.Integer() }, { additionalProperties: false }),
      },
      { additionalProperties: false }
    ),
    staleFlags: Type.Object({ total: Type.Integer({ minimum: 0, description: 'Flags (not archived) that are potentially stale' }) }, { additionalProperties: false }),
  },
  { additionalProperties: false }
)

export const FlagCreators = Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false }), {
  description: "The people who created the project's flags (not archived): their name, else username, else email. Flags an API token created name no person",
})

export const ApplicationsQuery = Type.Object(
  {
    query: Type.Optional(QueryText({ maxLength: 1000, description: 'Comma-separated words; an application matches when its name, an environment, an instance id or an SDK version contains one (case-insensitive)' })),
    offset: Type.Optional(QueryText({ maxLength: 20, description: 'Applications to skip (default 0; anything but a positive integer is 0)' })),
    limit: Type.Optional(QueryText({ maxLength: 20, description: 'Applications to answer, 1 to 100 (default 50; anything else is 50)' })),
    sortBy: Type.Optional(QueryText({ maxLength: 100, description: 'Accepted and ignored, as Unleash: always by name' })),
    sortOrder: Type.Optional(QueryText({ maxLength: 20, description: 'asc (default) or desc' })),
  },
  { additionalProperties: false }
)

export const ProjectApplications = Type.Object(
  {
    total: Type.Integer({ minimum: 0, description: 'Applications matching, on every page' }),
    applications: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          environments: Type.Array(Type.String()),
          instances: Type.Array(Type.String()),
          sdks: Type.Array(Type.Object({ name: Type.String(), versions: Type.Array(Type.String()) }, { additionalProperties: false })),
        },
        { additionalProperties: false }
      )
    ),
  },
  { additionalProperties: false }
)

export const ProjectEnvironmentParams = Type.Object({
  projectId: UrlFriendly('Project id'),
  environment: UrlFriendly('Environment name'),
})
