import { expect } from 'vitest'
import { type ApiError, RuleError } from '../../src/errors.js'

/** The 400 a rule raises, rooted as a route roots its document (`/variants` after a patch). */
export function refusal (fn: () => unknown, root = '/variants'): ApiError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(RuleError)
    return (error as RuleError).toApiError(root)
  }
  throw new Error('expected a refusal')
}
