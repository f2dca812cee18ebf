import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, FeatureParams, ProjectParams } from '../http/schemas.js'
import { type Marker, setFavoriteFeature, setFavoriteProject } from './favourites.service.js'

const PERSON_ONLY = 'A favourite is a person\'s: an API token is refused with 403 naming the rule (Unleash answers 500).'

/** The signed-in person of a `person` route (the auth plugin admitted no one else). */
const marker = (request: FastifyRequest): Marker => ({ userId: request.person!.id, author: request.author })

export const favouriteRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  for (const [method, favorite] of [['POST', true], ['DELETE', false]] as const) {
    app.route({
      method,
      url: '/api/admin/projects/:projectId/features/:featureName/favorites',
      config: { access: 'person', guard: 'none' },
      schema: {
        tags: ['Features'],
        operationId: favorite ? 'addFavoriteFeature' : 'removeFavoriteFeature',
        summary: favorite ? 'Mark a feature as one of your favourites' : 'Unmark a favourite feature',
        description: `As Unleash: 200 with no body; records ${favorite ? 'feature-favorited (marking it again changes nothing)' : 'feature-unfavorited (unmarking one that is not a favourite changes nothing)'}. Feature reads answer favorite: true for it. Unlike Unleash, the feature must be in the project of the path (404 naming what is missing). ${PERSON_ONLY}`,
        params: FeatureParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
      handler: async (request, reply) => {
        const { projectId: project, featureName: feature } = request.params as { projectId: string; featureName: string }
        await setFavoriteFeature(db, { project, feature }, favorite, marker(request))
        return reply.code(200).send()
      },
    })
    app.route({
      method,
      url: '/api/admin/projects/:projectId/favorites',
      config: { access: 'person' },
      schema: {
        tags: ['Projects'],
        operationId: favorite ? 'addFavoriteProject' : 'removeFavoriteProject',
        summary: favorite ? 'Mark a project as one of your favourites' : 'Unmark a favourite project',
        description: `As Unleash: 200 with no body; records ${favorite ? 'project-favorited (marking it again changes nothing)' : 'project-unfavorited (unmarking one that is not a favourite changes nothing)'}. 404 for a project that does not exist. ${PERSON_ONLY}`,
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
      handler: async (request, reply) => {
        await setFavoriteProject(db, (request.params as { projectId: string }).projectId, favorite, marker(request))
        return reply.code(200).send()
      },
    })
  }
}
