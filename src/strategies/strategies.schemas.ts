import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { Nullable, StringEnum, UrlFriendly } from '../http/schemas.js'
import { Variant, VariantInput } from '../variants/variants.schemas.js'

/**
 * Every operator the official SDKs evaluate (client specification 6.1.0). IN_CIDR is accepted
 * unlike Unleash 8.2, which refuses it although SDKs built on specification 6.1.0 or later
 * evaluate it (the Node SDK from 6.11.0); older SDKs treat it as an unknown operator, which
 * never matches.
 */
export const OPERATORS = [
  'IN',
  'NOT_IN',
  'STR_STARTS_WITH',
  'STR_ENDS_WITH',
  'STR_CONTAINS',
  'NUM_EQ',
  'NUM_GT',
  'NUM_GTE',
  'NUM_LT',
  'NUM_LTE',
  'DATE_AFTER',
  'DATE_BEFORE',
  'SEMVER_EQ',
  'SEMVER_GT',
  'SEMVER_GTE',
  'SEMVER_LT',
  'SEMVER_LTE',
  'REGEX',
  'IN_CIDR',
] as const
export type Operator = (typeof OPERATORS)[number]

export const PARAMETER_TYPES = ['string', 'percentage', 'list', 'number', 'boolean'] as const
export type ParameterType = (typeof PARAMETER_TYPES)[number]

/** The limits on strategy documents (configuration), checked before any work is done on them. */
export interface StrategyLimits {
  maxStrategies: number
  maxConstraints: number
  maxConstraintValues: number
  maxValueLength: number
  maxRegexLength: number
  /** Segments one strategy may use. */
  maxSegments: number
  /** Variants one strategy may have (the environment variants' limit). */
  maxVariants: number
}

/** Most parameters on one strategy, and the longest parameter value. */
export const MAX_PARAMETERS = 100
export const MAX_PARAMETER_LENGTH = 10_000

export const constraintSchema = (limits: StrategyLimits) =>
  Type.Object(
    {
      contextName: Type.String({ minLength: 1, maxLength: 100, description: 'The context field the constraint reads (userId, appName, a custom property…)' }),
      operator: StringEnum(OPERATORS),
      values: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: limits.maxValueLength }), {
          maxItems: limits.maxConstraintValues,
          description: `Values of a list operator (IN, NOT_IN, STR_*, IN_CIDR): at least one, at most ${limits.maxConstraintValues}, each 1–${limits.maxValueLength} characters`,
        })
      ),
      value: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: Math.max(limits.maxValueLength, limits.maxRegexLength),
          description: `The value of a single-value operator (NUM_*, DATE_*, SEMVER_*, REGEX): ${limits.maxValueLength} characters at most, a REGEX pattern ${limits.maxRegexLength}`,
        })
      ),
      inverted: Type.Optional(Type.Boolean({ description: 'Negates the result (not for REGEX)' })),
      caseInsensitive: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false }
  )
export type Constraint = Static<ReturnType<typeof constraintSchema>>

export const constraintsSchema = (limits: StrategyLimits) =>
  Type.Array(constraintSchema(limits), {
    maxItems: limits.maxConstraints,
    description: `All must match (at most ${limits.maxConstraints}). Validated as Unleash does: list operators need a value; NUM values are finite numbers, DATE values RFC 3339 date-times, SEMVER values strict semver (no leading v), REGEX values compile in RE2 syntax and cannot be inverted, IN_CIDR values are IP addresses or CIDR ranges. Stored and served exactly as sent.`,
  })

/** Parameter values are strings, as Unleash stores them; numbers and booleans are accepted and stored as strings, as Unleash does. */
export const ParameterValue = Type.Union([
  Type.String({ maxLength: MAX_PARAMETER_LENGTH }),
  Type.Number(),
  Type.Boolean(),
])

export const Parameters = Type.Record(Type.String(), ParameterValue, {
  maxProperties: MAX_PARAMETERS,
  propertyNames: { minLength: 1, maxLength: 100 },
  description:
    'Values are kept as strings. Those the strategy definition declares are checked against it: percentage an integer 0–100, number a finite number, boolean true or false, list comma-separated; required ones must be there. flexibleRollout gets rollout 100, stickiness default and groupId the feature name when they are missing. Others are kept as sent (SDKs ignore them).',
})

const Title = Nullable(Type.String({ maxLength: 1000 }))
const SortOrder = Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 })

const segmentIds = (limits: StrategyLimits) =>
  Type.Array(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), {
    maxItems: limits.maxSegments,
    uniqueItems: true,
    description: `Ids of the segments whose constraints must also match (at most ${limits.maxSegments}, MAX_SEGMENTS_PER_STRATEGY); each must exist, and a segment of a project can only be used there`,
  })

/**
 * Strategy variants: the rules of environment variants (weights, fix/variable, payload types);
 * stickiness defaults to the strategy's own (its stickiness parameter, else default).
 */
const strategyVariants = (limits: StrategyLimits) =>
  Type.Array(VariantInput, {
    maxItems: limits.maxVariants,
    description: 'As environment variants: variable variants share 1000 minus the fixed weights, order kept as sent; stickiness defaults to the strategy\'s stickiness parameter (or default)',
  })

/** Members shared by the strategy bodies. */
const strategyMembers = (limits: StrategyLimits) => ({
  title: Type.Optional(Title),
  disabled: Type.Optional(Nullable(Type.Boolean({ description: 'A disabled strategy is kept but not served to SDKs' }))),
  sortOrder: Type.Optional(SortOrder),
  parameters: Type.Optional(Parameters),
  constraints: Type.Optional(constraintsSchema(limits)),
  segments: Type.Optional(segmentIds(limits)),
  variants: Type.Optional(strategyVariants(limits)),
})

export const newStrategySchema = (limits: StrategyLimits) =>
  Type.Object(
    { name: UrlFriendly('The strategy definition (default, flexibleRollout, userWithId, …)'), ...strategyMembers(limits) },
    { additionalProperties: false }
  )

export const updateStrategySchema = (limits: StrategyLimits) =>
  Type.Object(
    { name: Type.Optional(UrlFriendly('The strategy definition; the current one when left out')), ...strategyMembers(limits) },
    { additionalProperties: false }
  )

/** The strategy as a JSON Patch sees it (and as a read returns it, without its id). */
export const strategyDocumentSchema = (limits: StrategyLimits) =>
  Type.Object(
    {
      name: UrlFriendly('The strategy definition'),
      title: Title,
      disabled: Type.Boolean(),
      sortOrder: SortOrder,
      parameters: Parameters,
      constraints: constraintsSchema(limits),
      segments: strategyMembers(limits).segments,
      variants: strategyMembers(limits).variants,
    },
    { additionalProperties: false }
  )

/** A strategy as the admin API returns it. */
export const FeatureStrategy = Type.Object({
  id: Type.String({ description: 'Generated by the service; opaque' }),
  name: Type.String(),
  title: Nullable(Type.String()),
  disabled: Type.Boolean(),
  sortOrder: Type.Integer(),
  constraints: Type.Array(Type.Unknown(), { description: 'Exactly as sent' }),
  parameters: Type.Record(Type.String(), Type.String()),
  variants: Type.Array(Variant),
  segments: Type.Array(Type.Integer()),
})
export type FeatureStrategy = Static<typeof FeatureStrategy>

export const SortOrderBody = Type.Array(
  Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }), sortOrder: SortOrder }, { additionalProperties: false }),
  { minItems: 1, maxItems: 1000, description: 'The new sortOrder of strategies of this feature-environment' }
)

export const StrategyParams = Type.Object({
  projectId: UrlFriendly('Project id'),
  featureName: UrlFriendly('Feature name'),
  environment: UrlFriendly('Environment name'),
  strategyId: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9-]+$', description: 'Strategy id' }),
})

// Strategy definitions

export const ParameterDefinition = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    type: StringEnum(PARAMETER_TYPES),
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    required: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false }
)
export type ParameterDefinition = Static<typeof ParameterDefinition>

const definitionBody = <T extends Record<string, TSchema>>(name: T) =>
  Type.Object(
    {
      ...name,
      title: Type.Optional(Title),
      description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
      parameters: Type.Array(ParameterDefinition, { maxItems: MAX_PARAMETERS, uniqueItems: true }),
      // What a read returns, accepted back and ignored (a body copied from a GET works, as in Unleash).
      displayName: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
      editable: Type.Optional(Type.Boolean()),
      deprecated: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false }
  )

export const NewStrategyDefinition = definitionBody({ name: UrlFriendly('Unique strategy name') })
export const UpdateStrategyDefinition = definitionBody({ name: Type.Optional(UrlFriendly('Must be the name in the path if given')) })

export const StrategyDefinition = Type.Object({
  name: Type.String(),
  displayName: Nullable(Type.String()),
  title: Nullable(Type.String()),
  description: Nullable(Type.String()),
  editable: Type.Boolean({ description: 'false for the built-in definitions' }),
  deprecated: Type.Boolean(),
  parameters: Type.Array(
    Type.Object({
      name: Type.String(),
      type: StringEnum(PARAMETER_TYPES),
      description: Type.String(),
      required: Type.Boolean(),
    })
  ),
})
export type StrategyDefinition = Static<typeof StrategyDefinition>
