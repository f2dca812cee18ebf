import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { Nullable, QueryText } from '../http/schemas.js'
import { changeLifetime, featureTypes } from './feature-types.service.js'
import { FeatureType } from './feature-types.schemas.js'

export const featureTypeRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/api/admin/feature-types',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Feature Types'],
        operationId: 'getAllFeatureTypes',
        summary: 'The feature types, with their lifetimes',
        description: "As Unleash: release, experiment, operational, kill-switch, permission and sunset. A feature's type must be one of them.",
        errors: errorStatuses(403),
        response: { 200: Type.Object({ version: Type.Literal(1), types: Type.Array(FeatureType) }) },
      },
    },
    async () => ({ version: 1 as const, types: await featureTypes(db) })
  )

  app.put(
    '/api/admin/feature-types/:id/lifetime',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags: ['Feature Types'],
        operationId: 'updateFeatureTypeLifetime',
        summary: "Change a feature type's expected lifetime",
        description:
          'As Unleash: 200 with the feature type; the id is matched in lower case; 0 or null means never potentially stale. Records feature-type-updated with data and preData; the same lifetime again changes nothing. Needs a */* token.',
        params: Type.Object({ id: QueryText({ minLength: 1, maxLength: 100, description: 'Feature type id' }) }),
        body: Type.Object(
          { lifetimeDays: Nullable(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Days; 0 or null: never' })) },
          { additionalProperties: false }
        ),
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: FeatureType },
      },
    },
    async (request) => changeLifetime(db, request.params.id, request.body.lifetimeDays, request.author)
  )
}
