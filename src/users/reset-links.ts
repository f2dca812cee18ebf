import { randomBytes } from 'node:crypto'
import { ApiError } from '../errors.js'
import type { Change } from '../events/events.service.js'
import { liveTokenAge, replaceResetToken, type ResetKind, resetTokenHash } from './reset-tokens.store.js'

/** Where each kind of link leads: the pages of the admin UI that set a password (Unleash's paths). */
const PAGES: Record<ResetKind, string> = { reset: '/reset-password', invite: '/new-user' }

/** A link lives this long (as Unleash's). */
export const RESET_TTL_MS = 24 * 3_600_000
/** At most one new link per user in this time (as Unleash's). */
export const RESET_INTERVAL_MS = 60_000

/**
 * A new link for a user in a caller's change, replacing any other of theirs: 429 when their
 * last one is younger than RESET_INTERVAL_MS. Returns the URL on `base` (the token appears only
 * there: only its SHA-256 is stored).
 */
export async function addResetLink (change: Change, userId: number, kind: ResetKind, base: string, createdBy: string): Promise<string> {
  const token = randomBytes(32).toString('base64url')
  const age = await liveTokenAge(change.trx, userId)
  if (age !== undefined && age < RESET_INTERVAL_MS) {
    throw new ApiError('TooManyRequestsError', 'A link for this user was made less than a minute ago: one new link per user per minute', undefined, {
      'retry-after': String(Math.max(1, Math.ceil((RESET_INTERVAL_MS - age) / 1000))),
    })
  }
  await replaceResetToken(change.trx, { hash: resetTokenHash(token), userId, kind, createdBy, ttlMs: RESET_TTL_MS })
  return `${base}${PAGES[kind]}?token=${token}`
}

/** Where links to this server's pages point: UNLEASH_URL, else the request's own origin. */
export const linkBase = (publicUrl: string | undefined, request: { protocol: string; host: string }) => publicUrl ?? `${request.protocol}://${request.host}`
