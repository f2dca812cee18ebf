import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { ApiError } from '../errors.js'
import { databaseReachable } from './health.service.js'

export const healthRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/health',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Operations'],
        operationId: 'getHealth',
        summary: 'The process is up (no token)',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const })
  )

  app.get(
    '/ready',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Operations'],
        operationId: 'getReady',
        summary: 'The database answers and the process is not shutting down (no token); 503 otherwise',
        description: 'Busy is not unready: while every database connection is in use and requests queue for one, this answers 200; only an unreachable database (or shutting down) is 503.',
        errors: [503],
        response: { 200: Type.Object({ status: Type.Literal('ready') }) },
      },
    },
    async () => {
      if (app.draining) throw new ApiError('ServiceUnavailableError', 'Shutting down')
      if (!(await databaseReachable(db))) throw new ApiError('ServiceUnavailableError', 'The database is not reachable')
      return { status: 'ready' as const }
    }
  )
}
