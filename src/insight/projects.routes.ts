import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, ProjectParams } from '../http/schemas.js'
import { outdated } from './metrics.service.js'
import { OutdatedSdks } from './metrics.schemas.js'
import { BatchStale, HealthReport, ProjectDora, ProjectInsights } from './projects.schemas.js'
import { dora, healthReport, insights, setStale } from './projects.service.js'

/** A project's stale flags, health, insights and lead time. */
export const projectInsightRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.post(
    '/api/admin/projects/:projectId/stale',
    {
      config: { access: 'token', role: 'editor' },
      schema: {
        tags: ['Features'],
        operationId: 'staleFeatures',
        summary: 'Mark features as stale / not stale',
        description:
          'All listed features in one transaction: each whose mark changes records feature-stale-on or feature-stale-off (as Unleash); one already so is left alone. 404 names the first feature, in the order sent, that is not in the project (Unleash ignores names it does not know); then nothing changes. 202, as Unleash.',
        params: ProjectParams,
        body: BatchStale,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 202: EmptyReply },
      },
    },
    async (request, reply) => {
      await setStale(db, request.params.projectId, request.body.features, request.body.stale, request.author)
      return reply.code(202).send()
    }
  )

  app.get(
    '/api/admin/projects/:projectId/health-report',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Projects'],
        operationId: 'getProjectHealthReport',
        summary: 'Get a health report for a project.',
        description: "Unleash's shape: the project's flags (not archived) with their environments, and how many are stale, potentially stale (not stale, older than their type's expected lifetime) and active; health is the share of flags neither stale nor potentially stale, computed when asked (Unleash refreshes it on a timer).",
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: HealthReport },
      },
    },
    async (request) => healthReport(db, request.params.projectId)
  )

  app.get(
    '/api/admin/projects/:projectId/insights',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Projects'],
        operationId: 'getProjectInsights',
        summary: 'Get an overview of a project insights.',
        description: "Unleash's shape: the last 30 days' stats (and the 30 before), flags per type, health and technical debt, lead time to production and members, computed when asked.",
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: ProjectInsights },
      },
    },
    async (request) => insights(db, request.params.projectId)
  )

  app.get(
    '/api/admin/projects/:projectId/dora',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Projects'],
        operationId: 'getProjectDora',
        summary: 'Get an overview project dora metrics.',
        description: 'Lead time: for each release flag of the project (archived ones too), the whole days from its creation to the first time it was switched on in an environment of type production, and their average (one decimal).',
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: ProjectDora },
      },
    },
    async (request) => dora(db, request.params.projectId)
  )

  app.get(
    '/api/admin/projects/:projectId/sdks/outdated',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Projects'],
        operationId: 'getOutdatedProjectSdks',
        summary: 'Get outdated project SDKs',
        description: "As GET /api/admin/metrics/sdks/outdated, for the applications that reported the project's flags.",
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: OutdatedSdks },
      },
    },
    async (request) => outdated(db, request.params.projectId)
  )
}
