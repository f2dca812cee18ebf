import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, responseHeader, UrlFriendly } from '../http/schemas.js'
import { SegmentUse } from '../segments/segments.schemas.js'
import { ContextField, ContextFieldUpdate, ContextParams, IncludeQuery, LegalValue, LegalValueParams, ListedContextField, NewContextField } from './context.schemas.js'
import {
  changeContextField,
  checkContextFieldName,
  contextField,
  contextFields,
  createContextField,
  putLegalValue,
  removeContextField,
  removeLegalValue,
  strategiesUsingField,
} from './context.service.js'

const BASE = '/api/admin/context'
const MANAGE = 'Context fields are global: managing them needs a */* token.'

export const contextRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    BASE,
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Context'],
        operationId: 'getContextFields',
        summary: 'Context fields, by name',
        description:
          'As Unleash: the built-in fields (appName, currentTime, environment, remoteAddress, sessionId, userId) and the custom root ones, each with its legal values and how many features and projects use it in constraints. With `include=project`, the project fields of the projects the token may see too (each with its `project`).',
        querystring: IncludeQuery,
        errors: errorStatuses(400, 403),
        response: { 200: Type.Array(ListedContextField) },
      },
    },
    async (request) => contextFields(db, request.query.include, request.token)
  )

  app.post(
    BASE,
    {
      config: { access: 'admin', role: 'editor' },
      schema: {
        tags: ['Context'],
        operationId: 'createContextField',
        summary: 'Create a context field',
        description: `As Unleash: 201 with the field and a Location header; 409 when the name is taken (by a root or a project field); a legal value listed twice is a 400. With \`project\`, a field of that project (404 when it does not exist). Records context-field-created. ${MANAGE}`,
        body: NewContextField,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 201: { ...ContextField, headers: { location: responseHeader('context/<name>', true) } } },
      },
    },
    async (request, reply) => {
      const created = await createContextField(db, request.body, request.author)
      return reply.code(201).header('location', `context/${created.name}`).send(created)
    }
  )

  app.post(
    `${BASE}/validate`,
    {
      config: { access: 'admin', role: 'editor', maintenance: 'open' },
      schema: {
        tags: ['Context'],
        operationId: 'validateContextFieldName',
        summary: 'Whether a context field name is free: 200, or 409 when taken',
        body: Type.Object({ name: UrlFriendly('A context field name') }, { additionalProperties: false }),
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await checkContextFieldName(db, request.body.name)
      return reply.code(200).send()
    }
  )

  app.get(
    `${BASE}/:name`,
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Context'],
        operationId: 'getContextField',
        summary: 'One context field',
        params: ContextParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: ContextField },
      },
    },
    async (request) => contextField(db, request.params.name)
  )

  app.put(
    `${BASE}/:name`,
    {
      config: { access: 'admin', role: 'editor' },
      schema: {
        tags: ['Context'],
        operationId: 'updateContextField',
        summary: "Change a context field's description, stickiness, sort order and legal values",
        description: `As Unleash: 200 with no body; stickiness and legalValues left out become false and none, description and sortOrder left out keep their value; a name other than the path's is a 400; what a read returns (createdAt, usedInFeatures, usedInProjects) is accepted and ignored. Records context-field-updated with data and preData; the same values again change nothing. ${MANAGE}`,
        params: ContextParams,
        body: ContextFieldUpdate,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await changeContextField(db, request.params.name, request.body, request.author)
      return reply.code(200).send()
    }
  )

  app.delete(
    `${BASE}/:name`,
    {
      config: { access: 'admin', role: 'editor' },
      schema: {
        tags: ['Context'],
        operationId: 'deleteContextField',
        summary: 'Delete a context field no constraint reads',
        description: `As Unleash: 200 with no body; 409 when constraints of strategies (of archived features too) read it. Records context-field-deleted. ${MANAGE}`,
        params: ContextParams,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeContextField(db, request.params.name, request.author)
      return reply.code(200).send()
    }
  )

  app.post(
    `${BASE}/:name/legal-values`,
    {
      config: { access: 'admin', role: 'editor' },
      schema: {
        tags: ['Context'],
        operationId: 'updateContextFieldLegalValue',
        summary: 'Add a legal value, or change its description',
        description: `As Unleash: 200 with no body. Records context-field-updated; the same value and description again change nothing. ${MANAGE}`,
        params: ContextParams,
        body: LegalValue,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await putLegalValue(db, request.params.name, request.body, request.author)
      return reply.code(200).send()
    }
  )

  app.delete(
    `${BASE}/:name/legal-values/:legalValue`,
    {
      config: { access: 'admin', role: 'editor' },
      schema: {
        tags: ['Context'],
        operationId: 'deleteContextFieldLegalValue',
        summary: 'Remove a legal value',
        description: `As Unleash: 200 with no body, and constraints that use the value are left as they are. Records context-field-updated; a value that is not there changes nothing. ${MANAGE}`,
        params: LegalValueParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeLegalValue(db, request.params.name, request.params.legalValue, request.author)
      return reply.code(200).send()
    }
  )

  app.get(
    `${BASE}/:name/strategies`,
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Context'],
        operationId: 'getStrategiesByContextField',
        summary: 'The strategies whose constraints read a context field',
        description: "Of the token's projects, archived features included; a field that does not exist has none (as Unleash).",
        params: ContextParams,
        errors: errorStatuses(400, 403),
        response: { 200: Type.Object({ strategies: Type.Array(SegmentUse) }) },
      },
    },
    async (request) => ({ strategies: await strategiesUsingField(db, request.params.name, request.token) })
  )
}
