import { type Static, Type } from '@sinclair/typebox'
import { StringEnum } from '../http/schemas.js'
import { OPERATORS } from '../vocabulary/operators.js'

/** The limits on constraints (configuration), checked before any work is done on them. */
export interface ConstraintLimits {
  maxConstraints: number
  maxConstraintValues: number
  maxValueLength: number
  maxRegexLength: number
}

export const constraintSchema = (limits: ConstraintLimits) =>
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

export const constraintsSchema = (limits: ConstraintLimits) =>
  Type.Array(constraintSchema(limits), {
    maxItems: limits.maxConstraints,
    description: `All must match (at most ${limits.maxConstraints}). Validated as Unleash does: list operators need a value; NUM values are finite numbers, DATE values RFC 3339 date-times, SEMVER values strict semver, build metadata allowed (no leading v), REGEX values compile in RE2 syntax and cannot be inverted, IN_CIDR values are IP addresses or CIDR ranges. Stored and served exactly as sent.`,
  })
