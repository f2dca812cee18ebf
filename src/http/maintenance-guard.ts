import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from '../errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `open`: served while maintenance mode is on although its method writes: the switch
     * itself, signing in and out, and POSTs that change nothing (validations, exports).
     */
    maintenance?: 'open'
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** The SDK APIs: evaluations (POSTs that read) and usage reports, which change nothing people configured. */
const SDK_ACCESS = new Set<string | undefined>(['client', 'frontend'])

export const maintenanceRefusal = () =>
  new ApiError(
    'MaintenanceModeError',
    'Maintenance mode is on: changes are refused until an Admin turns it off (POST /api/admin/maintenance {"enabled": false}); reads, SDKs and signing in work'
  )

/**
 * Maintenance mode: while `on()` says so, every write is refused with 503 MaintenanceModeError
 * (never ServiceUnavailableError, which means the database is unreachable). A write is a
 * request with POST, PUT, PATCH or DELETE to a route of this server, but the SDK APIs' (client
 * and frontend access) and the routes marked `config.maintenance: 'open'`; an unknown path (404)
 * or a method its path lacks (405) answers as ever. Decided after
 * authentication (a caller without credentials gets its 401, and learns nothing), before the
 * body is read. `on()` answers from memory: a write pays one lookup.
 */
async function guard (app: FastifyInstance, { on }: { on: () => boolean }) {
  // A callback hook: no promise per request.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!WRITES.has(request.method) || !on()) return done()
    const config = request.routeOptions.config
    // No route (404) and a method the path lacks (405) answer as ever.
    if (request.routeOptions.url === undefined || config.methodNotAllowed === true) return done()
    if (config.maintenance === 'open' || SDK_ACCESS.has(config.access)) return done()
    done(maintenanceRefusal())
  })
}

export const maintenanceGuard = fp(guard, { name: 'maintenance-guard', dependencies: ['auth'] })
