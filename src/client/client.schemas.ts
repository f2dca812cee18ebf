import { type Static, Type } from '@sinclair/typebox'
import { QueryText, UrlFriendly } from '../http/schemas.js'
import { Variant } from '../variants/variants.schemas.js'

/** A strategy as Unleash's client format serves it. */
export const ClientStrategy = Type.Object({
  name: Type.String(),
  constraints: Type.Array(Type.Unknown(), { description: 'Exactly as stored; for SDKs older than client specification 4.2.0, followed by the constraints of the strategy\'s segments' }),
  parameters: Type.Record(Type.String(), Type.String()),
  variants: Type.Array(Type.Unknown()),
  segments: Type.Optional(Type.Array(Type.Integer(), { description: 'Ids of the top-level segments (SDKs on client specification 4.2.0 or later)' })),
})

export const ClientFeature = Type.Object({
  name: Type.String(),
  type: Type.String(),
  project: Type.String(),
  enabled: Type.Boolean(),
  stale: Type.Boolean(),
  impressionData: Type.Boolean(),
  strategies: Type.Array(ClientStrategy),
  variants: Type.Array(Variant),
  dependencies: Type.Array(
    Type.Object({ feature: Type.String(), enabled: Type.Boolean(), variants: Type.Optional(Type.Array(Type.String())) }),
    { description: 'The parents this feature depends on; variants only when enabled is true (as Unleash)' }
  ),
})

/** The answer of GET /api/client/features: Unleash's client format, version 2. */
export const ClientSegment = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  constraints: Type.Array(Type.Unknown()),
})

export const ClientFeatures = Type.Object({
  version: Type.Literal(2),
  features: Type.Array(ClientFeature),
  segments: Type.Optional(Type.Array(ClientSegment, { description: 'The segments the strategies use, for SDKs on client specification 4.2.0 or later (Unleash-Client-Spec header)' })),
  query: Type.Object({
    environment: Type.String(),
    inlineSegmentConstraints: Type.Boolean(),
    projects: Type.Optional(Type.Array(Type.String())),
    project: Type.Optional(Type.String()),
    namePrefix: Type.Optional(Type.String()),
  }),
})

export type ClientStrategy = Static<typeof ClientStrategy>
export type ClientSegment = Static<typeof ClientSegment>
export type ClientFeature = Static<typeof ClientFeature>
export type ClientFeatures = Static<typeof ClientFeatures>

export const ClientFeaturesQuery = Type.Object({
  namePrefix: Type.Optional(QueryText({ maxLength: 100, description: 'Only features whose name starts with this' })),
  project: Type.Optional(UrlFriendly("Only features of this project (within the token's projects)")),
})
export type ClientFeaturesQuery = Static<typeof ClientFeaturesQuery>

/** Strict semantic versions, as Unleash reads the Unleash-Client-Spec header. */
export const ClientSpecHeader = Type.String({
  pattern: '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?$',
  maxLength: 100,
  description: 'The client specification the SDK implements (all current SDKs send it). From 4.2.0 on, segments are served once at the top level and strategies carry their ids; before (or without it), segment constraints are inlined into each strategy',
})
