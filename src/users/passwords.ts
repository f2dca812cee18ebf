import { dictionary } from '@zxcvbn-ts/language-common'
import { badData } from '../errors.js'
import { MAX_PASSWORD_LENGTH } from './users.schemas.js'

export const MIN_PASSWORD_LENGTH = 10

let common: Set<string> | undefined

/**
 * The common-password list of zxcvbn-ts (about 49,000 passwords seen in breaches, maintained
 * with the package), compared without case. Loaded on first use.
 */
function commonPasswords (): Set<string> {
  common ??= new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()))
  return common
}

/**
 * Why a password may not be used, or undefined: at least MIN_PASSWORD_LENGTH characters (code
 * points), not a common password, and not the user's own username or email. The same rules at
 * creation, change and reset. The message never quotes the password.
 */
export function passwordProblem (password: string, user: { username?: string | null; email?: string | null } = {}): string | undefined {
  const length = [...password].length
  if (length < MIN_PASSWORD_LENGTH) return `The password must be at least ${MIN_PASSWORD_LENGTH} characters long`
  if (length > MAX_PASSWORD_LENGTH) return `The password must be at most ${MAX_PASSWORD_LENGTH} characters long`
  const lower = password.toLowerCase()
  if (commonPasswords().has(lower)) return 'The password is a common password (found in lists of breached passwords); choose another'
  for (const own of [user.username, user.email]) {
    if (own && lower === own.toLowerCase()) return 'The password must not be the username or email'
  }
  return undefined
}

/** 400 naming the rule the password breaks, with the place of the password in the body. */
export function checkPassword (password: string, user: { username?: string | null; email?: string | null } = {}, path = '/body/password'): void {
  const problem = passwordProblem(password, user)
  if (problem) throw badData(problem, [{ path, message: problem }])
}
