import { Type } from '@sinclair/typebox'
import { Timestamp, UrlFriendly } from '../http/schemas.js'

export const NewEnvironment = Type.Object(
  {
    name: UrlFriendly('URL-friendly environment name'),
    type: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Free text, e.g. development, production',
    }),
  },
  { additionalProperties: false }
)

export const Environment = Type.Object({
  name: Type.String(),
  type: Type.String(),
  createdAt: Timestamp,
})
