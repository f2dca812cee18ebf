import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, ProjectParams, responseHeader, UrlFriendly } from '../http/schemas.js'
import { SegmentUse } from '../segments/segments.schemas.js'
import {
  ContextField,
  ContextFieldUpdate,
  IncludeQuery,
  LegalValue,
  ListedContextField,
  NewContextField,
  ProjectContextParams,
  ProjectLegalValueParams,
} from './context.schemas.js'
import {
  changeContextField,
  checkContextFieldName,
  createProjectContextField,
  projectContextField,
  projectContextFields,
  projectStrategiesUsingField,
  putLegalValue,
  removeContextField,
  removeLegalValue,
} from './context.service.js'

const BASE = '/api/admin/projects/:projectId/context'
const OWNED =
  "The field must be the project's: a root field or another project's is a 404 here (change those through /api/admin/context)."
const WHO = 'An Editor or Admin, or a Member of the project (Unleash: its Owner); an API token that covers the project.'

/** The context fields of one project (Unleash 7.4+): names are unique across root and project fields. */
export const projectContextRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    BASE,
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Context'],
        operationId: 'getContextFieldsForProject',
        summary: "A project's context fields",
        description: "As Unleash: the project's own fields, by name; with `include=root` (either case), the root fields too. A project that does not exist is a 404.",
        params: ProjectParams,
        querystring: IncludeQuery,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Type.Array(ListedContextField) },
      },
    },
    async (request) => projectContextFields(db, request.params.projectId, request.query.include)
  )

  app.post(
    BASE,
    {
      config: { access: 'token', role: 'editor' },
      schema: {
        tags: ['Context'],
        operationId: 'createContextFieldForProject',
        summary: 'Create a context field of the project',
        description: `As Unleash: 201 with the field (its \`project\` the path's; a body naming another is a 400) and a Location header; 409 when a root or project field has the name. Records context-field-created, filed under the project. ${WHO}`,
        params: ProjectParams,
        body: NewContextField,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 201: { ...ContextField, headers: { location: responseHeader('context/<name>', true) } } },
      },
    },
    async (request, reply) => {
      const created = await createProjectContextField(db, request.params.projectId, request.body, request.author)
      return reply.code(201).header('location', `context/${created.name}`).send(created)
    }
  )

  app.post(
    `${BASE}/validate`,
    {
      config: { access: 'token', role: 'editor' },
      schema: {
        tags: ['Context'],
        operationId: 'validateContextFieldNameForProject',
        summary: 'Whether a context field name is free: 200, or 409 when a root or project field has it',
        params: ProjectParams,
        body: Type.Object({ name: UrlFriendly('A context field name') }, { additionalProperties: false }),
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await checkContextFieldName(db, request.body.name, request.params.projectId)
      return reply.code(200).send()
    }
  )

  app.get(
    `${BASE}/:contextField`,
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Context'],
        operationId: 'getContextFieldForProject',
        summary: 'A context field of the project, or a root field',
        description: "Another project's field is a 404 here (Unleash answers any field by name).",
        params: ProjectContextParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: ContextField },
      },
    },
    async (request) => projectContextField(db, request.params.projectId, request.params.contextField)
  )

  app.put(
    `${BASE}/:contextField`,
    {
      config: { access: 'token', role: 'editor' },
      schema: {
        tags: ['Context'],
        operationId: 'updateContextFieldForProject',
        summary: "Change a project's context field",
        description: `As the root PUT: 200 with no body; context-field-updated with data and preData (the same values again change nothing). ${OWNED} ${WHO}`,
        params: ProjectContextParams,
        body: ContextFieldUpdate,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      const { projectId, contextField } = request.params
      await changeContextField(db, contextField, request.body, request.author, projectId)
      return reply.code(200).send()
    }
  )

  app.delete(
    `${BASE}/:contextField`,
    {
      config: { access: 'token', role: 'editor' },
      schema: {
        tags: ['Context'],
        operationId: 'deleteContextFieldForProject',
        summary: "Delete a project's context field no constraint reads",
        description: `As the root DELETE: 200 with no body; 409 when constraints of strategies (of archived features too) read it; context-field-deleted. ${OWNED} ${WHO}`,
        params: ProjectContextParams,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeContextField(db, request.params.contextField, request.author, request.params.projectId)
      return reply.code(200).send()
    }
  )

  app.post(
    `${BASE}/:contextField/legal-values`,
    {
      config: { access: 'token', role: 'editor' },
      schema: {
        tags: ['Context'],
        operationId: 'updateContextFieldLegalValueForProject',
        summary: "Add a legal value to a project's context field, or change its description",
        description: `As the root route: 200 with no body; context-field-updated (the same value and description again change nothing). ${OWNED} ${WHO}`,
        params: ProjectContextParams,
        body: LegalValue,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await putLegalValue(db, request.params.contextField, request.body, request.author, request.params.projectId)
      return reply.code(200).send()
    }
  )

  app.delete(
    `${BASE}/:contextField/legal-values/:legalValue`,
    {
      config: { access: 'token', role: 'editor' },
      schema: {
        tags: ['Context'],
        operationId: 'deleteContextFieldLegalValueForProject',
        summary: "Remove a legal value of a project's context field",
        description: `As the root route: 200 with no body, constraints that use the value are left as they are; context-field-updated (a value that is not there changes nothing). ${OWNED} ${WHO}`,
        params: ProjectLegalValueParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      const { projectId, contextField, legalValue } = request.params
      await removeLegalValue(db, contextField, legalValue, request.author, projectId)
      return reply.code(200).send()
    }
  )

  app.get(
    `${BASE}/:contextField/strategies`,
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Strategies'],
        operationId: 'getStrategiesByContextFieldForProject',
        summary: 'The strategies whose constraints read a context field',
        description: 'As Unleash (and the root route): of every project the token may see, archived features included; a field that does not exist has none. A project that does not exist is a 404.',
        params: ProjectContextParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Type.Object({ strategies: Type.Array(SegmentUse) }) },
      },
    },
    async (request) => ({ strategies: await projectStrategiesUsingField(db, request.params.projectId, request.params.contextField, request.token) })
  )
}
