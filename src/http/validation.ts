import type { ErrorObject } from 'ajv'
import type { FastifySchemaCompiler } from 'fastify'
import type { ErrorDetail } from '../errors.js'
import { ajvProblems, strictAjv, textAjv } from '../validation.js'

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strictAjv : textAjv).compile(schema)

/** Fastify's validation errors as details whose path points into the request (`/body/0/op`). */
export function ajvErrorDetails (errors: ErrorObject[], root: string): ErrorDetail[] {
  return ajvProblems(errors).map((p) => ({
    path: root + (p.at ?? ''),
    message: p.describe(root + (p.at ?? '')),
  }))
}
