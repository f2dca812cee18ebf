import { hash, randomBytes } from 'node:crypto'
import { OLD_SECRET_PREFIX } from './tokens.schemas.js'

/** Secrets are random (or operator-chosen for INIT_ADMIN_API_TOKENS) and kept only as SHA-256. */
export const hashSecret = (secret: string) => hash('sha256', secret, 'hex')

/** One part of a secret's prefix: the one name, `*` for all, `[]` for several. */
const prefixPart = (names: readonly string[]) => (names.length === 1 ? names[0]! : '[]')

/**
 * A secret in Unleash's form, `project:environment.<random>`: the project when there is one,
 * `*` for all, `[]` for several; the same for the environment (an admin token for everything is
 * `*:*.<random>`, as Unleash's). The prefix only helps people tell secrets apart: a secret is
 * looked up by its hash, never read.
 */
export const generateSecret = (projects: readonly string[], environments: readonly string[]) =>
  `${prefixPart(projects)}:${prefixPart(environments)}.${randomBytes(24).toString('hex')}`

/**
 * Whether a value in `/api/admin/api-tokens/{token}` is read as a secret rather than as a token
 * name: it has a `:` (every secret made here, and Unleash's) or this server's older admin form.
 * Token names can have neither (the name pattern refuses `:` and the older prefix), so a value
 * is never both.
 */
export const hasSecretForm = (value: string) => value.includes(':') || value.startsWith(OLD_SECRET_PREFIX)

/** Expired at `now`: a token with an expiry that has passed authenticates nothing. */
export const hasExpired = (token: { expiresAt: Date | null }, now = Date.now()) =>
  token.expiresAt !== null && token.expiresAt.getTime() <= now

/** `Authorization: <secret>` or `Authorization: Bearer <secret>`, as Unleash. */
export function secretFromHeader (header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const value = header.trim()
  const bearer = /^bearer\s+/i.exec(value)
  const secret = bearer ? value.slice(bearer[0].length).trim() : value
  return secret.length > 0 ? secret : undefined
}
