import { Type } from '@sinclair/typebox'
import { Nullable, Timestamp } from '../http/schemas.js'
import { Password, User } from '../users/users.schemas.js'

/** The most sign-up tokens live at once (enabled and not expired). */
export const MAX_LIVE_SIGNUP_TOKENS = 20
/** The most users one sign-up token may make. */
export const MAX_SIGNUPS_PER_TOKEN = 1000

export const SignupTokenParams = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$', description: 'The secret of the sign-up token' }),
})

export const NewSignupToken = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Shown to Admins only' }),
    expiresAt: Type.String({ format: 'date-time', description: 'A future instant; one later than a month from now is brought back to a month from now (as Unleash)' }),
  },
  { additionalProperties: false }
)

export const SignupTokenUpdate = Type.Object(
  {
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'Brought back to a month from now at most; a past instant ends the token' })),
    enabled: Type.Optional(Type.Boolean({ description: 'false: the link stops working (there is no delete, as in Unleash)' })),
  },
  { additionalProperties: false, description: 'At least one of expiresAt and enabled' }
)

export const SignupToken = Type.Object({
  secret: Type.String({ description: 'The token, as it appears in its link' }),
  url: Nullable(Type.String({ description: 'UNLEASH_URL/new-user?invite=<secret>: the link to hand on' })),
  name: Type.String(),
  enabled: Type.Boolean({ description: 'Whether the link works now: false once disabled or expired' }),
  expiresAt: Timestamp,
  createdAt: Timestamp,
  createdBy: Nullable(Type.String()),
  users: Nullable(Type.Array(User, { description: 'Who signed up with it' })),
  role: Type.Object({ id: Type.Integer(), type: Type.String(), name: Type.String(), description: Type.String() }, { description: 'The root role of users who sign up with it (Viewer, as Unleash)' }),
})

export const SignupTokens = Type.Object({ tokens: Type.Array(SignupToken) })

export const InvitedUser = Type.Object(
  {
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[^@\\s]+$', description: 'Unique, without case; no @ and no spaces' })),
    email: Type.String({ minLength: 3, maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$', description: 'Unique, without case' }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    password: Password('At least 10 characters, not a common password, not the username or email'),
  },
  { additionalProperties: false }
)
