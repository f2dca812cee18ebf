import { Type } from '@sinclair/typebox'
import { Nullable } from '../http/schemas.js'

export const FeatureType = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  lifetimeDays: Nullable(Type.Integer({ description: 'Days until a feature of this type is potentially stale; null: never' })),
})
