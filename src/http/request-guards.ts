import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { invalidField } from '../errors.js'
import { readJsonBody } from './body-reader.js'
import { decodeContentEncoding } from './content-encoding.js'
import { unstorable } from './json-body.js'

/** Refuses a query or path value the database could not store, naming it (`/query/type`). */
function checkTextValues (values: unknown, root: string): void {
  if (typeof values !== 'object' || values === null) return
  for (const name in values) {
    const value = (values as Record<string, unknown>)[name]
    for (const text of Array.isArray(value) ? value : [value]) {
      const why = typeof text === 'string' ? unstorable(text) : undefined
      if (why) throw invalidField(`${root}/${name}`, why)
    }
  }
}

/**
 * What every request body, query and path must be before a handler sees it: bodies are decoded
 * as their Content-Encoding says (decodeContentEncoding), and are JSON (application/json or
 * application/json-patch+json; anything else is 415), read, bounded and checked by readJsonBody
 * (an empty one is fine on a route that takes none); query and path values hold no NUL or lone
 * surrogate. Runs after authentication, so a client without a token learns nothing from these
 * answers.
 */
export const requestGuardsPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('preParsing', decodeContentEncoding)
    app.removeAllContentTypeParsers()
    app.addContentTypeParser(['application/json', 'application/json-patch+json'], readJsonBody)
    // A callback hook: no promise per request.
    app.addHook('preValidation', (request, reply, done) => {
      try {
        checkTextValues(request.params, '/params')
        checkTextValues(request.query, '/query')
      } catch (error) {
        return done(error as Error)
      }
      done()
    })
  },
  { name: 'request-guards' }
)
