import { type Static, Type } from '@sinclair/typebox'
import { UrlFriendly } from '../http/schemas.js'

/** A dependency on one parent, as POST …/dependencies takes it (and an import's `dependencies[].dependencies[]`). */
export const NewDependency = Type.Object(
  {
    feature: UrlFriendly('The parent feature, in the same project'),
    enabled: Type.Optional(Type.Boolean({ default: true, description: 'true (the default): the child is on only when the parent is on; false: only when it is off' })),
    variants: Type.Optional(
      Type.Array(UrlFriendly('A variant name of the parent'), {
        maxItems: 100,
        uniqueItems: true,
        description: 'With enabled true: the child is on only when the parent gives one of these variants; empty or absent: any',
      })
    ),
  },
  { additionalProperties: false }
)
export type NewDependency = Static<typeof NewDependency>
