import type { FastifySchemaCompiler } from 'fastify'
import { strictAjv, textAjv } from '../validation.js'

export { ajvErrorDetails } from '../validation.js'

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strictAjv : textAjv).compile(schema)
