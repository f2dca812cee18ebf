/**
 * Signing in with OpenID Connect: the login sent to the provider (state, nonce, PKCE), the
 * browser's return (the code exchanged, the ID token checked, the user found or created, groups
 * synced, the session opened), and single sign-out. The state is bound to the browser that
 * started the login by a random value in a SameSite=Lax cookie, of which only a hash is kept;
 * the nonce and the PKCE verifier stay on the server; each login is used once.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import * as client from 'openid-client'
import { ApiError, notFound, permissionDenied } from '../errors.js'
import { writeChange } from '../events/events.service.js'
import type { Author } from '../events/events.schemas.js'
import { syncUserGroups } from '../groups/groups.service.js'
import { addressKey } from '../users/login-limits.js'
import { openSession } from '../users/sessions.service.js'
import { sessionHash } from '../users/sessions.store.js'
import { addUserIn } from '../users/users.service.js'
import { findLogin } from '../users/users.store.js'
import { groupsAt } from './group-claims.js'
import { CLOCK_TOLERANCE_S, DiscoveryProblem } from './identity-provider.js'
import { domainAllowed, emailDomainsOf, type OidcSettings } from './oidc-settings.js'
import { landingPath } from './redirects.js'
import type { SsoContext } from './settings.service.js'
import { countLogins, insertLogin, isSsoSession, markSsoSession, takeLogin } from './sso.store.js'

/** A login not back within this is refused (and its row removed). */
export const LOGIN_TTL_MS = 600_000
/** Logins under way, in all and per source address: more wait (429), so that the table stays small. */
const MAX_LOGINS = 10_000
const MAX_LOGINS_PER_ADDRESS = 30

export const CALLBACK_PATH = '/auth/oidc/callback'
/** Where the provider sends the browser after single sign-out. */
const SIGNED_OUT = '/signed-out'

/** Who group syncing and a user's creation at sign-in are recorded as (Unleash's name). */
const SSO_AUTHOR: Author = { name: 'SSO' }

const EMAIL = /^[^@\s]+@[^@\s]+$/
const MAX_EMAIL_LENGTH = 254

const hashOf = (binding: string) => createHash('sha256').update(binding).digest('hex')

/** The server's address as people reach it: UNLEASH_URL, else the request's own origin. */
export const publicOrigin = (ctx: Pick<SsoContext, 'publicUrl'>, requestOrigin: string) => ctx.publicUrl ?? requestOrigin

const refused = (message: string) => new ApiError('SignInError', message)

/** The settings in effect, or 404 when single sign-on is off. */
async function enabledSettings (ctx: SsoContext): Promise<OidcSettings> {
  const { oidc } = await ctx.signIn.current()
  if (!oidc.enabled) throw notFound('Sign-in with OpenID Connect is not enabled')
  return oidc
}

/**
 * Starts a login: checks the provider is there (502 naming why not), bounds the logins under
 * way (429), keeps state, nonce, PKCE verifier and landing path under the hash of a new
 * browser binding (the browser's unfinished login, if any, is forgotten), and answers where to
 * send the browser (the authorization endpoint, with `openid email` and `groups` when asked)
 * and the binding for its cookie.
 */
export async function startLogin (ctx: SsoContext, input: { redirect?: string; previousBinding?: string; ip: string; origin: string }) {
  const settings = await enabledSettings(ctx)
  const config = await ctx.providers.configuration(settings)
  if (input.previousBinding !== undefined) await takeLogin(ctx.db, hashOf(input.previousBinding))
  const address = addressKey(input.ip).key
  const under = await countLogins(ctx.db, address)
  if (under.address >= MAX_LOGINS_PER_ADDRESS || under.all >= MAX_LOGINS) {
    throw new ApiError('TooManyRequestsError', 'Too many sign-ins under way; try again in a minute', undefined, { 'retry-after': '60' })
  }
  const binding = randomBytes(32).toString('base64url')
  const state = client.randomState()
  const nonce = client.randomNonce()
  const verifier = settings.enablePkce ? client.randomPKCECodeVerifier() : undefined
  await insertLogin(ctx.db, { bindingHash: hashOf(binding), state, nonce, codeVerifier: verifier, redirect: landingPath(input.redirect), addressKey: address, ttlMs: LOGIN_TTL_MS })
  const url = client.buildAuthorizationUrl(config, {
    response_type: 'code',
    redirect_uri: `${publicOrigin(ctx, input.origin)}${CALLBACK_PATH}`,
    scope: settings.addGroupsScope ? 'openid email groups' : 'openid email',
    state,
    nonce,
    ...(verifier !== undefined && { code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }),
    ...(settings.acrValues !== '' && { acr_values: settings.acrValues }),
  })
  return { location: url.href, binding }
}

/** Equal strings, compared in constant time. */
function same (a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)]
  return x.length === y.length && timingSafeEqual(x, y)
}

/** What went wrong with the provider's answer, as a refusal (never the code, a token or a claim's value). */
function refusalOf (error: unknown): unknown {
  if (error instanceof ApiError) return error
  if (error instanceof DiscoveryProblem) return new ApiError('IdentityProviderError', `The identity provider's answer was refused: it ${error.message}`)
  if (error instanceof TypeError || error instanceof DOMException) return new ApiError('IdentityProviderError', 'The identity provider did not answer; try again later')
  if (error instanceof client.ResponseBodyError) {
    return error.status >= 500
      ? new ApiError('IdentityProviderError', `The identity provider failed (HTTP ${error.status}); try again later`)
      : refused(`The identity provider did not accept the sign-in (${safeCode(error.error)}); start again`)
  }
  if (error instanceof client.AuthorizationResponseError) return refused(`The identity provider refused the sign-in (${safeCode(error.error)})`)
  if (error instanceof client.ClientError) {
    if (error.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || error.code === 'OAUTH_RESPONSE_IS_NOT_JSON') {
      return new ApiError('IdentityProviderError', 'The identity provider answered with something that is not OpenID Connect; try again later')
    }
    const why = error.cause instanceof Error && error.cause.message !== '' ? error.cause.message : error.message
    return refused(`The identity provider's answer failed a check: ${why}`)
  }
  return error
}

/** An OAuth error code as it may be shown: its own characters only, bounded. */
const safeCode = (code: unknown) => (typeof code === 'string' && /^[\x20-\x21\x23-\x5B\x5D-\x7E]{1,100}$/.test(code) ? code : 'unknown error')

/** The email and name of a checked ID token; the checks openid-client leaves to its caller. */
function identityOf (claims: client.IDToken, settings: OidcSettings) {
  if (claims.azp !== undefined && claims.azp !== settings.clientId) throw refused('The ID token was issued to another client (azp)')
  if (typeof claims.iat === 'number' && claims.iat > Date.now() / 1000 + CLOCK_TOLERANCE_S) throw refused('The ID token says it was issued in the future (iat)')
  const email = claims.email
  if (typeof email !== 'string' || email.length > MAX_EMAIL_LENGTH || !EMAIL.test(email)) {
    throw refused('The ID token holds no email address: ask the provider to put email (and email_verified) in the ID token')
  }
  // email_verified as OpenID Connect says; Microsoft Entra ID says it as xms_edov.
  const verified = claims.email_verified === true || claims.email_verified === 'true' || (claims.email_verified === undefined && claims.xms_edov === true)
  if (!verified) throw refused(`The identity provider does not say that ${email} is verified (email_verified)`)
  if (!domainAllowed(email, emailDomainsOf(settings.emailDomains))) throw permissionDenied(`${email} is not in an email domain allowed to sign in (emailDomains)`)
  const name = typeof claims.name === 'string' && claims.name.length > 0 && claims.name.length <= 200 ? claims.name : undefined
  return { email, name }
}

/**
 * Finishes a login when the browser comes back: the login this browser started (by its cookie;
 * used once, live for LOGIN_TTL_MS), the same state, the code exchanged at the provider and the
 * ID token checked (openid-client: signature, the one algorithm, iss, aud, azp, exp, nonce,
 * PKCE; here: azp with one audience, iat, a verified email, the email domains). Then, in one
 * change: the user by that email (created with defaultRootRole when autoCreate), their groups
 * synced from the claim at groupJsonPath, and a new session (the session the browser carried
 * ends), as a password login opens. Returns the session and the landing path.
 */
export async function finishLogin (ctx: SsoContext, input: { binding?: string; search: string; origin: string; previousSession?: string }) {
  if (input.binding === undefined) throw refused('This browser started no sign-in (its sign-in cookie is missing or expired); start again')
  const login = await takeLogin(ctx.db, hashOf(input.binding))
  if (!login || !login.live) throw refused('This sign-in was used already, or took longer than 10 minutes; start again')
  const params = new URLSearchParams(input.search)
  if (params.has('error')) throw refused(`The identity provider refused the sign-in (${safeCode(params.get('error'))})`)
  if (!same(params.get('state') ?? '', login.state)) throw refused('The state does not match the sign-in this browser started; start again')
  const settings = await enabledSettings(ctx)
  let claims: client.IDToken
  try {
    const config = await ctx.providers.configuration(settings)
    const tokens = await client.authorizationCodeGrant(config, new URL(`${publicOrigin(ctx, input.origin)}${CALLBACK_PATH}?${params}`), {
      expectedState: login.state,
      expectedNonce: login.nonce,
      idTokenExpected: true,
      ...(login.code_verifier !== null && { pkceCodeVerifier: login.code_verifier }),
    })
    claims = tokens.claims()!
  } catch (error) {
    throw refusalOf(error)
  }
  const identity = identityOf(claims, settings)
  const groups = settings.enableGroupSyncing ? groupsAt(claims, settings.groupJsonPath) : undefined
  let sessionId: string
  try {
    sessionId = await signIn(ctx, settings, identity, groups, input.previousSession)
  } catch (error) {
    // Two first sign-ins of one new user at once: the second finds the user the first created.
    if (!(error instanceof ApiError && error.errorName === 'NameExistsError')) throw error
    sessionId = await signIn(ctx, settings, identity, groups, input.previousSession)
  }
  return { sessionId, redirect: login.redirect }
}

async function signIn (ctx: SsoContext, settings: OidcSettings, identity: { email: string; name?: string }, groups: string[] | undefined, previous: string | undefined) {
  return writeChange(ctx.db, async (change) => {
    let userId = (await findLogin(change.trx, identity.email))?.id
    if (userId === undefined) {
      if (!settings.autoCreate) throw permissionDenied(`No user has the email ${identity.email}, and autoCreate is off: ask an Admin to create the user`)
      userId = (await addUserIn(change, { email: identity.email, name: identity.name, rootRole: settings.defaultRootRole }, SSO_AUTHOR)).id
    }
    if (groups !== undefined) await syncUserGroups(change, userId, groups, SSO_AUTHOR)
    const id = await openSession(change.trx, userId, ctx.sessions.maxAgeMs, previous)
    await markSsoSession(change.trx, sessionHash(id))
    return id
  })
}

/**
 * The origins the UI's sign-out form may end up on besides this server (its CSP form-action,
 * which also governs the form's redirects): with single sign-out on, the provider's sign-out
 * (end_session_endpoint, as discovered) and the discovery document's origin (where providers
 * keep it, before this instance has discovered it). Never asks the provider; nothing when the
 * settings cannot be read.
 */
export async function signOutOrigins (ctx: SsoContext): Promise<string[]> {
  let oidc
  try {
    ({ oidc } = await ctx.signIn.current())
  } catch {
    return []
  }
  if (!oidc.enabled || !oidc.enableSingleSignOut) return []
  const endSession = ctx.providers.known(oidc)?.serverMetadata().end_session_endpoint
  const origins = [endSession, oidc.discoverUrl].flatMap((address) => {
    if (address === undefined) return []
    try {
      const url = new URL(address)
      return url.protocol === 'https:' || url.protocol === 'http:' ? [url.origin] : []
    } catch {
      return []
    }
  })
  return [...new Set(origins)]
}

/**
 * Where a logging-out browser goes, asked before its session ends: the provider's
 * end_session_endpoint (with client_id and post_logout_redirect_uri /signed-out on UNLEASH_URL,
 * never the ID token, which no one keeps) when single sign-out is on and single sign-on opened
 * this session; otherwise undefined. A provider that cannot be reached then leaves the logout local.
 */
export async function signOutLocation (ctx: SsoContext, sessionId: string, requestOrigin: string): Promise<string | undefined> {
  const { oidc } = await ctx.signIn.current()
  if (!oidc.enabled || !oidc.enableSingleSignOut) return undefined
  if (!(await isSsoSession(ctx.db, sessionHash(sessionId)))) return undefined
  let config: client.Configuration
  try {
    config = await ctx.providers.configuration(oidc)
  } catch {
    return undefined
  }
  if (config.serverMetadata().end_session_endpoint === undefined) return undefined
  return client.buildEndSessionUrl(config, { client_id: oidc.clientId, post_logout_redirect_uri: `${publicOrigin(ctx, requestOrigin)}${SIGNED_OUT}` }).href
}
