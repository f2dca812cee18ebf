import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { ApiError } from '../errors.js'

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
        errors: [503],
        response: { 200: Type.Object({ status: Type.Literal('ready') }) },
      },
    },
    async () => {
      if (app.draining) throw new ApiError('ServiceUnavailableError', 'Shutting down')
      try {
        await db.selectNoFrom((eb) => eb.val(1).as('one')).execute()
      } catch {
        throw new ApiError('ServiceUnavailableError', 'The database is not reachable')
      }
      return { status: 'ready' as const }
    }
  )
}
