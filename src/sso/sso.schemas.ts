import { Type } from '@sinclair/typebox'
import { ID_TOKEN_ALGORITHMS, OIDC_VARIABLES } from '../vocabulary/oidc.js'
import { QueryText, StringEnum } from '../http/schemas.js'
import { ROOT_ROLES } from '../vocabulary/roles.js'

const Text = (maxLength: number, description: string) => Type.String({ maxLength, description })

/**
 * A save of the OpenID Connect settings, in Unleash Enterprise's shape (oidcSettingsSchema).
 * Every field is optional: those sent are set, the others keep their value.
 */
export const OidcSettingsBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'Sign-in with OpenID Connect on or off; on needs discoverUrl, clientId and secret, and a provider that answers' })),
    discoverUrl: Type.Optional(Text(2000, 'The provider\'s discovery document, e.g. https://idp.example.com/.well-known/openid-configuration (http:// only for a provider on a private network: logged as a warning)')),
    clientId: Type.Optional(Text(1000, 'The client id registered at the provider')),
    secret: Type.Optional(Text(10_000, 'The client secret: write-only. Absent, or the mask GET shows: the stored secret stays')),
    autoCreate: Type.Optional(Type.Boolean({ description: 'Create a user at their first sign-in, with defaultRootRole' })),
    defaultRootRole: Type.Optional(StringEnum(ROOT_ROLES, { description: 'The root role of users created at sign-in' })),
    defaultRootRoleId: Type.Optional(Type.Unsafe<number>({ type: 'integer', enum: [1, 2, 3], description: 'Unleash\'s id of defaultRootRole (Admin 1, Editor 2, Viewer 3); wins over defaultRootRole' })),
    emailDomains: Type.Optional(Text(10_000, 'Comma-separated email domains that may sign in (empty: any)')),
    enableSingleSignOut: Type.Optional(Type.Boolean({ description: 'Logging out also ends the provider\'s session (its end_session_endpoint)' })),
    enableGroupSyncing: Type.Optional(Type.Boolean({ description: 'At every sign-in, put the user in the groups whose mappingsSSO hold a name of the claim at groupJsonPath, and out of those group syncing put them in that no longer match' })),
    groupJsonPath: Type.Optional(Text(200, 'Where the group names are in the ID token: groups, realm_access.roles, $.groups, $[\'https://example.com/groups\']')),
    addGroupsScope: Type.Optional(Type.Boolean({ description: 'Also ask for the groups scope' })),
    idTokenSigningAlgorithm: Type.Optional(StringEnum(ID_TOKEN_ALGORITHMS, { description: 'The one algorithm ID tokens may be signed with (never none or an HMAC)' })),
    acrValues: Type.Optional(Text(1000, 'acr_values sent to the provider, separated by spaces')),
    enablePkce: Type.Optional(Type.Boolean({ description: 'Send a PKCE S256 challenge (the verifier stays on the server)' })),
  },
  { additionalProperties: false, description: 'OpenID Connect settings (Unleash\'s oidcSettingsSchema); only the fields sent change' }
)

const Locked = Type.Object(
  Object.fromEntries(Object.entries(OIDC_VARIABLES).map(([field, variable]) => [field, Type.Optional(Type.Literal(variable))])),
  { additionalProperties: false, description: 'The fields an environment variable fixes, each with the variable\'s name: shown, not changeable through the API (409)' }
)

export const OidcSettingsResponse = Type.Object(
  {
    enabled: Type.Boolean(),
    discoverUrl: Type.String(),
    clientId: Type.String(),
    secret: Type.Optional(Type.Literal('********', { description: 'Present when a secret is stored; never the secret' })),
    autoCreate: Type.Boolean(),
    defaultRootRole: StringEnum(ROOT_ROLES),
    defaultRootRoleId: Type.Integer({ description: 'Admin 1, Editor 2, Viewer 3' }),
    emailDomains: Type.String(),
    enableSingleSignOut: Type.Boolean(),
    enableGroupSyncing: Type.Boolean(),
    groupJsonPath: Type.String(),
    addGroupsScope: Type.Boolean(),
    idTokenSigningAlgorithm: StringEnum(ID_TOKEN_ALGORITHMS),
    acrValues: Type.String(),
    enablePkce: Type.Boolean(),
    lockedBy: Locked,
  },
  { description: 'The OpenID Connect settings in effect: the defaults, what was saved, and what environment variables fix' }
)

export const PasswordAuth = Type.Object(
  { disabled: Type.Boolean({ description: 'Password login off (only while OpenID Connect sign-in is on); the break-glass admin (UNLEASH_DEFAULT_ADMIN_USERNAME) may still use one' }) },
  { additionalProperties: false, description: 'Unleash\'s passwordAuthSchema' }
)

export const LoginQuery = Type.Object({
  redirect: Type.Optional(QueryText({ maxLength: 2000, description: 'A path on this server to land on after signing in (e.g. /projects/default); anything else lands on /' })),
})

/** What the provider sends back (RFC 6749, RFC 9207); other members are ignored. */
export const CallbackQuery = Type.Object({
  code: Type.Optional(QueryText({ maxLength: 4096, description: 'The authorization code (never logged)' })),
  state: Type.Optional(QueryText({ maxLength: 1000, description: 'The state of the login this browser started' })),
  iss: Type.Optional(QueryText({ maxLength: 2000, description: 'The provider (RFC 9207)' })),
  error: Type.Optional(QueryText({ maxLength: 1000, description: 'The provider\'s refusal' })),
  error_description: Type.Optional(QueryText({ maxLength: 4096, description: 'Not shown' })),
})
