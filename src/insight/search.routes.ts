import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { SearchQuery, SearchResult } from './search.schemas.js'
import { searchFeatures } from './search.service.js'

export const searchRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/api/admin/search/features',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Search'],
        operationId: 'searchFeatures',
        summary: 'Search and filter features',
        description:
          "Unleash's search grammar: each filter is `OPERATOR:values`, values comma-separated, and each parameter accepts the operators its pattern names (others are 400, as in Unleash). One page of `limit` features (default 50, at most 100) from `offset`, and `total`, how many match. Without `sortBy` they come oldest first; every sort breaks ties by createdAt ascending, then name. Each feature lists its environments with `yes` and `no`, its evaluations of the last hour. A token limited to some projects or environments finds only those. `state` is computed when read: potentially stale is a feature not marked stale that outlived its type's lifetime.",
        querystring: SearchQuery,
        errors: errorStatuses(400, 403),
        response: { 200: SearchResult },
      },
    },
    async (request) => searchFeatures(db, request.query, request.token)
  )
}
