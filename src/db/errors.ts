/** PostgreSQL error codes translated at the storage edge (same codes from pg and PGlite). */
const code = (error: unknown) =>
  typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined

export const isUniqueViolation = (error: unknown) => code(error) === '23505'
export const isForeignKeyViolation = (error: unknown) => code(error) === '23503'

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
])

/** True when the error means "the database cannot be reached", which the API answers with 503. */
export function isDatabaseUnavailable (error: unknown): boolean {
  const c = code(error)
  if (c !== undefined && (UNAVAILABLE_CODES.has(c) || c.startsWith('08'))) return true
  const message = error instanceof Error ? error.message : ''
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed/i.test(
    message
  )
}
