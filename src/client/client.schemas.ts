import { type Static, Type } from '@sinclair/typebox'
import { QueryText, UrlFriendly } from '../http/schemas.js'
import { Variant } from '../variants/variants.schemas.js'

/** A strategy as Unleash's client format serves it. */
export const ClientStrategy = Type.Object({
  name: Type.String(),
  constraints: Type.Array(Type.Unknown()),
  parameters: Type.Record(Type.String(), Type.String()),
  variants: Type.Array(Type.Unknown()),
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
  dependencies: Type.Array(Type.Unknown()),
})

/** The answer of GET /api/client/features: Unleash's client format, version 2. */
export const ClientFeatures = Type.Object({
  version: Type.Literal(2),
  features: Type.Array(ClientFeature),
  query: Type.Object({
    environment: Type.String(),
    inlineSegmentConstraints: Type.Boolean(),
    projects: Type.Optional(Type.Array(Type.String())),
    project: Type.Optional(Type.String()),
    namePrefix: Type.Optional(Type.String()),
  }),
})

export type ClientStrategy = Static<typeof ClientStrategy>
export type ClientFeature = Static<typeof ClientFeature>
export type ClientFeatures = Static<typeof ClientFeatures>

export const ClientFeaturesQuery = Type.Object({
  namePrefix: Type.Optional(QueryText({ maxLength: 100, description: 'Only features whose name starts with this' })),
  project: Type.Optional(UrlFriendly("Only features of this project (within the token's projects)")),
})
export type ClientFeaturesQuery = Static<typeof ClientFeaturesQuery>
