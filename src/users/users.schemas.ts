import { Type } from '@sinclair/typebox'
import { Nullable, StringEnum, Timestamp, UrlFriendly } from '../http/schemas.js'
import { ROLE_IDS, ROOT_ROLES } from '../vocabulary/roles.js'

/** Longer passwords are refused: hashing is bounded, and no one types more. */
export const MAX_PASSWORD_LENGTH = 1024

/** A password as sent: the rules (length, common passwords) are checked by the service, naming the rule. */
export const Password = (description: string) => Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH, description })

const Username = Type.String({ minLength: 1, maxLength: 100, pattern: '^[^@\\s]+$', description: 'Unique, without case; no @ and no spaces' })
const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$', description: 'Unique, without case' })
const Name = Type.String({ minLength: 1, maxLength: 200, description: "The person's name (not the username)" })

const RootRoleIds = ROOT_ROLES.map((name) => ROLE_IDS[name])
const RootRole = Type.Union(
  [
    Type.Unsafe<number>({ type: 'integer', enum: RootRoleIds, description: 'Admin 1, Editor 2, Viewer 3' }),
    StringEnum(ROOT_ROLES),
  ],
  { description: 'The root role, by id or name' }
)

export const UserParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'User id' }) })

export const User = Type.Object(
  {
    id: Type.Integer(),
    name: Nullable(Type.String()),
    email: Type.Optional(Type.String()),
    username: Nullable(Type.String()),
    rootRole: Type.Integer({ description: 'Admin 1, Editor 2, Viewer 3' }),
    createdAt: Timestamp,
    seenAt: Nullable(Timestamp),
    accountType: Type.Literal('User'),
  },
  { description: 'A user (never their password)' }
)

/** A user as created or updated: rootRole as it was sent (id or name), as Unleash. */
export const CreatedUser = Type.Object({
  id: Type.Integer(),
  name: Nullable(Type.String()),
  email: Type.Optional(Type.String()),
  username: Nullable(Type.String()),
  rootRole: RootRole,
  createdAt: Timestamp,
  seenAt: Nullable(Timestamp),
  accountType: Type.Literal('User'),
  inviteLink: Type.Optional(Type.String({ description: 'On creation without a password: where the new user sets one (hand it on; shown only here)' })),
  emailSent: Type.Optional(Type.Boolean({ description: 'Always false: no mail is sent' })),
})

export const NewUser = Type.Object(
  {
    username: Type.Optional(Username),
    email: Type.Optional(Email),
    name: Type.Optional(Name),
    password: Type.Optional(Password('At least 10 characters, not a common password, not the username or email. Without one the user cannot log in until an Admin sets one')),
    rootRole: RootRole,
    sendEmail: Type.Optional(Type.Boolean({ description: 'Accepted for Unleash clients; no email is sent' })),
  },
  { additionalProperties: false, description: 'A username or an email (or both) is required' }
)

export const UserUpdate = Type.Object(
  { email: Type.Optional(Email), name: Type.Optional(Name), rootRole: Type.Optional(RootRole) },
  { additionalProperties: false }
)

export const Role = Type.Object({
  id: Type.Integer(),
  type: StringEnum(['root', 'project'] as const),
  name: Type.String(),
  description: Type.String(),
})

export const Users = Type.Object({ users: Type.Array(User), rootRoles: Type.Array(Role) })

export const AdminPassword = Type.Object({ password: Password('The new password') }, { additionalProperties: false })

export const OwnPassword = Type.Object(
  {
    password: Password('The new password'),
    confirmPassword: Type.Optional(Password('When sent, must equal password')),
    oldPassword: Password('The current password'),
  },
  { additionalProperties: false }
)

export const Login = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 254, description: 'Username or email' }),
    password: Password('The password'),
  },
  { additionalProperties: false }
)

export const PermissionItem = Type.Object({
  permission: Type.String(),
  project: Type.Optional(Type.String({ description: '* for every project' })),
  environment: Type.Optional(Type.String({ description: '* for every environment' })),
})

export const Me = Type.Object({
  user: User,
  permissions: Type.Array(PermissionItem, { description: 'ADMIN for an Admin; otherwise what the user may change, by project and environment (* for all)' }),
  feedback: Type.Array(Type.Object({ userId: Type.Integer(), feedbackId: Type.String(), given: Nullable(Timestamp), neverShow: Type.Boolean() }), { description: 'The admin UI\'s feedback prompts this person answered (POST /api/admin/feedback)' }),
  splash: Type.Record(Type.String(), Type.Boolean(), { description: 'The admin UI\'s splash screens this person has seen (POST /api/admin/splash/{id}), each true' }),
})

export const Profile = Type.Object({
  rootRole: Role,
  projects: Type.Array(Type.String(), { description: 'Projects in which the user has a role' }),
  groups: Type.Array(Type.Unknown()),
  features: Type.Array(Type.Unknown()),
  subscriptions: Type.Array(Type.String()),
  canChangePassword: Type.Boolean(),
})

export const Roles = Type.Object({ version: Type.Literal(1), roles: Type.Array(Role) })

export const RolesQuery = Type.Object({ projectId: Type.Optional(UrlFriendly('The project whose roles to list')) })

export const NewPat = Type.Object(
  {
    description: Type.String({ minLength: 1, maxLength: 100, description: 'Unique among your tokens' }),
    expiresAt: Type.String({ format: 'date-time', description: 'Any future instant; the token is refused from then on' }),
  },
  { additionalProperties: false }
)

export const Pat = Type.Object({
  id: Type.Integer(),
  description: Type.String(),
  expiresAt: Timestamp,
  createdAt: Timestamp,
  seenAt: Nullable(Timestamp),
  userId: Type.Integer(),
})

export const CreatedPat = Type.Composite([Pat, Type.Object({ secret: Type.String({ description: 'user:<hex>; shown only in this response' }) })])

export const PatParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) })

export const SearchQuery = Type.Object({ q: Type.Optional(Type.String({ maxLength: 100, pattern: '^[^\\u0000\\uD800-\\uDFFF]*$', description: 'At least 2 characters; matched in usernames, emails and names' })) })

export const ProjectUserParams = Type.Object({ projectId: UrlFriendly('Project id'), userId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) })

export const ProjectRoles = Type.Object(
  { roles: Type.Array(Type.Integer(), { maxItems: 1, description: 'The project role ids to hold (Member is 5); empty: none' }) },
  { additionalProperties: false }
)

export const ProjectAccess = Type.Object({
  roles: Type.Array(Role),
  users: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Nullable(Type.String()),
      email: Type.Optional(Type.String()),
      username: Nullable(Type.String()),
      roles: Type.Array(Type.Integer()),
      addedAt: Timestamp,
    })
  ),
  groups: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      description: Nullable(Type.String()),
      mappingsSSO: Type.Array(Type.String()),
      rootRole: Nullable(Type.Integer({ description: 'Admin 1, Editor 2, Viewer 3' })),
      roleId: Type.Integer({ description: 'The group\'s role in the project (Member is 5)' }),
      roles: Type.Array(Type.Integer()),
      addedAt: Timestamp,
    }),
    { description: 'The groups with a role in the project (see /api/admin/groups)' }
  ),
})

export const InactiveUsers = Type.Object({
  version: Type.Literal(1),
  inactiveUsers: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Nullable(Type.String()),
      email: Type.Optional(Type.String()),
      username: Nullable(Type.String()),
      seenAt: Nullable(Timestamp),
      createdAt: Timestamp,
      patSeenAt: Nullable(Timestamp),
    })
  ),
})

export const Ids = Type.Object(
  { ids: Type.Array(Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), { maxItems: 1000, description: 'User ids; the caller\'s own is skipped' }) },
  { additionalProperties: false }
)

export const UsersAndGroups = Type.Object({
  users: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Nullable(Type.String()),
      username: Nullable(Type.String()),
      email: Type.Optional(Type.String()),
      accountType: Type.Literal('User'),
    })
  ),
  groups: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      userCount: Type.Integer(),
      rootRole: Nullable(Type.Integer({ description: 'Admin 1, Editor 2, Viewer 3' })),
    })
  ),
})

export const AdminCount = Type.Object({
  password: Type.Integer({ description: 'Admins with a password' }),
  noPassword: Type.Integer({ description: 'Admins without one (single sign-on, or not set yet)' }),
  service: Type.Integer({ description: 'Service accounts with the Admin role: none here' }),
})

/** A reset or invitation token as it appears in a link: 32 random bytes, base64url. */
const ResetToken = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$', description: 'The token of the link' })

export const ResetLinkRequest = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 254, description: "The user's email or username" }) },
  { additionalProperties: false }
)

export const ResetLink = Type.Object({
  resetPasswordUrl: Type.String({ format: 'uri', description: 'UNLEASH_URL/reset-password?token=…: hand it to the user (24 hours, used once)' }),
})

export const ResetTokenQuery = Type.Object({ token: Type.Optional(ResetToken) })

export const TokenUser = Type.Object({
  id: Type.Integer(),
  name: Type.Optional(Type.String()),
  email: Type.String({ description: 'Empty when the user has only a username' }),
  token: Type.String(),
  createdBy: Nullable(Type.String({ description: 'Who made the link' })),
  role: Type.Object({ id: Type.Integer(), type: Type.String(), name: Type.String(), description: Type.String() }),
})

export const ChangePasswordWithToken = Type.Object(
  { token: ResetToken, password: Password('The new password') },
  { additionalProperties: false }
)

export const EmailBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) }, { additionalProperties: false })

const PreferenceId = (description: string) => Type.String({ minLength: 1, maxLength: 100, description })

export const Feedback = Type.Object({
  userId: Type.Integer(),
  feedbackId: Type.String(),
  given: Nullable(Timestamp),
  neverShow: Type.Boolean(),
})

export const NewFeedback = Type.Object(
  { feedbackId: PreferenceId('The prompt answered'), neverShow: Type.Optional(Type.Boolean({ description: 'Never show this prompt again (default false)' })) },
  { additionalProperties: false }
)

export const FeedbackUpdate = Type.Object(
  {
    userId: Type.Optional(Type.Integer({ description: 'Ignored: the answer is always the signed-in person\'s' })),
    neverShow: Type.Optional(Type.Boolean({ description: 'Default false' })),
    given: Type.Optional(Nullable(Type.String({ format: 'date-time', description: 'Default now' }))),
  },
  { additionalProperties: false }
)

export const PreferenceParams = Type.Object({ id: UrlFriendly('The feedback prompt or splash screen') })

export const Splash = Type.Object({ userId: Type.Integer(), splashId: Type.String(), seen: Type.Literal(true) })
