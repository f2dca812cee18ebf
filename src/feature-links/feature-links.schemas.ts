import { type Static, Type } from '@sinclair/typebox'
import { Nullable, UrlFriendly } from '../http/schemas.js'

/** Longest link address and title stored. */
export const MAX_LINK_URL = 2048
export const MAX_LINK_TITLE = 200

export const LinkBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: MAX_LINK_URL, description: 'An http or https address; without a scheme, https. Stored normalised (see the description of the route)' }),
    title: Type.Optional(Nullable(Type.String({ maxLength: MAX_LINK_TITLE, description: 'What the link is (shown instead of the address)' }))),
  },
  { additionalProperties: false }
)
export type LinkBody = Static<typeof LinkBody>

/** A link as a feature's read shows it (Unleash's shape). */
export const FeatureLink = Type.Object({
  id: Type.String({ description: 'A ULID: links are listed in the order they were added' }),
  url: Type.String(),
  title: Nullable(Type.String()),
  feature: Type.String(),
})
export type FeatureLink = Static<typeof FeatureLink>

export const LinkParams = Type.Object({
  projectId: UrlFriendly('Project id'),
  featureName: UrlFriendly('Feature name'),
  linkId: Type.String({ minLength: 1, maxLength: 100, pattern: '^[0-9A-Za-z]+$', description: 'The link' }),
})
