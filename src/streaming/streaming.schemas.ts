import { type Static, Type } from '@sinclair/typebox'
import { ClientFeature, ClientFeaturesQuery, ClientSegment } from '../client/client.schemas.js'

const EventId = Type.Integer({ minimum: 1, description: 'The revision this event brings the SDK to (see docs/streaming.md)' })

/** Everything the SDK holds is replaced: the features of the token's scope and the segments they use. */
export const HydrationEvent = Type.Object({
  type: Type.Literal('hydration'),
  eventId: EventId,
  features: Type.Array(ClientFeature),
  segments: Type.Array(ClientSegment),
})
/** One flag as GET /api/client/features holds it now. */
export const FeatureUpdatedEvent = Type.Object({ type: Type.Literal('feature-updated'), eventId: EventId, feature: ClientFeature })
/** A flag the SDK may hold left the scope (archived, deleted, switched to another project). */
export const FeatureRemovedEvent = Type.Object({ type: Type.Literal('feature-removed'), eventId: EventId, featureName: Type.String(), project: Type.String() })
export const SegmentUpdatedEvent = Type.Object({ type: Type.Literal('segment-updated'), eventId: EventId, segment: ClientSegment })
export const SegmentRemovedEvent = Type.Object({ type: Type.Literal('segment-removed'), eventId: EventId, segmentId: Type.Integer() })

export const DeltaEvent = Type.Union([HydrationEvent, FeatureUpdatedEvent, FeatureRemovedEvent, SegmentUpdatedEvent, SegmentRemovedEvent])
export type DeltaEvent = Static<typeof DeltaEvent>

/** The answer of GET /api/client/delta, and the data of every streaming event. */
export const DeltaEvents = Type.Object({
  events: Type.Array(DeltaEvent, { description: 'In the order to apply them; a hydration replaces everything held' }),
})
export type DeltaEvents = Static<typeof DeltaEvents>

export const DeltaQuery = ClientFeaturesQuery

/** A revision as a client sends it back: a decimal number (up to 2^63 - 1). */
export const REVISION_PATTERN = /^(0|[1-9][0-9]{0,18})$/
