/** PostgreSQL error codes translated at the storage edge (same codes from pg and PGlite). */
const code = (error: unknown) =>
  typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined

export const isUniqueViolation = (error: unknown) => code(error) === '23505'
export const isForeignKeyViolation = (error: unknown) => code(error) === '23503'

/**
 * Connection failures, and only those: a protocol violation (08P01) is a defect of the
 * client, not an outage, so it is not here.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08003', // connection_does_not_exist
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  '08006', // connection_failure
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
])

/** True when the error means "the database cannot be reached", which the API answers with 503. */
export function isDatabaseUnavailable (error: unknown): boolean {
  const c = code(error)
  if (c !== undefined && UNAVAILABLE_CODES.has(c)) return true
  const message = error instanceof Error ? error.message : ''
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed/i.test(
    message
  )
}

/**
 * A value the database refused to hold (a NUL character, an encoding it cannot represent, an
 * escape jsonb rejects). Requests are checked for these before they get here; this is the
 * second line, so that such input is a 400 and never a 500.
 */
export const isUnstorableValue = (error: unknown) =>
  ['22021', '22P05'].includes(code(error) ?? '')
