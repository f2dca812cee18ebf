import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { QueryText, UrlFriendly } from '../http/schemas.js'
import { eventsPage } from './events.service.js'
import { EVENTS_PAGE_BYTES, EventList } from './events.schemas.js'

const MAX_PAGE = 500

const EventsQuery = Type.Object({
  project: Type.Optional(UrlFriendly('Only events of this project')),
  feature: Type.Optional(UrlFriendly('Only events of this feature')),
  environment: Type.Optional(UrlFriendly('Only events of this environment')),
  type: Type.Optional(QueryText({ maxLength: 100, description: 'Only events of this type' })),
  createdBy: Type.Optional(QueryText({ maxLength: 254, description: 'Only events by this user (email, else username) or API token (name)' })),
  createdByUserId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Only events by this user' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 100 })),
  cursor: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,18}$', description: 'nextCursor of the previous page' })
  ),
})

export const eventsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/api/admin/events',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Events'],
        operationId: 'getEvents',
        summary: 'List events, newest first',
        description:
          `Pages of at most \`limit\` events, and of at most ${EVENTS_PAGE_BYTES / 1024 / 1024} MiB of event data (a page always holds at least one event); when more match, pass \`nextCursor\` as \`cursor\` for the next page. A token limited to some projects or environments sees only their events, and only a token with access to everything (*/*), or an Admin, sees the events about API tokens, webhooks and people.`,
        querystring: EventsQuery,
        errors: errorStatuses(400, 403),
        response: {
          200: EventList,
        },
      },
    },
    async (request) => {
      const { cursor, limit = 100, ...filter } = request.query
      const before = cursor === undefined ? undefined : Number(cursor)
      // A person sees everything of their role's reach; the admin-only events if an Admin.
      const adminEvents = request.person === null ? undefined : request.person.rootRole === 'Admin'
      const page = await eventsPage(db, { ...filter, limit, before }, request.token, adminEvents)
      const last = page.events.at(-1)
      return { events: page.events, ...(page.more && last && { nextCursor: String(last.id) }) }
    }
  )
}
