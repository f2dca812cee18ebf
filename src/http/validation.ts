import { Ajv, type ErrorObject } from 'ajv'
import type { FastifySchemaCompiler } from 'fastify'
import type { ErrorDetail } from '../errors.js'

/**
 * Bodies are validated exactly as sent: no coercion ("10" is not a number), no stripping of
 * unknown properties (a closed schema refuses them), no defaults written into the request.
 */
export const bodyAjv = new Ajv({
  coerceTypes: false,
  removeAdditional: false,
  useDefaults: false,
  allErrors: false,
  strict: false,
})

/** Path parameters and query strings arrive as text, so they are coerced as Fastify does by default. */
const textAjv = new Ajv({
  coerceTypes: 'array',
  removeAdditional: true,
  useDefaults: true,
  allErrors: false,
  strict: false,
})

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema)

/** Turns Ajv errors into error details whose path points at the offending member. */
export function ajvErrorDetails (errors: ErrorObject[], prefix: string): ErrorDetail[] {
  return errors
    .filter((e) => e.keyword !== 'if')
    .map((e) => {
      let path = `${prefix}${e.instancePath}`
      let message = e.message ?? 'is invalid'
      if (e.keyword === 'required') {
        path = `${path}/${e.params.missingProperty}`
        message = 'is required'
      } else if (e.keyword === 'additionalProperties') {
        path = `${path}/${e.params.additionalProperty}`
        message = 'is not an allowed property'
      } else if (e.keyword === 'enum') {
        message = `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`
      }
      return { path, message: `${path} ${message}` }
    })
}
