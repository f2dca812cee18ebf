import { Type } from '@sinclair/typebox'
import { Event, EVENT_TYPES } from '../events/events.schemas.js'
import { Nullable, StringEnum, Timestamp, UrlFriendly } from '../http/schemas.js'

/** What reads show instead of a secret parameter, as Unleash shows sensitive addon parameters. */
export const MASK = '*****' as const

export const MAX_URL_LENGTH = 2048
export const MAX_TEMPLATE_LENGTH = 16_384
export const MAX_CUSTOM_HEADERS = 20
export const MAX_HEADER_VALUE_LENGTH = 4096
export const MAX_SCOPE_ITEMS = 100

/** Characters a header value may hold: visible ASCII, space and tab (no CR, LF or NUL). */
const HEADER_VALUE_PATTERN = '^[\\t\\x20-\\x7E]*$'
/** An HTTP token (RFC 9110), the form of a header name. */
const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$"

/** Headers the service sets itself; customHeaders may not replace them. */
export const RESERVED_HEADERS = [
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'authorization',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]

const ScopeList = (what: string) =>
  Type.Array(UrlFriendly(`${what} name`), {
    maxItems: MAX_SCOPE_ITEMS,
    uniqueItems: true,
    description: `Only events of these ${what.toLowerCase()}s (an event without one passes). Empty, absent or containing "*": all`,
  })

const Parameters = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: MAX_URL_LENGTH,
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[!-~]+$',
      description: 'http or https, without credentials. Its host must resolve to public addresses only (not loopback, private, link-local, cloud metadata, unspecified, multicast or reserved), unless WEBHOOK_ALLOWED_NETWORKS lists them; checked when saved (400 naming the rule) and at every send',
    }),
    contentType: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 200,
        pattern: '^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(\\s*;[\\t\\x20-\\x7E]*)?$',
        description: 'Content-Type of the deliveries; default application/json',
      })
    ),
    authorization: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_HEADER_VALUE_LENGTH,
        pattern: HEADER_VALUE_PATTERN,
        description: `Sent as the Authorization header. A secret: reads show ${MASK}; sending ${MASK} back on update keeps the stored value`,
      })
    ),
    customHeaders: Type.Optional(
      Type.Unsafe<Record<string, string>>({
        type: 'object',
        propertyNames: { pattern: HEADER_NAME_PATTERN },
        additionalProperties: { type: 'string', maxLength: MAX_HEADER_VALUE_LENGTH, pattern: HEADER_VALUE_PATTERN },
        maxProperties: MAX_CUSTOM_HEADERS,
        description: `Extra headers, at most ${MAX_CUSTOM_HEADERS}, each name an HTTP token and each value at most ${MAX_HEADER_VALUE_LENGTH} characters; not ${RESERVED_HEADERS.join(', ')}. Their values are secrets: reads show ${MASK}; sending ${MASK} back on update keeps the stored value of that header`,
      })
    ),
    bodyTemplate: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_TEMPLATE_LENGTH,
        description: 'A Mustache template for the body, rendered with `event` (the event object) and `eventJson` (its JSON text; use {{{eventJson}}}). Default: the event as JSON',
      })
    ),
  },
  { additionalProperties: false }
)

export const NewAddon = Type.Object(
  {
    provider: Type.Literal('webhook', { description: 'The only provider: webhook' }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    enabled: Type.Boolean({ description: 'A disabled webhook gets no new deliveries, and its pending ones wait until it is enabled again' }),
    events: Type.Array(StringEnum(EVENT_TYPES), {
      minItems: 1,
      maxItems: EVENT_TYPES.length,
      uniqueItems: true,
      description: 'Event types to deliver',
    }),
    projects: Type.Optional(ScopeList('Project')),
    environments: Type.Optional(ScopeList('Environment')),
    parameters: Parameters,
  },
  { additionalProperties: false }
)

export const AddonParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Addon id' }) })
export const DeliveryParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Addon id' }),
  deliveryId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Delivery id' }),
})

export const Addon = Type.Object({
  id: Type.Integer(),
  provider: Type.Literal('webhook'),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  events: Type.Array(Type.String()),
  projects: Type.Array(Type.String()),
  environments: Type.Array(Type.String()),
  parameters: Type.Object({
    url: Type.String(),
    contentType: Type.Optional(Type.String()),
    authorization: Type.Optional(Type.Literal(MASK)),
    customHeaders: Type.Optional(Type.Record(Type.String(), Type.Literal(MASK))),
    bodyTemplate: Type.Optional(Type.String()),
  }),
  createdAt: Timestamp,
})

export const SigningSecret = Type.String({
  pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
  description: 'The Standard Webhooks signing secret; shown only in this response',
})

export const CreatedAddon = Type.Composite([Addon, Type.Object({ signingSecret: SigningSecret })])

export const RotatedSecret = Type.Object({
  signingSecret: SigningSecret,
  previousSecretValidUntil: Type.Unsafe<Date>({
    type: 'string',
    format: 'date-time',
    description: 'Until then deliveries also carry a signature with the previous secret (WEBHOOK_SECRET_OVERLAP_MS)',
  }),
})

/** A parameter of the provider, as Unleash's addonParameterSchema describes one to a settings form. */
const AddonParameter = Type.Object({
  name: Type.String(),
  displayName: Type.String(),
  type: StringEnum(['text', 'url', 'textfield'] as const),
  description: Type.String(),
  required: Type.Boolean(),
  sensitive: Type.Boolean({ description: 'A secret: never shown in reads or events' }),
})

export const AddonProvider = Type.Object({
  name: Type.Literal('webhook'),
  displayName: Type.String(),
  documentationUrl: Type.String({ description: 'Where this server documents its API (the webhook routes among them)' }),
  description: Type.String(),
  parameters: Type.Array(AddonParameter),
  events: Type.Array(Type.String()),
})

export const Delivery = Type.Object({
  id: Type.Integer(),
  eventId: Type.Integer(),
  eventType: Type.String(),
  messageId: Type.String({ description: 'The webhook-id header: the same on every attempt of this delivery' }),
  state: StringEnum(['pending', 'delivered', 'dead'] as const),
  attempts: Type.Array(
    Type.Object({
      attempt: Type.Integer(),
      startedAt: Timestamp,
      durationMs: Nullable(Type.Integer({ description: 'Unknown when the instance sending it stopped' })),
      status: Nullable(Type.Integer({ description: 'HTTP status of the answer; null when none came' })),
      error: Nullable(Type.String()),
    }),
    { description: 'Oldest first' }
  ),
  nextAttemptAt: Nullable(Timestamp),
  createdAt: Timestamp,
  finishedAt: Nullable(Timestamp),
})

export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,18}$', description: 'nextCursor of the previous page' })),
})

export const IntegrationEventsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'At most this many (a page also stops before 4 MiB of event data)' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, default: 0, description: 'How many to skip, newest first' })),
})

/** A delivery that was tried, in the shape of Unleash's integration event. */
export const IntegrationEvent = Type.Object({
  id: Type.String({ pattern: '^[0-9]+$', description: 'The delivery id' }),
  integrationId: Type.Integer({ description: 'The addon id' }),
  createdAt: Timestamp,
  state: StringEnum(['success', 'failed', 'successWithErrors'] as const, {
    description: 'success: delivered; failed: every attempt so far failed (given up, or to be tried again: see details.nextAttemptAt)',
  }),
  stateDetails: Type.String({ description: 'What the last attempt got' }),
  event: Event,
  details: Type.Object({
    messageId: Type.String({ description: 'The webhook-id header of every attempt' }),
    attempts: Type.Array(
      Type.Object({ attempt: Type.Integer(), startedAt: Timestamp, durationMs: Nullable(Type.Integer()), status: Nullable(Type.Integer()), error: Nullable(Type.String()) }),
      { description: 'Oldest first' }
    ),
    nextAttemptAt: Type.Optional(Timestamp),
  }),
})
