import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import type { FastifyRequest } from 'fastify'
import { QueryText, UrlFriendly } from '../http/schemas.js'
import { creatorsOfEvents, eventsFound, eventsPage, featureEvents } from './events.service.js'
import { EVENTS_PAGE_BYTES, Event, EventList, FoundEvent } from './events.schemas.js'
import { MAX_FILTER_VALUES, SYSTEM_CREATOR, TOKEN_CREATOR } from './event-search.js'

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

/** A filter of the search, in Unleash's operator form. */
const Filter = (what: string, example: string) =>
  QueryText({ maxLength: 10_000, description: `${what}: IS:<value>, IS_ANY_OF:<a>,<b> (at most ${MAX_FILTER_VALUES}), IS_NOT:<value> or IS_NONE_OF:<a>,<b>; such as ${example}` })
const Day = (what: string) => Type.String({ pattern: '^IS:\\d{4}-\\d{2}-\\d{2}$', description: `${what}, IS:yyyy-MM-dd (a day, UTC)` })

const SearchQuery = Type.Object({
  query: Type.Optional(QueryText({ maxLength: 200, description: 'Free text, found (case-insensitively) in the data or preData of the event' })),
  id: Type.Optional(Filter('Event ids', 'IS:123')),
  groupId: Type.Optional(Filter('The change that recorded the events (their groupId)', 'IS:4567')),
  feature: Type.Optional(Filter('Feature names', 'IS:my-flag')),
  project: Type.Optional(Filter('Projects', 'IS:default')),
  type: Type.Optional(Filter('Event types', 'IS_ANY_OF:feature-created,feature-archived')),
  createdBy: Type.Optional(Filter(`Creators, by the ids event-creators answers (a user's id; ${TOKEN_CREATOR} API tokens, ${SYSTEM_CREATOR} the server itself), or by an API token's name`, 'IS:2')),
  environment: Type.Optional(Filter('Environments', 'IS:production')),
  from: Type.Optional(Day('Created on or after this day')),
  to: Type.Optional(Day('Created on or before this day')),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, default: 0, description: 'Events to skip (newest first)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })),
})

/** A person sees everything of their role's reach, the admin-only events if an Admin; a token its scope. */
const adminEventsOf = (request: FastifyRequest) => (request.person === null ? undefined : request.person.rootRole === 'Admin')

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
      const adminEvents = adminEventsOf(request)
      const page = await eventsPage(db, { ...filter, limit, before }, request.token, adminEvents)
      const last = page.events.at(-1)
      return { version: 1 as const, events: page.events, ...(page.more && last && { nextCursor: String(last.id) }) }
    }
  )

  app.get(
    '/api/admin/events/:featureName',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Events'],
        operationId: 'getEventsForToggle',
        summary: "A feature's newest 50 events (deprecated in Unleash, served as it is)",
        description: 'As Unleash: {version, toggleName, events, totalEvents}; none for a feature that never existed. Visible as the events list is.',
        params: Type.Object({ featureName: UrlFriendly('Feature name') }),
        errors: errorStatuses(400, 403),
        response: {
          200: Type.Object({ version: Type.Literal(1), toggleName: Type.String(), events: Type.Array(Event), totalEvents: Type.Integer() }),
        },
      },
    },
    async (request) => {
      const found = await featureEvents(db, request.params.featureName, request.token, adminEventsOf(request))
      // The per-feature read answers the events as the list does (without their groupId).
      const events = found.events.map(({ groupId: _groupId, ...event }) => event)
      return { version: 1 as const, toggleName: request.params.featureName, events, totalEvents: found.total }
    }
  )

  app.get(
    '/api/admin/search/events',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Events'],
        operationId: 'searchEvents',
        summary: "Search the events (Unleash's event log)",
        description:
          `As Unleash: {events, total}, newest first, \`limit\` (default 50, at most 1000) from \`offset\`; filters in Unleash's form (OPERATOR:values), which all must hold. A page also stops before ${EVENTS_PAGE_BYTES / 1024 / 1024} MiB of event data (it always holds one event): ask again from offset plus the events received. Each event has its groupId, the change that recorded it. Visible as the events list is; a filter not in this form is 400 naming it.`,
        querystring: SearchQuery,
        errors: errorStatuses(400, 403),
        response: { 200: Type.Object({ events: Type.Array(FoundEvent), total: Type.Integer() }) },
      },
    },
    async (request) => eventsFound(db, request.query, request.token, adminEventsOf(request))
  )

  app.get(
    '/api/admin/event-creators',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Events'],
        operationId: 'getEventCreators',
        summary: 'Who made the events (the event log\'s creator filter)',
        description: `As Unleash: [{id, name}], of the events the caller may see. A person by their user id and name (else username or email); every API token together as {id: ${TOKEN_CREATOR}, name: "API tokens"}, the server itself as {id: ${SYSTEM_CREATOR}, name: "Unleash System"}, as Unleash's ids. search/events takes these ids in createdBy.`,
        errors: errorStatuses(403),
        response: { 200: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })) },
      },
    },
    async (request) => creatorsOfEvents(db, request.token, adminEventsOf(request))
  )
}
