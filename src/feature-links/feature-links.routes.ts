import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, FeatureParams } from '../http/schemas.js'
import { LinkBody, LinkParams } from './feature-links.schemas.js'
import { addLink, changeLink, removeLink } from './feature-links.service.js'

const BASE = '/api/admin/projects/:projectId/features/:featureName/link'

const NORMALISED =
  'The address is stored normalised, as Unleash does: https:// when it has no scheme, the host in lower case without www., no default port, credentials or trailing slash, utm_* parameters dropped and the others sorted. Unlike Unleash, only http and https addresses are links (400 otherwise).'

const ref = (params: { projectId: string; featureName: string }) => ({ project: params.projectId, feature: params.featureName })

export const featureLinkRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.post(
    BASE,
    {
      config: { access: 'token', role: 'editor', guard: 'none' },
      schema: {
        tags: ['Features'],
        operationId: 'createFeatureLink',
        summary: 'Add a link to a feature (an issue, a dashboard, a document)',
        description: `As Unleash: 204 with no body; records feature-link-added with the stored address and title. At most 10 links per feature (400, where Unleash answers 403). ${NORMALISED} The feature's read lists its links, and exports carry them.`,
        params: FeatureParams,
        body: LinkBody,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 204: EmptyReply },
      },
    },
    async (request, reply) => {
      await addLink(db, ref(request.params), request.body, request.author)
      return reply.code(204).send()
    }
  )

  app.put(
    `${BASE}/:linkId`,
    {
      config: { access: 'token', role: 'editor', guard: 'none' },
      schema: {
        tags: ['Features'],
        operationId: 'updateFeatureLink',
        summary: "Change a feature's link",
        description: `As Unleash: 204; records feature-link-updated with data and preData (the same address and title again change nothing). 404 for a link that is not one of the feature's. ${NORMALISED}`,
        params: LinkParams,
        body: LinkBody,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 204: EmptyReply },
      },
    },
    async (request, reply) => {
      await changeLink(db, ref(request.params), request.params.linkId, request.body, request.author)
      return reply.code(204).send()
    }
  )

  app.delete(
    `${BASE}/:linkId`,
    {
      config: { access: 'token', role: 'editor', guard: 'none' },
      schema: {
        tags: ['Features'],
        operationId: 'deleteFeatureLink',
        summary: "Remove a feature's link",
        description: "As Unleash: 204; records feature-link-removed with the link as preData. 404 for a link that is not one of the feature's.",
        params: LinkParams,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 204: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeLink(db, ref(request.params), request.params.linkId, request.author)
      return reply.code(204).send()
    }
  )
}
