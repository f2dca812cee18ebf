import pino, { type LoggerOptions } from 'pino'
import { redactUrl } from './config.js'

/**
 * Log options for the process and the app: no credentials in any line. Authorization headers
 * and connection strings are censored wherever they appear as members, and passwords inside
 * URLs are masked in error messages and stacks.
 */
export function loggerOptions (level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'databaseUrl', 'connectionString', 'password'],
      censor: '[redacted]',
    },
    serializers: {
      err: (error: Error) => {
        const out = pino.stdSerializers.err(error)
        out.message = redactUrl(out.message)
        out.stack = redactUrl(out.stack)
        return out
      },
    },
  }
}
