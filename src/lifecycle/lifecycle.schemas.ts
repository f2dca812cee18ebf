import { type Static, Type } from '@sinclair/typebox'
import { StringEnum, Timestamp } from '../http/schemas.js'
import { COMPLETION_STATUSES, STAGES } from '../vocabulary/stages.js'

export const StageName = StringEnum(STAGES)
export const CompletionStatus = StringEnum(COMPLETION_STATUSES, {
  description: 'The status of the feature after it is marked completed (case-sensitive)',
})
export type StageName = Static<typeof StageName>
export type CompletionStatus = Static<typeof CompletionStatus>

export const FeatureLifecycleCompleted = Type.Object(
  {
    status: CompletionStatus,
    statusValue: Type.Optional(
      Type.String({ maxLength: 1000, description: 'Metadata stored with the status' })
    ),
  },
  { additionalProperties: false }
)

export const LifecycleStage = Type.Object({
  stage: StageName,
  enteredStageAt: Timestamp,
  status: Type.Optional(CompletionStatus),
  statusValue: Type.Optional(Type.String()),
  lastEvaluated: Type.Optional(
    Type.Array(Type.Object({ environment: Type.String(), lastEvaluatedAt: Timestamp }), {
      description:
        'On the completed stage of the lifecycle read: when SDKs last evaluated the feature, per environment, newest first. A completed feature still evaluated is one whose code has not been removed yet.',
    })
  ),
})
export type LifecycleStage = Static<typeof LifecycleStage>
