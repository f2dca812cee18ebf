import { type Static, Type } from '@sinclair/typebox'
import { Nullable, Timestamp, UrlFriendly } from '../http/schemas.js'
import { type ConstraintLimits, constraintsSchema } from '../constraints/constraints.schemas.js'

const Name = Type.String({ minLength: 1, maxLength: 100, description: 'Unique among segments' })

export const upsertSegmentSchema = (limits: ConstraintLimits, maxValues: number) =>
  Type.Object(
    {
      name: Name,
      description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
      project: Type.Optional(Nullable(UrlFriendly('Only strategies of this project may use the segment; null or absent: any project'))),
      constraints: constraintsSchema(limits),
    },
    {
      additionalProperties: false,
      description: `Constraints all must match, validated as strategy constraints; at most ${maxValues} values in all (MAX_SEGMENT_VALUES)`,
    }
  )
export type UpsertSegment = Static<ReturnType<typeof upsertSegmentSchema>>

/** The PUT body: what a read returns may be sent back, so an `id` is accepted when it is the path's. */
export const updateSegmentSchema = (limits: ConstraintLimits, maxValues: number) => {
  const upsert = upsertSegmentSchema(limits, maxValues)
  return Type.Object(
    { ...upsert.properties, id: Type.Optional(Type.Integer({ description: 'Must be the id in the path if given' })) },
    { additionalProperties: false, description: upsert.description }
  )
}

export const Segment = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Nullable(Type.String()),
  project: Nullable(Type.String()),
  constraints: Type.Array(Type.Unknown(), { description: 'Exactly as sent' }),
  createdBy: Type.String(),
  createdAt: Timestamp,
})
export type Segment = Static<typeof Segment>

export const ListedSegment = Type.Composite([
  Segment,
  Type.Object({
    usedInFeatures: Type.Integer({ description: 'Features (not archived) with a strategy that uses it' }),
    usedInProjects: Type.Integer({ description: 'Projects of those features' }),
  }),
])

export const SegmentParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Segment id' }) })

export const SegmentUse = Type.Object({
  id: Type.String({ description: 'Strategy id' }),
  projectId: Type.String(),
  featureName: Type.String(),
  strategyName: Type.String(),
  environment: Type.String(),
})
