// OpenID Connect's names that the server and the UI both use.

/** The algorithms an identity provider may sign ID tokens with: asymmetric only (never none, never an HMAC). */
export const ID_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'] as const
export type IdTokenAlgorithm = (typeof ID_TOKEN_ALGORITHMS)[number]

/** The environment variable that fixes each OpenID Connect setting (GitOps): OIDC_ and the field in upper snake case. */
export const OIDC_VARIABLES = {
  enabled: 'OIDC_ENABLED',
  discoverUrl: 'OIDC_DISCOVER_URL',
  clientId: 'OIDC_CLIENT_ID',
  secret: 'OIDC_CLIENT_SECRET',
  autoCreate: 'OIDC_AUTO_CREATE',
  defaultRootRole: 'OIDC_DEFAULT_ROOT_ROLE',
  emailDomains: 'OIDC_EMAIL_DOMAINS',
  enablePkce: 'OIDC_ENABLE_PKCE',
  enableSingleSignOut: 'OIDC_ENABLE_SINGLE_SIGN_OUT',
  enableGroupSyncing: 'OIDC_ENABLE_GROUP_SYNCING',
  groupJsonPath: 'OIDC_GROUP_JSON_PATH',
  addGroupsScope: 'OIDC_ADD_GROUPS_SCOPE',
  idTokenSigningAlgorithm: 'OIDC_ID_TOKEN_SIGNING_ALGORITHM',
  acrValues: 'OIDC_ACR_VALUES',
} as const
export type OidcField = keyof typeof OIDC_VARIABLES

/**
 * Why a browser's single sign-on did not complete, as the sign-in screen says it
 * (`/login?sso=<reason>`): a fixed list, so that nothing a request carries is shown on the page.
 */
export const SIGN_IN_PROBLEMS = {
  unavailable: 'The identity provider did not answer. Try again later, or sign in with a password.',
  refused: 'Single sign-on did not complete: the sign-in was refused, used already or took too long. Try again.',
  'not-allowed': 'Your account may not sign in here (its email domain, or no user with its email). Ask an administrator.',
  busy: 'Too many sign-ins are under way. Try again in a minute.',
  off: 'Single sign-on is turned off. Sign in with a password.',
} as const
export type SignInProblem = keyof typeof SIGN_IN_PROBLEMS
