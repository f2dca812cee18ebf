import { type Static, Type } from '@sinclair/typebox'
import { StringEnum } from '../http/schemas.js'
import { Variant } from '../variants/variants.schemas.js'

/** Unleash's sdkContextSchema: the context as SDKs take it; any other member is a context field too. */
export const SdkContext = Type.Object(
  {
    appName: Type.String({ minLength: 1, description: 'The name of the application (required, as the SDKs require it)' }),
    currentTime: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; the DATE_* operators read it (else the clock)' })),
    environment: Type.Optional(Type.String({ description: "The SDK's environment field (not the environment evaluated); `default` when left out" })),
    properties: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Custom context fields' })),
    remoteAddress: Type.Optional(Type.String()),
    sessionId: Type.Optional(Type.String()),
    userId: Type.Optional(Type.String()),
  },
  {
    additionalProperties: true,
    description:
      'The Unleash context as the SDKs model it. Any other member is a context field as well (its value read as the SDK reads it, as a string); empty values count as not given, as Unleash\'s playground reads them.',
  }
)

const Projects = Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 1000 }), Type.Literal('*')], {
  description: 'The projects whose flags are evaluated: a list, or `*` (the default) for every project the caller may read',
})

export const PlaygroundRequest = Type.Object(
  {
    environment: Type.String({ minLength: 1, maxLength: 100, description: 'The environment to evaluate the flags in (one that does not exist: every flag is off there)' }),
    projects: Type.Optional(Projects),
    context: SdkContext,
  },
  { additionalProperties: false }
)

export const AdvancedPlaygroundRequest = Type.Object(
  {
    environments: Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-zA-Z0-9~_.-]+$' }), {
      minItems: 1,
      maxItems: 100,
      description: 'The environments to evaluate the flags in',
    }),
    projects: Type.Optional(Projects),
    context: SdkContext,
  },
  { additionalProperties: false }
)

/** Unleash's changeRequestPlaygroundRequestSchema: the context to evaluate a change request's preview with. */
export const ChangeRequestPlaygroundRequest = Type.Object(
  { context: SdkContext },
  { additionalProperties: false, description: "The context to evaluate the change request's environment and project with, as the advanced playground takes it" }
)

export const PlaygroundConstraint = Type.Object(
  {
    contextName: Type.String(),
    operator: Type.String(),
    caseInsensitive: Type.Optional(Type.Boolean()),
    inverted: Type.Optional(Type.Boolean()),
    values: Type.Optional(Type.Array(Type.String())),
    value: Type.Optional(Type.String()),
    result: Type.Boolean({ description: 'Whether the constraint holds for the context' }),
  },
  { additionalProperties: false }
)

export const PlaygroundSegment = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    result: Type.Boolean({ description: 'Whether every constraint of the segment holds' }),
    constraints: Type.Array(PlaygroundConstraint),
  },
  { additionalProperties: false }
)

const Payload = Type.Object({ type: Type.String(), value: Type.String() }, { additionalProperties: false })

export const StrategyVariant = Type.Object(
  { name: Type.String(), enabled: Type.Boolean(), payload: Type.Optional(Payload) },
  { additionalProperties: false }
)

export const PlaygroundStrategyResult = Type.Object(
  {
    enabled: Type.Union([Type.Boolean(), Type.Literal('unknown')], {
      description: '`unknown` when the strategy was not evaluated (disabled) or cannot be (a custom strategy, applicationHostname) and its constraints and segments hold',
    }),
    evaluationStatus: StringEnum(['complete', 'incomplete', 'unevaluated'] as const, {
      description: '`complete`: evaluated; `incomplete`: the server cannot evaluate this strategy (custom, or applicationHostname); `unevaluated`: it is disabled',
    }),
    variant: Type.Optional(StrategyVariant),
    variants: Type.Optional(Type.Array(Variant)),
  },
  { additionalProperties: false, description: "The strategy's result; a complete one carries the variant it picks for the context (whether or not it matched) and its variants" }
)

export const PlaygroundStrategy = Type.Object(
  {
    name: Type.String(),
    id: Type.String(),
    title: Type.Optional(Type.String()),
    disabled: Type.Boolean(),
    parameters: Type.Record(Type.String(), Type.String()),
    result: PlaygroundStrategyResult,
    constraints: Type.Array(PlaygroundConstraint),
    segments: Type.Array(PlaygroundSegment),
    links: Type.Object({ edit: Type.String({ description: '/projects/{project}/features/{flag}/strategies/edit?environmentId={environment}&strategyId={id}' }) }),
  },
  { additionalProperties: false }
)

export const PlaygroundVariant = Type.Object(
  {
    name: Type.String(),
    enabled: Type.Boolean(),
    payload: Type.Optional(Payload),
    feature_enabled: Type.Optional(Type.Boolean()),
    featureEnabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, description: "The variant the SDK answers for the context (`disabled` when the flag is off or has none), in Unleash's playground's shape" }
)

const Strategies = Type.Object(
  {
    result: Type.Union([Type.Boolean(), Type.Literal('unknown')], {
      description: 'The strategies together: true when one matched; else `unknown` when one could not be evaluated; else false. Without strategies, whether the flag is on in the environment',
    }),
    data: Type.Array(PlaygroundStrategy),
  },
  { additionalProperties: false }
)

const evaluated = {
  isEnabled: Type.Boolean({ description: 'What the SDK answers: on in the environment, its dependencies satisfied, and its strategies matched' }),
  isEnabledInCurrentEnvironment: Type.Boolean(),
  hasUnsatisfiedDependency: Type.Boolean(),
  variant: PlaygroundVariant,
}

export const PlaygroundFeature = Type.Object(
  {
    ...evaluated,
    variants: Type.Array(Variant, { description: "The variants the answer was picked from: the matching strategy's, when it picked one; else the flag's in the environment" }),
    name: Type.String(),
    projectId: Type.String(),
    strategies: Strategies,
  },
  { additionalProperties: false }
)

export const PlaygroundResponse = Type.Object(
  {
    input: PlaygroundRequest,
    features: Type.Array(PlaygroundFeature),
  },
  { additionalProperties: false }
)

/** Unleash's sdkFlatContextSchema: one combination of the context's values, properties among the top-level fields. */
export const FlatContext = Type.Record(Type.String(), Type.String(), { description: 'One combination of the context values, with the properties flattened among the top-level fields' })

export const AdvancedPlaygroundEnvironmentFeature = Type.Object(
  {
    ...evaluated,
    context: FlatContext,
    variants: Type.Array(Variant),
    name: Type.String(),
    environment: Type.String(),
    projectId: Type.String(),
    strategies: Strategies,
  },
  { additionalProperties: false }
)

export const AdvancedPlaygroundFeature = Type.Object(
  {
    name: Type.String(),
    projectId: Type.String(),
    environments: Type.Record(Type.String(), Type.Array(AdvancedPlaygroundEnvironmentFeature), { description: 'By environment: one answer per combination of the context values' }),
  },
  { additionalProperties: false }
)

export const AdvancedPlaygroundResponse = Type.Object(
  {
    input: AdvancedPlaygroundRequest,
    features: Type.Array(AdvancedPlaygroundFeature),
    warnings: Type.Optional(
      Type.Object(
        { invalidContextProperties: Type.Array(Type.String(), { description: 'Top-level context members left out because their value is not a string' }) },
        { additionalProperties: false, description: 'Present only when there is something to warn about' }
      )
    ),
  },
  { additionalProperties: false }
)

export type SdkContext = Static<typeof SdkContext>
export type PlaygroundRequest = Static<typeof PlaygroundRequest>
export type AdvancedPlaygroundRequest = Static<typeof AdvancedPlaygroundRequest>
export type ChangeRequestPlaygroundRequest = Static<typeof ChangeRequestPlaygroundRequest>
export type PlaygroundConstraint = Static<typeof PlaygroundConstraint>
export type PlaygroundStrategy = Static<typeof PlaygroundStrategy>
export type PlaygroundVariant = Static<typeof PlaygroundVariant>
export type PlaygroundFeature = Static<typeof PlaygroundFeature>
export type PlaygroundResponse = Static<typeof PlaygroundResponse>
export type AdvancedPlaygroundEnvironmentFeature = Static<typeof AdvancedPlaygroundEnvironmentFeature>
export type AdvancedPlaygroundFeature = Static<typeof AdvancedPlaygroundFeature>
export type AdvancedPlaygroundResponse = Static<typeof AdvancedPlaygroundResponse>
