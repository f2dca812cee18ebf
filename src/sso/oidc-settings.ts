/**
 * The OpenID Connect settings as rules over plain data: defaults, what the environment fixes,
 * what a save may change, what makes them usable. No I/O here; the service fetches and stores.
 */
import { type IdTokenAlgorithm, OIDC_VARIABLES, type OidcField } from '../config.js'
import { ApiError, badData, type ErrorDetail } from '../errors.js'
import { ROLE_IDS, type RootRoleName, rootRoleById } from '../vocabulary/roles.js'
import { groupPathProblem } from './group-claims.js'

export interface OidcSettings {
  enabled: boolean
  discoverUrl: string
  clientId: string
  secret: string
  autoCreate: boolean
  defaultRootRole: RootRoleName
  emailDomains: string
  enableSingleSignOut: boolean
  enableGroupSyncing: boolean
  groupJsonPath: string
  addGroupsScope: boolean
  idTokenSigningAlgorithm: IdTokenAlgorithm
  acrValues: string
  enablePkce: boolean
}

/** What GET answers before anything is saved (Unleash's defaults). */
export const OIDC_DEFAULTS: OidcSettings = {
  enabled: false,
  discoverUrl: '',
  clientId: '',
  secret: '',
  autoCreate: false,
  defaultRootRole: 'Viewer',
  emailDomains: '',
  enableSingleSignOut: false,
  enableGroupSyncing: false,
  groupJsonPath: '',
  addGroupsScope: false,
  idTokenSigningAlgorithm: 'RS256',
  acrValues: '',
  enablePkce: false,
}

/** What GET shows instead of a stored secret; sent back, it keeps the secret. */
export const SECRET_MASK = '********' as const

/** Root role ids, as Unleash's `defaultRootRoleId` names them. */

/** A save as sent: every field optional; `defaultRootRoleId` (Unleash's) wins over `defaultRootRole`. */
export type OidcSettingsChange = Partial<OidcSettings> & { defaultRootRoleId?: number }

/** Settings as stored: only what the API set (the environment's values are never stored). */
export type StoredOidcSettings = Partial<OidcSettings>

/** The settings in effect: the defaults, then what the API stored, then what the environment fixes. */
export const effectiveSettings = (stored: StoredOidcSettings, fixed: StoredOidcSettings): OidcSettings =>
  ({ ...OIDC_DEFAULTS, ...stored, ...fixed })

/** Field → the variable that fixes it, for the fields the environment sets. */
export const lockedFields = (fixed: StoredOidcSettings) =>
  Object.fromEntries(Object.keys(fixed).map((field) => [field, OIDC_VARIABLES[field as OidcField]])) as Partial<{ [F in OidcField]: (typeof OIDC_VARIABLES)[F] }>

/** The settings as GET shows them: the secret masked (absent when none), Unleash's role id beside the name, and which fields the environment fixes. */
export function settingsView (settings: OidcSettings, fixed: StoredOidcSettings) {
  const { secret, ...shown } = settings
  return {
    ...shown,
    ...(secret !== '' && { secret: SECRET_MASK }),
    defaultRootRoleId: ROLE_IDS[settings.defaultRootRole],
    lockedBy: lockedFields(fixed),
  }
}

/** What events record of the settings: never the secret, only whether there is one. */
export const settingsAudit = (settings: StoredOidcSettings) => {
  const { secret, ...rest } = settings
  return { ...rest, ...(secret !== undefined && { secret: secret === '' ? '' : SECRET_MASK }) }
}

/**
 * The change as fields to store: the mask and an absent secret keep the stored one, Unleash's
 * `defaultRootRoleId` becomes the role's name. A field the environment fixes may be sent only
 * with the value it has (Unleash's form sends every field back): another value is a 409
 * naming the variable.
 */
export function changedFields (change: OidcSettingsChange, fixed: StoredOidcSettings): StoredOidcSettings {
  const { defaultRootRoleId, ...fields } = change
  const wanted: StoredOidcSettings = { ...fields }
  if (defaultRootRoleId !== undefined) {
    const role = rootRoleById(defaultRootRoleId)
    if (role === undefined) throw badData(`defaultRootRoleId ${defaultRootRoleId} is not a root role (1 Admin, 2 Editor, 3 Viewer)`, [{ path: '/body/defaultRootRoleId', message: 'must be 1, 2 or 3' }])
    wanted.defaultRootRole = role
  }
  if (wanted.secret === SECRET_MASK) delete wanted.secret
  for (const [field, value] of Object.entries(wanted) as [OidcField, unknown][]) {
    if (field in fixed && (fixed as Record<string, unknown>)[field] !== value) {
      throw new ApiError('SettingLockedError', `${field} is set by the environment variable ${OIDC_VARIABLES[field]} and cannot be changed through the API`, [{ path: `/body/${field}`, message: `set by ${OIDC_VARIABLES[field]}` }])
    }
    if (field in fixed) delete (wanted as Record<string, unknown>)[field]
  }
  return wanted
}

/** The email domains of `emailDomains` (comma-separated), lower case, empty for none. */
export const emailDomainsOf = (text: string) =>
  text.split(',').map((d) => d.trim().toLowerCase()).filter((d) => d.length > 0)

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/
const ACR = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/
export const MAX_EMAIL_DOMAINS = 100

/** Whether an email's domain is one of `domains` (none: every domain). */
export function domainAllowed (email: string, domains: string[]): boolean {
  if (domains.length === 0) return true
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase()
  return domains.includes(domain)
}

/**
 * Every problem of settings that would be stored, each naming its field (the provider itself
 * is checked by the service, through discovery): URLs that are not http(s), email domains that
 * are not domains, a group path that cannot be read, what an enabled configuration lacks.
 */
export function settingsProblems (s: OidcSettings, fixed: StoredOidcSettings): ErrorDetail[] {
  const problems: ErrorDetail[] = []
  const at = (field: OidcField, message: string) => {
    const source = field in fixed ? ` (from ${OIDC_VARIABLES[field]})` : ''
    problems.push({ path: `/body/${field}`, message: `${field}${source} ${message}` })
  }
  if (s.discoverUrl !== '' && !isHttpUrl(s.discoverUrl)) at('discoverUrl', 'must be an http:// or https:// URL')
  const domains = emailDomainsOf(s.emailDomains)
  const bad = domains.filter((d) => !DOMAIN.test(d))
  if (bad.length > 0) at('emailDomains', `holds what is not a domain: ${bad.slice(0, 5).join(', ')}`)
  if (domains.length > MAX_EMAIL_DOMAINS) at('emailDomains', `holds more than ${MAX_EMAIL_DOMAINS} domains`)
  if (s.acrValues !== '' && !ACR.test(s.acrValues)) at('acrValues', 'must be values separated by single spaces')
  if (s.groupJsonPath !== '') {
    const why = groupPathProblem(s.groupJsonPath)
    if (why !== undefined) at('groupJsonPath', why)
  }
  if (s.enabled) {
    if (s.discoverUrl === '') at('discoverUrl', 'is required to enable OpenID Connect')
    if (s.clientId === '') at('clientId', 'is required to enable OpenID Connect')
    if (s.secret === '' && !s.enablePkce) at('secret', 'is required to enable OpenID Connect (only a public client with enablePkce may go without)')
    if (s.enableGroupSyncing && s.groupJsonPath === '') at('groupJsonPath', 'is required with enableGroupSyncing (for example groups)')
  }
  return problems
}

function isHttpUrl (text: string): boolean {
  try {
    const url = new URL(text)
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === ''
  } catch {
    return false
  }
}

/** What is wrong with the settings the environment fixes, each naming its variable (checked at start-up). */
export function fixedSettingsProblems (fixed: StoredOidcSettings): string[] {
  const syntax = settingsProblems({ ...OIDC_DEFAULTS, ...fixed, enabled: false }, fixed)
  return syntax.filter((p) => p.path !== undefined && p.path.slice('/body/'.length) in fixed).map((p) => `${OIDC_VARIABLES[p.path!.slice('/body/'.length) as OidcField]}: ${p.message}`)
}
