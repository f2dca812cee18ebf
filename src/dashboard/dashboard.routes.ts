import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { ProjectParams } from '../http/schemas.js'
import { PersonalDashboard, PersonalProjectDetails } from './dashboard.schemas.js'
import { personalDashboard, personalProjectDetails } from './dashboard.service.js'

const PERSON_ONLY = 'It is a person\'s: an API token is refused with 403 naming the rule (Unleash answers 500).'

/** The signed-in person's dashboard (Unleash's personal dashboard). */
export const dashboardRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/api/admin/personal-dashboard',
    {
      config: { access: 'person' },
      schema: {
        tags: ['Projects'],
        operationId: 'getPersonalDashboard',
        summary: 'Your projects and flags',
        description: `As Unleash: the projects where you have a role and your favourite projects (health: the share of flags neither stale nor potentially stale), your favourite flags and those you created (newest first, at most 100), and the Admins. ${PERSON_ONLY}`,
        errors: errorStatuses(403),
        response: { 200: PersonalDashboard },
      },
    },
    async (request) => personalDashboard(db, request.person!.id)
  )

  app.get(
    '/api/admin/personal-dashboard/:projectId',
    {
      config: { access: 'person' },
      schema: {
        tags: ['Projects'],
        operationId: 'getPersonalDashboardProjectDetails',
        summary: 'One of your projects: latest events, onboarding, your roles, health',
        description: `As Unleash, for any project (404 naming one that does not exist). ${PERSON_ONLY}`,
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: PersonalProjectDetails },
      },
    },
    async (request) => personalProjectDetails(db, request.person!.id, request.params.projectId)
  )
}
