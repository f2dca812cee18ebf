import type { Static } from '@sinclair/typebox'
import { useMutation } from '@tanstack/react-query'
import type {
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

/** The playground only reads (a POST for its body): nothing changes, nothing is read again. */
export const usePlayground = () =>
  useMutation({ mutationFn: (request: PlaygroundRequest) => post<PlaygroundResponse>('/api/admin/playground', request) })
