import { Type } from '@sinclair/typebox'
import { Nullable, Timestamp, UrlFriendly } from '../http/schemas.js'
import { User } from '../users/users.schemas.js'

const Id = (description: string) => Type.Integer({ minimum: 1, maximum: 2_147_483_647, description })

export const GroupParams = Type.Object({ groupId: Id('Group id') })
export const ProjectGroupParams = Type.Object({ projectId: UrlFriendly('Project id'), groupId: Id('Group id') })

const RootRoleId = Type.Unsafe<1 | 2 | 3>({ type: 'integer', enum: [1, 2, 3], description: 'Admin 1, Editor 2, Viewer 3' })

export const MAX_GROUP_MEMBERS = 1000
export const MAX_GROUP_MAPPINGS = 100

/**
 * A group as created or replaced, in Unleash's shape (createGroupSchema); all but `name` is
 * optional. The read-only members of a group as GET shows it may be sent back (Unleash's UI
 * does) and are ignored.
 */
export const NewGroup = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'Unique' }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    mappingsSSO: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
      maxItems: MAX_GROUP_MAPPINGS,
      description: 'The identity provider\'s group names that put a user in this group at sign-in (with enableGroupSyncing)',
    })),
    rootRole: Type.Optional(Nullable(RootRoleId)),
    users: Type.Optional(Type.Array(Type.Object({ user: Type.Object({ id: Id('User id') }, { additionalProperties: false }) }, { additionalProperties: false }), {
      maxItems: MAX_GROUP_MEMBERS,
      description: 'The members, as {"user": {"id": …}}; on PUT, exactly the members the group has afterwards (absent: none)',
    })),
    id: Type.Optional(Type.Integer({ description: 'Ignored' })),
    createdAt: Type.Optional(Nullable(Type.String({ description: 'Ignored' }))),
    createdBy: Type.Optional(Nullable(Type.String({ description: 'Ignored' }))),
    projects: Type.Optional(Type.Array(Type.String(), { description: 'Ignored' })),
    userCount: Type.Optional(Type.Integer({ description: 'Ignored' })),
    scimId: Type.Optional(Nullable(Type.String({ description: 'Ignored' }))),
  },
  { additionalProperties: false, description: 'A group (Unleash\'s createGroupSchema)' }
)

export const GroupMember = Type.Object({
  joinedAt: Timestamp,
  createdBy: Nullable(Type.String({ description: 'Who added the user; SSO when group syncing did' })),
  user: User,
})

export const Group = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Nullable(Type.String()),
    mappingsSSO: Type.Array(Type.String()),
    rootRole: Nullable(Type.Integer({ description: 'Admin 1, Editor 2, Viewer 3: every member holds it (a user acts with the highest of their own and their groups\')' })),
    createdBy: Nullable(Type.String()),
    createdAt: Timestamp,
    users: Type.Array(GroupMember),
    projects: Type.Array(Type.String(), { description: 'The projects in which the group has a role' }),
    userCount: Type.Integer({ minimum: 0 }),
  },
  { description: 'A group (Unleash\'s groupSchema)' }
)

export const Groups = Type.Object({ groups: Type.Array(Group) })

export const GroupProjectRoles = Type.Object(
  { roles: Type.Array(Type.Integer(), { maxItems: 1, description: 'The project role ids the group holds (Member is 5); empty: none' }) },
  { additionalProperties: false }
)
