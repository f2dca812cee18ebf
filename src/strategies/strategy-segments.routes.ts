import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Config } from '../config.js'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { responseHeader, UrlFriendly } from '../http/schemas.js'
import { Segment } from '../segments/segments.schemas.js'
import { segmentsOfStrategyFor, setStrategySegments } from './strategies.service.js'

type Options = { db: Database; config: Pick<Config, 'strategyLimits'> }

const StrategyId = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9-]+$', description: 'Strategy id' })

/**
 * A strategy's segments by the strategy's id alone, at Unleash's paths under /api/admin/segments
 * (its UI reads and sets them so). The strategy's own routes do the same under its feature.
 */
export const strategySegmentRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { db, config }) => {
  const maxSegments = config.strategyLimits.maxSegments
  const Body = Type.Object(
    {
      projectId: UrlFriendly('The project of the strategy'),
      environmentId: UrlFriendly('The environment of the strategy'),
      strategyId: StrategyId,
      segmentIds: Type.Array(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), {
        maxItems: maxSegments,
        uniqueItems: true,
        description: `The segments the strategy uses from now on (at most ${maxSegments}, MAX_SEGMENTS_PER_STRATEGY); the others it used are removed`,
      }),
    },
    { additionalProperties: false }
  )

  app.get(
    '/api/admin/segments/strategies/:strategyId',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Segments'],
        operationId: 'getSegmentsByStrategyId',
        summary: 'The segments a strategy uses',
        description: 'As Unleash: {segments}, by id; empty for a strategy that does not exist, or whose project or environment is outside the token\'s scope.',
        params: Type.Object({ strategyId: StrategyId }),
        errors: errorStatuses(400, 403),
        response: { 200: Type.Object({ segments: Type.Array(Segment) }) },
      },
    },
    async (request) => ({ segments: await segmentsOfStrategyFor(db, request.params.strategyId, request.token) })
  )

  app.post(
    '/api/admin/segments/strategies',
    {
      config: { access: 'token', role: 'editor', bodyScope: { project: 'projectId', environment: 'environmentId' } },
      schema: {
        tags: ['Segments'],
        operationId: 'updateFeatureStrategySegments',
        summary: "Set a strategy's segments",
        description: 'As Unleash: the strategy uses exactly these segments from now on; 201 with the body and a Location header. The project and environment of the body are checked as a path\'s would be: an Editor or Admin, a Member of that project, or a token whose scope covers both (403). Unlike Unleash, the strategy must be of that project and environment (404 otherwise), and the change is recorded (feature-strategy-update with the strategy before and after; the same segments again record nothing). Each segment must exist and be of no project or of this one (400 at /body/segmentIds/<index>); archived feature 409.',
        body: Body,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 201: { ...Body, headers: { location: responseHeader('strategies/<strategyId>', true) } } },
      },
    },
    async (request, reply) => {
      const { projectId, environmentId, strategyId, segmentIds } = request.body
      await setStrategySegments(db, { project: projectId, environment: environmentId, strategyId }, segmentIds, request.author)
      return reply.code(201).header('location', `strategies/${strategyId}`).send(request.body)
    }
  )
}
