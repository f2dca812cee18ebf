import type { Database } from '../db/types.js'
import { ApiError, badData, type LoginHint } from '../errors.js'
import { writeChange } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { DiscoveryProblem, discover, type IdentityProviders } from './identity-provider.js'
import {
  changedFields,
  effectiveSettings,
  type OidcSettings,
  type OidcSettingsChange,
  settingsAudit,
  settingsProblems,
  settingsView,
  type StoredOidcSettings,
} from './oidc-settings.js'
import { lockSetting, OIDC_SETTINGS, PASSWORD_SETTINGS, readSettings, writeSetting } from './sso.store.js'

/** What single sign-on needs besides the database. */
export interface SsoContext {
  db: Database
  /** The OpenID Connect settings the environment fixes (OIDC_*): shown, never changed through the API. */
  fixed: StoredOidcSettings
  /** UNLEASH_URL without a trailing slash; undefined: the request's own origin. */
  publicUrl: string | undefined
  providers: IdentityProviders
  signIn: SignInSettings
  sessions: { maxAgeMs: number }
}

/**
 * Sign-in as configured: the OpenID Connect settings in effect, and whether password login is
 * off. Off only while OpenID Connect is on: turning it off (or OIDC_ENABLED=false) brings
 * password login back, so that no setting leaves people without a way in.
 */
export interface SignInState {
  oidc: OidcSettings
  passwordDisabled: boolean
}

const asObject = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : {}

/** The stored OpenID Connect settings: only the known fields (a stored document is ours, but is read defensively). */
const storedOidc = (value: unknown): StoredOidcSettings => asObject(value) as StoredOidcSettings
const passwordDisabledIn = (value: unknown) => asObject(value).disabled === true

/**
 * The sign-in settings, per instance, read at most once per `ttlMs` and again at once after any
 * committed change (app.ts makes the change feed call forget()): a 401 lists the login options
 * from here without a query, and every instance follows a save within the feed's delay.
 */
export class SignInSettings {
  #cached: { state: SignInState; at: number } | undefined
  #reading: Promise<SignInState> | undefined

  constructor (private readonly db: Database, private readonly fixed: StoredOidcSettings, private readonly ttlMs = 10_000) {}

  async current (): Promise<SignInState> {
    const cached = this.#cached
    if (cached && Date.now() - cached.at < this.ttlMs) return cached.state
    this.#reading ??= this.#read().finally(() => { this.#reading = undefined })
    return this.#reading
  }

  async #read (): Promise<SignInState> {
    const at = Date.now()
    const stored = await readSettings(this.db)
    const oidc = effectiveSettings(storedOidc(stored[OIDC_SETTINGS]), this.fixed)
    const state = { oidc, passwordDisabled: oidc.enabled && passwordDisabledIn(stored[PASSWORD_SETTINGS]) }
    this.#cached = { state, at }
    return state
  }

  forget (): void {
    this.#cached = undefined
  }

  /** The login hint of a 401 (Unleash's shape): password login hidden when off, single sign-on listed when on. */
  loginHint (): LoginHint | Promise<LoginHint> {
    const cached = this.#cached
    if (cached && Date.now() - cached.at < this.ttlMs) return hintOf(cached.state)
    return this.current().then(hintOf)
  }
}

/** The path of single sign-on, and what Unleash's sign-in button says. */
export const OIDC_LOGIN_PATH = '/auth/oidc/login'
const hintOf = (state: SignInState): LoginHint => ({
  type: 'password',
  path: '/auth/simple/login',
  defaultHidden: state.passwordDisabled,
  // Unleash's open-source server sends no options; Enterprise lists its sign-in methods.
  ...(state.oidc.enabled && { options: [{ type: 'oidc', message: 'Sign in with OpenID Connect', path: OIDC_LOGIN_PATH }] }),
})

export async function oidcSettings (ctx: SsoContext) {
  const stored = storedOidc((await readSettings(ctx.db))[OIDC_SETTINGS])
  return settingsView(effectiveSettings(stored, ctx.fixed), ctx.fixed)
}

/**
 * Saves OpenID Connect settings (the fields sent; the others keep their value): 409 for a field
 * an environment variable fixes, 400 naming every problem, and, when the result is enabled, the
 * provider's discovery document fetched and checked first (400 naming what is wrong with it),
 * so that nothing is half-saved and a saved configuration can sign people in. Records
 * setting-created or setting-updated (never the secret) when anything changed.
 */
export async function saveOidcSettings (ctx: SsoContext, change: OidcSettingsChange, author: Author, warn: (message: string, details: object) => void) {
  const wanted = changedFields(change, ctx.fixed)
  const check = async (stored: StoredOidcSettings) => {
    const candidate = effectiveSettings({ ...stored, ...wanted }, ctx.fixed)
    const problems = settingsProblems(candidate, ctx.fixed)
    if (problems.length > 0) throw badData(problems[0]!.message, problems)
    return candidate
  }
  const candidate = await check(storedOidc((await readSettings(ctx.db))[OIDC_SETTINGS]))
  if (candidate.enabled) {
    try {
      await discover(candidate)
    } catch (error) {
      if (!(error instanceof DiscoveryProblem)) throw error
      throw badData(`discoverUrl ${candidate.discoverUrl} ${error.message}`, [{ path: '/body/discoverUrl', message: `the discovery document ${error.message}` }])
    }
    if (new URL(candidate.discoverUrl).protocol === 'http:') warn('OpenID Connect discovery is on plain http: tokens and keys travel without TLS (only for a provider on a private network)', { discoverUrl: candidate.discoverUrl })
  }
  const saved = await writeChange(ctx.db, async ({ trx, record }) => {
    const found = await lockSetting(trx, OIDC_SETTINGS)
    const before = storedOidc(found)
    // A save that committed meanwhile: the rules hold for what is stored now too.
    await check(before)
    const after = { ...before, ...wanted }
    const same = Object.entries(wanted).every(([field, value]) => (before as Record<string, unknown>)[field] === value)
    if (same) return before
    await writeSetting(trx, OIDC_SETTINGS, after)
    const data = toJsonText({ id: OIDC_SETTINGS, ...settingsAudit(after) })
    if (found === undefined) record({ type: 'setting-created', createdBy: author, data })
    else record({ type: 'setting-updated', createdBy: author, data, preData: toJsonText({ id: OIDC_SETTINGS, ...settingsAudit(before) }) })
    return after
  })
  ctx.signIn.forget()
  return settingsView(effectiveSettings(saved, ctx.fixed), ctx.fixed)
}

export async function passwordSettings (ctx: SsoContext) {
  return { disabled: passwordDisabledIn((await readSettings(ctx.db))[PASSWORD_SETTINGS]) }
}

/**
 * Turns password login off or on (setting-created or setting-updated). Off only while single
 * sign-on is on, so that people keep a way in (the break-glass admin keeps theirs regardless).
 */
export async function savePasswordSettings (ctx: SsoContext, body: { disabled: boolean }, author: Author) {
  const saved = await writeChange(ctx.db, async ({ trx, record }) => {
    const found = await lockSetting(trx, PASSWORD_SETTINGS)
    if (body.disabled) {
      const oidc = effectiveSettings(storedOidc((await readSettings(trx))[OIDC_SETTINGS]), ctx.fixed)
      if (!oidc.enabled) {
        throw new ApiError('BadDataError', 'Password login can be turned off only while OpenID Connect sign-in is on (POST /api/admin/auth/oidc/settings): people would have no way in', [{ path: '/body/disabled', message: 'turn OpenID Connect on first' }])
      }
    }
    const before = passwordDisabledIn(found)
    if (found !== undefined && before === body.disabled) return before
    await writeSetting(trx, PASSWORD_SETTINGS, { disabled: body.disabled })
    const data = toJsonText({ id: PASSWORD_SETTINGS, disabled: body.disabled })
    if (found === undefined) record({ type: 'setting-created', createdBy: author, data })
    else record({ type: 'setting-updated', createdBy: author, data, preData: toJsonText({ id: PASSWORD_SETTINGS, disabled: before }) })
    return body.disabled
  })
  ctx.signIn.forget()
  return { disabled: saved }
}

/** Whether password login is off (for the password login's check). */
export const passwordLoginDisabled = async (ctx: Pick<SsoContext, 'signIn'>) => (await ctx.signIn.current()).passwordDisabled
