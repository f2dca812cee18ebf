/**
 * The events' vocabulary: their types, who made a change, an event to record and one as read.
 * Services, schemas and the webhook payloads use these names; only events.store.ts holds SQL.
 */
import { Type } from '@sinclair/typebox'
import { Nullable, Timestamp } from '../http/schemas.js'

export const EVENT_TYPES = [
  'project-created',
  'environment-created',
  'feature-created',
  'feature-environment-variants-updated',
  'feature-completed',
  'feature-uncompleted',
  'feature-environment-enabled',
  'feature-environment-disabled',
  'feature-archived',
  'feature-revived',
  'api-token-created',
  'api-token-deleted',
  'project-environment-added',
  'feature-lifecycle-stage-entered',
  'strategy-created',
  'strategy-updated',
  'strategy-deprecated',
  'strategy-reactivated',
  'feature-strategy-add',
  'feature-strategy-update',
  'feature-strategy-remove',
  'strategy-order-changed',
  'segment-created',
  'segment-updated',
  'segment-deleted',
  'feature-dependency-added',
  'feature-dependency-removed',
  'feature-dependencies-removed',
  'feature-metadata-updated',
  'addon-config-created',
  'addon-config-updated',
  'addon-config-deleted',
  'addon-secret-rotated',
  'addon-delivery-redelivered',
  'context-field-created',
  'context-field-updated',
  'context-field-deleted',
  'tag-type-created',
  'tag-type-updated',
  'tag-type-deleted',
  'tag-created',
  'tag-deleted',
  'feature-tagged',
  'feature-untagged',
  'feature-type-updated',
  'features-imported',
  'user-created',
  'user-updated',
  'user-deleted',
  'pat-created',
  'pat-deleted',
  'project-access-user-roles-updated',
  'project-access-user-roles-deleted',
  'setting-created',
  'setting-updated',
  'group-created',
  'group-updated',
  'group-deleted',
  'group-user-added',
  'group-user-removed',
  'project-access-group-roles-updated',
  'project-access-group-roles-deleted',
  'change-request-configuration-updated',
  'change-request-created',
  'change-request-discarded',
  'change-added',
  'change-discarded',
  'change-edited',
  'change-request-title-updated',
  'change-request-comment-added',
  'change-request-requested-approvers-updated',
  'change-request-sent-to-review',
  'change-request-approval-added',
  'change-request-approved',
  'change-request-rejected',
  'change-request-cancelled',
  'change-request-scheduled',
  'change-request-applied',
  'change-request-scheduled-application-success',
  'change-request-scheduled-application-failure',
  'change-request-schedule-suspended',
  'api-token-updated',
  'strategy-deleted',
  'feature-stale-on',
  'feature-stale-off',
  'application-created',
  'application-updated',
  'application-deleted',
  'feature-deleted',
  'feature-link-added',
  'feature-link-updated',
  'feature-link-removed',
  'feature-favorited',
  'feature-unfavorited',
  'project-favorited',
  'project-unfavorited',
  'public-signup-token-created',
  'public-signup-token-updated',
  'public-signup-token-user-added',
  'user-preference-updated',
  'environment-updated',
  'project-environment-removed',
  'default-strategy-updated',
] as const

export type EventType = (typeof EVENT_TYPES)[number]

/**
 * Events about tokens, webhooks and people (names, scopes, URLs, emails): only a token with
 * access to everything, or an Admin, sees them.
 */
export const ADMIN_ONLY_EVENTS: EventType[] = [
  'api-token-created',
  'api-token-updated',
  'api-token-deleted',
  'addon-config-created',
  'addon-config-updated',
  'addon-config-deleted',
  'addon-secret-rotated',
  'addon-delivery-redelivered',
  'user-created',
  'user-updated',
  'user-deleted',
  'pat-created',
  'pat-deleted',
  'project-access-user-roles-updated',
  'project-access-user-roles-deleted',
  'setting-created',
  'setting-updated',
  'group-created',
  'group-updated',
  'group-deleted',
  'group-user-added',
  'group-user-removed',
  'project-access-group-roles-updated',
  'project-access-group-roles-deleted',
  'public-signup-token-created',
  'public-signup-token-updated',
  'public-signup-token-user-added',
  'user-preference-updated',
]

/** JSON already serialised, so that a large document is serialised once for its row, its event and the reply. */
export type JsonText = string & { readonly jsonText: unique symbol }
export const toJsonText = (value: unknown) => JSON.stringify(value) as JsonText
/** `{"<member>": <json>}` without parsing or serialising `json` again. */
export const jsonMember = (member: string, json: string) =>
  `{${JSON.stringify(member)}:${json}}` as JsonText

/**
 * Who made a change: the name events show as `createdBy` (a user's email, else username; an
 * API token's name) and, when a person acted, the user's id.
 */
export interface Author {
  name: string
  userId?: number
  /** A change made by applying a change request: the request, and its author's name (`name` is who applied it). */
  changeRequest?: { id: number; author: string }
}

export interface NewEvent {
  type: EventType
  createdBy: Author
  project?: string
  featureName?: string
  environment?: string
  data?: JsonText
  preData?: JsonText
}

export interface StoredEvent {
  id: number
  type: string
  createdAt: Date
  createdBy: string
  createdByUserId: number | null
  project: string | null
  featureName: string | null
  environment?: string
  data: unknown
  preData?: unknown
  changeRequest?: { id: number; createdBy: string; appliedBy: string }
}

export interface EventFilter {
  project?: string
  feature?: string
  environment?: string
  type?: string
  createdBy?: string
  createdByUserId?: number
  /** Only events older than this id (the cursor of the previous page). */
  before?: number
  limit: number
}

/** A page stops growing once its events hold this many bytes of data (it always has one event). */
export const EVENTS_PAGE_BYTES = 4 * 1024 * 1024

/** Which events a reader may see; undefined projects or environments: all of them. */
export interface Visibility {
  projects?: readonly string[]
  environments?: readonly string[]
  /** Also the events about tokens, webhooks and people (ADMIN_ONLY_EVENTS). */
  adminEvents: boolean
}

/** An event as the events list answers it. */
export const Event = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  createdAt: Timestamp,
  createdBy: Type.String({ description: "Who made the change: the user's email, else username; or the API token's name" }),
  createdByUserId: Nullable(Type.Integer({ description: 'The user who made the change; null when an API token did' })),
  project: Nullable(Type.String()),
  featureName: Nullable(Type.String()),
  environment: Type.Optional(Type.String()),
  data: Type.Unknown(),
  preData: Type.Optional(Type.Unknown()),
  changeRequest: Type.Optional(
    Type.Object(
      {
        id: Type.Integer(),
        createdBy: Type.String({ description: "The change request's author" }),
        appliedBy: Type.String({ description: 'Who applied it (or scheduled it): the same as the event\'s createdBy' }),
      },
      { description: 'Present when the change was made by applying a change request' }
    )
  ),
})

/** A page of the events list: Unleash's eventsSchema, with a cursor when more match. */
export const EventList = Type.Object({
  version: Type.Literal(1),
  events: Type.Array(Event),
  nextCursor: Type.Optional(Type.String({ description: 'Present when more events match: the cursor of the next page' })),
})

/** An event as the search finds it: with the id of the change that recorded it. */
export const FoundEvent = Type.Composite([
  Event,
  Type.Object({ groupId: Type.String({ description: 'The change (transaction) that recorded it: the events of one change share it (groupId=IS:<it> finds them)' }) }),
])

export interface EventsPage {
  events: StoredEvent[]
  /** More events match: pass the last id as `before` for the next page. */
  more: boolean
}
