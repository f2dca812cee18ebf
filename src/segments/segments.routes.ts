import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Config } from '../config.js'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, responseHeader } from '../http/schemas.js'
import { ListedSegment, Segment, SegmentParams, SegmentUse, updateSegmentSchema, upsertSegmentSchema } from './segments.schemas.js'
import { changeSegment, checkSegmentName, createSegment, removeSegment, segment, segments, strategiesUsing } from './segments.service.js'

type Options = { db: Database; config: Pick<Config, 'strategyLimits' | 'maxSegmentValues'> }

const SCOPE =
  'A segment of a project (project set) is seen by tokens of that project and can only be used by strategies there; a segment of no project is seen by every token. Managing segments needs a */* token.'

export const segmentRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { db, config }) => {
  const rules = { limits: config.strategyLimits, maxValues: config.maxSegmentValues }
  const body = upsertSegmentSchema(rules.limits, rules.maxValues)
  const update = updateSegmentSchema(rules.limits, rules.maxValues)

  app.get(
    '/api/admin/segments',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Segments'],
        operationId: 'getSegments',
        summary: 'Segments, by name',
        description: SCOPE,
        errors: errorStatuses(403),
        response: { 200: Type.Object({ segments: Type.Array(ListedSegment) }) },
      },
    },
    async (request) => ({ segments: await segments(db, request.token) })
  )

  app.post(
    '/api/admin/segments',
    {
      config: { access: 'admin', role: 'editor', documentRoots: { segment: '/body' } },
      schema: {
        tags: ['Segments'],
        operationId: 'createSegment',
        summary: 'Create a segment: a named set of constraints strategies can share',
        description: `As Unleash: 201 with the segment and a Location header; 409 when the name is taken. Constraints are validated as a strategy's; at most MAX_SEGMENT_VALUES (${rules.maxValues}) values in all. Records segment-created. ${SCOPE}`,
        body,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 201: { ...Segment, headers: { location: responseHeader('segments/<id>', true) } } },
      },
    },
    async (request, reply) => {
      const created = await createSegment(db, request.body, rules, request.author)
      return reply.code(201).header('location', `segments/${created.id}`).send(created)
    }
  )

  app.post(
    '/api/admin/segments/validate',
    {
      config: { access: 'admin', role: 'editor', maintenance: 'open' },
      schema: {
        tags: ['Segments'],
        operationId: 'validateSegment',
        summary: 'Whether a segment name is free: 204, or 409 when taken',
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 204: EmptyReply },
      },
    },
    async (request, reply) => {
      await checkSegmentName(db, request.body.name)
      return reply.code(204).send()
    }
  )

  app.get(
    '/api/admin/segments/:id',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Segments'],
        operationId: 'getSegment',
        summary: 'One segment',
        params: SegmentParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Segment },
      },
    },
    async (request) => segment(db, request.params.id, request.token)
  )

  app.put(
    '/api/admin/segments/:id',
    {
      config: { access: 'admin', role: 'editor', guard: 'segment', documentRoots: { segment: '/body' } },
      schema: {
        tags: ['Segments'],
        operationId: 'updateSegment',
        summary: 'Replace a segment',
        description: `As Unleash: 204 with no body; project left out means no project; an id, if sent, must be the path's (400 otherwise). Its project cannot become one that excludes strategies already using it (400 naming their projects). Records segment-updated with data and preData; every SDK's ETag moves. ${SCOPE}`,
        params: SegmentParams,
        body: update,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 204: EmptyReply },
      },
    },
    async (request, reply) => {
      await changeSegment(db, request.params.id, request.body, rules, request.author)
      return reply.code(204).send()
    }
  )

  app.delete(
    '/api/admin/segments/:id',
    {
      config: { access: 'admin', role: 'editor', guard: 'segment' },
      schema: {
        tags: ['Segments'],
        operationId: 'removeSegment',
        summary: 'Delete a segment no strategy uses',
        description:
          'As Unleash: 204 with no body; a segment that strategies of features not archived use is a 409 naming where; strategies of archived features lose it (a revived feature no longer has it). Records segment-deleted.',
        params: SegmentParams,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 204: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeSegment(db, request.params.id, request.author)
      return reply.code(204).send()
    }
  )

  app.get(
    '/api/admin/segments/:id/strategies',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Segments'],
        operationId: 'getStrategiesBySegmentId',
        summary: 'Where a segment is used',
        description: "The strategies that use it (of the token's projects), archived features included.",
        params: SegmentParams,
        errors: errorStatuses(400, 403, 404),
        response: {
          200: Type.Object({
            strategies: Type.Array(SegmentUse),
            changeRequestStrategies: Type.Array(Type.Unknown(), { maxItems: 0, description: 'Always empty (no change requests here)' }),
          }),
        },
      },
    },
    async (request) => ({ strategies: await strategiesUsing(db, request.params.id, request.token), changeRequestStrategies: [] })
  )
}
