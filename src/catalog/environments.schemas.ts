import { Type } from '@sinclair/typebox'
import { Nullable, URL_FRIENDLY_PATTERN, UrlFriendly } from '../http/schemas.js'
import { DefaultStrategy } from './projects.schemas.js'

const SortOrder = Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 })

/** Most environments one sort-order request may name. */
export const MAX_SORT_ORDER_ENTRIES = 1000

export const NewEnvironment = Type.Object(
  {
    name: UrlFriendly('URL-friendly environment name'),
    type: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Free text, e.g. development, production',
    }),
    sortOrder: Type.Optional({ ...SortOrder, description: 'Where it is listed, lower first; default: after the last one' }),
  },
  { additionalProperties: false }
)

const environmentMembers = {
  name: Type.String(),
  type: Type.String(),
  enabled: Type.Boolean({ description: 'False: deprecated (POST …/off). A disabled environment is still served to SDKs and still writable; clients stop offering it' }),
  protected: Type.Boolean({ description: 'Always false here: no environment can be deleted' }),
  sortOrder: Type.Integer({ description: 'Where it is listed, lower first (PUT /api/admin/environments/sort-order)' }),
  requiredApprovals: Type.Optional(Nullable(Type.Integer({ minimum: 1, description: 'Null: no change requests here' }))),
}

/** An environment as Unleash's environmentSchema has it. */
export const Environment = Type.Object(environmentMembers, { additionalProperties: false })

/** An environment in the list, with Unleash's counts. */
export const ListedEnvironment = Type.Object(
  {
    ...environmentMembers,
    projectCount: Type.Integer({ minimum: 0, description: 'Projects it is enabled in' }),
    apiTokenCount: Type.Integer({ minimum: 0, description: 'API tokens that name it (tokens for every environment are not counted)' }),
    enabledToggleCount: Type.Integer({ minimum: 0, description: 'Features switched on in it' }),
  },
  { additionalProperties: false }
)

/** An environment as one project sees it (Unleash's environmentProjectSchema). */
export const ProjectEnvironment = Type.Object(
  {
    ...environmentMembers,
    projectApiTokenCount: Type.Integer({ minimum: 0, description: 'Client and frontend tokens for it that cover the project' }),
    projectEnabledToggleCount: Type.Integer({ minimum: 0, description: "The project's features switched on in it" }),
    defaultStrategy: Type.Optional({ ...DefaultStrategy, description: 'The strategy a feature switched on there with none gets; left out: flexibleRollout at 100 %' }),
    visible: Type.Boolean({ description: 'Whether it is enabled in the project' }),
  },
  { additionalProperties: false }
)

export const EnvironmentParams = Type.Object({ name: UrlFriendly('Environment name') })

export const SortOrderBody = Type.Record(Type.String({ pattern: URL_FRIENDLY_PATTERN }), SortOrder, {
  maxProperties: MAX_SORT_ORDER_ENTRIES,
  additionalProperties: false,
  description: 'Environment name → its new sortOrder; environments not named keep theirs',
})
