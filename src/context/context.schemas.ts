import { type Static, Type } from '@sinclair/typebox'
import { Nullable, QueryText, Timestamp, UrlFriendly } from '../http/schemas.js'

/** Most legal values one context field may have. */
export const MAX_LEGAL_VALUES = 1000

export const LegalValue = Type.Object(
  {
    value: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  },
  { additionalProperties: false }
)
export type LegalValue = Static<typeof LegalValue>

const members = {
  description: Type.Optional(Nullable(Type.String({ maxLength: 250 }))),
  stickiness: Type.Optional(Type.Boolean({ description: 'Whether the field may be used for stickiness (custom stickiness); default false' })),
  sortOrder: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: 'Where the field is listed in a UI; default 0' })),
  legalValues: Type.Optional(
    Type.Array(LegalValue, {
      maxItems: MAX_LEGAL_VALUES,
      description: `The values constraints on this field may use (each value once; at most ${MAX_LEGAL_VALUES}); empty: any value`,
    })
  ),
}

const ProjectMember = UrlFriendly('The project the field belongs to (a project field); left out: a root field')

export const NewContextField = Type.Object(
  { name: UrlFriendly('Unique among context fields, root and project fields alike'), ...members, project: Type.Optional(ProjectMember) },
  { additionalProperties: false }
)
export type NewContextField = Static<typeof NewContextField>

export const ContextFieldUpdate = Type.Object(
  {
    name: Type.Optional(UrlFriendly('Must be the name in the path if given: a context field cannot be renamed')),
    ...members,
    project: Type.Optional(UrlFriendly("Must be the field's project if given: a field cannot move between projects")),
    // What a read returns, accepted back and ignored.
    createdAt: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    usedInFeatures: Type.Optional(Nullable(Type.Integer())),
    usedInProjects: Type.Optional(Nullable(Type.Integer())),
  },
  { additionalProperties: false }
)
export type ContextFieldUpdate = Static<typeof ContextFieldUpdate>

export const ContextField = Type.Object({
  name: Type.String(),
  description: Nullable(Type.String()),
  stickiness: Type.Boolean(),
  sortOrder: Type.Integer(),
  legalValues: Type.Array(LegalValue),
  createdAt: Nullable(Timestamp),
  project: Type.Optional(Type.String({ description: 'The project of a project field; left out for a root field' })),
})
export type ContextField = Static<typeof ContextField>

export const ListedContextField = Type.Composite([
  ContextField,
  Type.Object({
    usedInFeatures: Type.Integer({ description: 'Features (not archived) with a strategy whose constraints read the field' }),
    usedInProjects: Type.Integer({ description: 'Projects of those features' }),
  }),
])

export const ContextParams = Type.Object({ name: UrlFriendly('Context field name') })
export const ProjectContextParams = Type.Object({ projectId: UrlFriendly('Project id'), contextField: UrlFriendly('Context field name') })
export const ProjectLegalValueParams = Type.Object({
  projectId: UrlFriendly('Project id'),
  contextField: UrlFriendly('Context field name'),
  legalValue: QueryText({ minLength: 1, maxLength: 100, description: 'The legal value to remove' }),
})

/** `?include=`: the root list adds project fields with `project`, a project's list adds root fields with `root` (either case). */
export const IncludeQuery = Type.Object(
  { include: Type.Optional(QueryText({ maxLength: 20, description: 'project (the root list: project fields too, of the projects the token may see) or root (a project\'s list: root fields too); case-insensitive, anything else changes nothing' })) },
  { additionalProperties: false }
)
export const LegalValueParams = Type.Object({
  name: UrlFriendly('Context field name'),
  legalValue: QueryText({ minLength: 1, maxLength: 100, description: 'The legal value to remove' }),
})
