import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply } from '../http/schemas.js'
import { type ConstraintLimits, constraintSchema } from '../constraints/constraints.schemas.js'
import { validateConstraint } from './constraint-check.service.js'

export const constraintRoutes: FastifyPluginAsyncTypebox<{ db: Database; limits: ConstraintLimits }> = async (app, { db, limits }) => {
  app.post(
    '/api/admin/constraints/validate',
    {
      config: { access: 'token', role: 'viewer', documentRoots: { constraint: '/body' }, maintenance: 'open' },
      schema: {
        tags: ['Features'],
        operationId: 'validateConstraint',
        summary: 'Whether a constraint is valid: 204, or 400 naming the rule it breaks',
        description:
          "As Unleash: the rules a strategy's constraint must meet (operator, values, formats, REGEX), and, when its context field has legal values, only those. Stores nothing.",
        body: constraintSchema(limits),
        errors: errorStatuses(400, 403, 413, 415),
        response: { 204: EmptyReply },
      },
    },
    async (request, reply) => {
      await validateConstraint(db, request.body, limits)
      return reply.code(204).send()
    }
  )
}
