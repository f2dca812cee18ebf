import { type Static, Type } from '@sinclair/typebox'
import { Nullable, QueryText, URL_FRIENDLY_PATTERN } from '../http/schemas.js'

/** Tag types and tag values are 2–50 characters, as Unleash. */
const TagTypeName = (description: string) => Type.String({ minLength: 2, maxLength: 50, pattern: URL_FRIENDLY_PATTERN, description })
const Color = Nullable(Type.String({ pattern: '^(#[0-9A-Fa-f]{6})?$', description: 'A hexadecimal colour, #RRGGBB (empty or null: none)' }))

export const TagTypeBody = Type.Object(
  {
    name: TagTypeName('Unique among tag types; URL-friendly, 2–50 characters'),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    icon: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    color: Type.Optional(Color),
  },
  { additionalProperties: false }
)
export type TagTypeBody = Static<typeof TagTypeBody>

export const TagTypeUpdate = Type.Object(
  {
    name: Type.Optional(TagTypeName('Must be the name in the path if given')),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    icon: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    color: Type.Optional(Color),
  },
  { additionalProperties: false }
)
export type TagTypeUpdate = Static<typeof TagTypeUpdate>

export const TagType = Type.Object({
  name: Type.String(),
  description: Type.String(),
  icon: Nullable(Type.String()),
  color: Nullable(Type.String()),
})
export type TagType = Static<typeof TagType>

export const TagTypeParams = Type.Object({ name: TagTypeName('Tag type name') })

const TagValue = Type.String({ minLength: 2, maxLength: 50, description: 'The tag value, 2–50 characters after surrounding white space is trimmed' })

export const TagBody = Type.Object(
  {
    value: TagValue,
    type: Type.Optional(TagTypeName('An existing tag type; default simple')),
  },
  { additionalProperties: false }
)
export type TagBody = Static<typeof TagBody>

export const Tag = Type.Object({ value: Type.String(), type: Type.String() })
export type Tag = Static<typeof Tag>

export const TagsOfTypeParams = Type.Object({ type: TagTypeName('Tag type') })

export const TagParams = Type.Object({ type: TagTypeName('Tag type'), value: QueryText({ minLength: 1, maxLength: 100, description: 'Tag value' }) })

export const FeatureTagParams = Type.Object({
  featureName: Type.String({ minLength: 1, maxLength: 100, pattern: URL_FRIENDLY_PATTERN, description: 'Feature name' }),
})

export const TagsChange = Type.Object(
  {
    addedTags: Type.Array(TagBody, { maxItems: 100 }),
    removedTags: Type.Array(TagBody, { maxItems: 100 }),
  },
  { additionalProperties: false }
)
export type TagsChange = Static<typeof TagsChange>

export const TagsResponse = Type.Object({ version: Type.Literal(1), tags: Type.Array(Tag) })
