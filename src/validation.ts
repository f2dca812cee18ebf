import { Ajv, type ErrorObject } from 'ajv'
import { problemAt, type RuleProblem } from './errors.js'

/**
 * Bodies are validated exactly as sent: no coercion ("10" is not a number), no stripping of
 * unknown properties (a closed schema refuses them), no defaults written into the request.
 */
export const strictAjv = new Ajv({
  coerceTypes: false,
  removeAdditional: false,
  useDefaults: false,
  allErrors: false,
  strict: false,
})

/** Path parameters and query strings arrive as text, so they are coerced as Fastify does by default. */
export const textAjv = new Ajv({
  coerceTypes: 'array',
  removeAdditional: true,
  useDefaults: true,
  allErrors: false,
  strict: false,
})

/** Ajv errors as problems placed at the offending member, below `base`. */
export function ajvProblems (errors: ErrorObject[], base = ''): RuleProblem[] {
  return errors
    .filter((e) => e.keyword !== 'if')
    .map((e) => {
      let at = `${base}${e.instancePath}`
      let text = e.message ?? 'is invalid'
      if (e.keyword === 'required') {
        at = `${at}/${e.params.missingProperty}`
        text = 'is required'
      } else if (e.keyword === 'additionalProperties') {
        at = `${at}/${e.params.additionalProperty}`
        text = 'is not an allowed property'
      } else if (e.keyword === 'enum') {
        text = `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`
      }
      return problemAt(at, text)
    })
}
