import { Type } from '@sinclair/typebox'
import { Nullable, Timestamp, UrlFriendly } from '../http/schemas.js'

const Description = Type.String({ maxLength: 1000 })

export const NewProject = Type.Object(
  {
    id: UrlFriendly('URL-friendly id, used in paths'),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(Description),
  },
  { additionalProperties: false }
)

export const Project = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  createdAt: Timestamp,
})

export const EnableEnvironment = Type.Object(
  { environment: UrlFriendly('Name of an existing environment') },
  { additionalProperties: false }
)
