import type { Static } from '@sinclair/typebox'
import { useMutation } from '@tanstack/react-query'
import type {
  AdvancedPlaygroundResponse as AdvancedResponseSchema,
  ChangeRequestPlaygroundRequest as PreviewRequestSchema,
  PlaygroundConstraint as ConstraintSchema,
  PlaygroundFeature as FeatureSchema,
  PlaygroundRequest as RequestSchema,
  PlaygroundResponse as ResponseSchema,
  PlaygroundStrategy as StrategySchema,
} from '../../../src/playground/playground.schemas'
import { post } from '../../api/client'

export type PlaygroundRequest = Static<typeof RequestSchema>
export type PlaygroundResponse = Static<typeof ResponseSchema>
export type PlaygroundFeature = Static<typeof FeatureSchema>
export type PlaygroundStrategy = Static<typeof StrategySchema>
export type PlaygroundConstraint = Static<typeof ConstraintSchema>
export type PreviewRequest = Static<typeof PreviewRequestSchema>
export type AdvancedPlaygroundResponse = Static<typeof AdvancedResponseSchema>

/** The playground only reads (a POST for its body): nothing changes, nothing is read again. */
export const usePlayground = () =>
  useMutation({ mutationFn: (request: PlaygroundRequest) => post<PlaygroundResponse>('/api/admin/playground', request) })

/** A change request's preview: the playground as if it were applied (nothing is applied: nothing is read again). */
export const useChangeRequestPreview = (id: number) =>
  useMutation({ mutationFn: (request: PreviewRequest) => post<AdvancedPlaygroundResponse>(`/api/admin/playground/change-request/${id}`, request) })
