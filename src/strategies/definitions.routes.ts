import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, responseHeader, UrlFriendly } from '../http/schemas.js'
import { changeDefinition, createDefinition, definition, definitions, removeDefinition, setDefinitionDeprecated } from './definitions.service.js'
import { NewStrategyDefinition, StrategyDefinition, UpdateStrategyDefinition } from './strategies.schemas.js'

const NameParams = Type.Object({ name: UrlFriendly('Strategy name') })

const BUILT_IN =
  'Built in and not editable: default, flexibleRollout (rollout 0–100, stickiness, groupId), remoteAddress (IPs), applicationHostname (hostNames), and userWithId (userIds), deprecated, so that data from older Unleash and GitLab-style servers loads. The legacy gradualRolloutUserId, gradualRolloutSessionId and gradualRolloutRandom can be added as custom definitions (the SDKs still evaluate them).'

export const definitionRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/api/admin/strategies',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Strategy definitions'],
        operationId: 'getAllStrategies',
        summary: 'The strategy definitions, built in and custom',
        description: BUILT_IN,
        errors: errorStatuses(403),
        response: { 200: Type.Object({ version: Type.Literal(1), strategies: Type.Array(StrategyDefinition) }) },
      },
    },
    async () => ({ version: 1 as const, strategies: await definitions(db) })
  )

  app.get(
    '/api/admin/strategies/:name',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Strategy definitions'],
        operationId: 'getStrategy',
        summary: 'One strategy definition',
        params: NameParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: StrategyDefinition },
      },
    },
    async (request) => definition(db, request.params.name)
  )

  app.post(
    '/api/admin/strategies',
    {
      config: { access: 'admin', role: 'editor' },
      schema: {
        tags: ['Strategy definitions'],
        operationId: 'createStrategy',
        summary: 'Add a custom strategy definition (an Editor or Admin; a */* token)',
        description:
          'As Unleash: 201 with the definition and a Location header; 409 when the name is taken. Parameter types: string, percentage, list, number, boolean; strategies using it are checked against them. displayName, editable and deprecated, as a read returns them, are accepted and ignored. Records strategy-created.',
        body: NewStrategyDefinition,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: { ...StrategyDefinition, headers: { location: responseHeader('strategies/<name>', true) } } },
      },
    },
    async (request, reply) => {
      const created = await createDefinition(db, request.body, request.author)
      return reply.code(201).header('location', `strategies/${created.name}`).send(created)
    }
  )

  app.put(
    '/api/admin/strategies/:name',
    {
      config: { access: 'admin', role: 'editor' },
      schema: {
        tags: ['Strategy definitions'],
        operationId: 'updateStrategy',
        summary: 'Replace a custom strategy definition (an Editor or Admin; a */* token)',
        description:
          'As Unleash: 200 with no body. A built-in definition cannot be edited: 400 (Unleash answers 500). Strategies already using it are not changed; their next write is checked against the new parameters. Records strategy-updated; the same definition again changes nothing.',
        params: NameParams,
        body: UpdateStrategyDefinition,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await changeDefinition(db, request.params.name, request.body, request.author)
      return reply.code(200).send()
    }
  )

  app.delete(
    '/api/admin/strategies/:name',
    {
      config: { access: 'admin', role: 'editor' },
      schema: {
        tags: ['Strategy definitions'],
        operationId: 'removeStrategy',
        summary: 'Delete a custom strategy definition (an Editor or Admin; a */* token)',
        description:
          'As Unleash: 200 with no body; records strategy-deleted with its name. A built-in definition cannot be deleted: 400 (Unleash answers 500); an unknown one is 404. Unlike Unleash, a definition some strategy uses (of a feature archived or not) is 409, naming them: remove it from them first.',
        params: NameParams,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeDefinition(db, request.params.name, request.author)
      return reply.code(200).send()
    }
  )

  for (const [action, deprecated] of [['deprecate', true], ['reactivate', false]] as const) {
    app.post(
      `/api/admin/strategies/:name/${action}`,
      {
        config: { access: 'admin', role: 'editor' },
        schema: {
          tags: ['Strategy definitions'],
          operationId: deprecated ? 'deprecateStrategy' : 'reactivateStrategy',
          summary: `${deprecated ? 'Deprecate' : 'Reactivate'} a strategy definition (an Editor or Admin; a */* token)`,
          description: `200 with no body; records strategy-${deprecated ? 'deprecated' : 'reactivated'} (nothing when it already is${deprecated ? '' : ' active'}). Built-in definitions too. A deprecated definition can still be used.`,
          params: NameParams,
          errors: errorStatuses(400, 403, 404, 413, 415),
          response: { 200: EmptyReply },
        },
      },
      async (request, reply) => {
        await setDefinitionDeprecated(db, request.params.name, deprecated, request.author)
        return reply.code(200).send()
      }
    )
  }
}
