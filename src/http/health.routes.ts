import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { ApiError } from '../errors.js'
import { databaseReachable } from './health.service.js'

/** Unleash's healthCheckSchema: `{health: "GOOD"}` and nothing else (a failure is a status, never BAD). */
const Health = Type.Object({ health: Type.Literal('GOOD') }, { additionalProperties: false })

export const healthRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/health',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Operations'],
        operationId: 'getHealth',
        summary: 'The process is up (no token)',
        description: 'Answers {"health": "GOOD"}, as Unleash. Asks nothing of the database.',
        response: { 200: Health },
      },
    },
    async () => ({ health: 'GOOD' as const })
  )

  app.get(
    '/ready',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Operations'],
        operationId: 'getReady',
        summary: 'The database answers and the process is not shutting down (no token); 503 otherwise',
        description: 'Answers {"health": "GOOD"}, as Unleash. Busy is not unready: while every database connection is in use and requests queue for one, this answers 200; only an unreachable database (or shutting down) is 503.',
        errors: [503],
        response: { 200: Health },
      },
    },
    async () => {
      if (app.draining) throw new ApiError('ServiceUnavailableError', 'Shutting down')
      if (!(await databaseReachable(db))) throw new ApiError('ServiceUnavailableError', 'The database is not reachable')
      return { health: 'GOOD' as const }
    }
  )
}
