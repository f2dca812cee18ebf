import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { EVENT_TYPES } from '../events/events.schemas.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply } from '../http/schemas.js'
import {
  Addon,
  AddonParams,
  AddonProvider,
  CreatedAddon,
  DeliveriesQuery,
  Delivery,
  DeliveryParams,
  IntegrationEvent,
  IntegrationEventsQuery,
  MAX_CUSTOM_HEADERS,
  MAX_TEMPLATE_LENGTH,
  MAX_URL_LENGTH,
  NewAddon,
  RotatedSecret,
} from './webhooks.schemas.js'
import * as webhooks from './webhooks.service.js'

const tags = ['Addons (webhooks)']

const PROVIDER = {
  name: 'webhook' as const,
  displayName: 'Webhook',
  description: 'POSTs each matching event, at least once, signed as Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature)',
  documentationUrl: '/docs',
  parameters: [
    { name: 'url', displayName: 'URL', type: 'url' as const, description: 'Where each event is POSTed (http or https, a public address unless WEBHOOK_ALLOWED_NETWORKS allows it)', required: true, sensitive: false },
    { name: 'contentType', displayName: 'Content-Type', type: 'text' as const, description: 'The Content-Type of the body (default application/json)', required: false, sensitive: false },
    { name: 'authorization', displayName: 'Authorization header', type: 'text' as const, description: 'Sent as the Authorization header', required: false, sensitive: true },
    { name: 'customHeaders', displayName: 'Extra headers', type: 'textfield' as const, description: 'A JSON object of header names and values', required: false, sensitive: true },
    { name: 'bodyTemplate', displayName: 'Body template', type: 'textfield' as const, description: 'A Mustache template of the body (default: the event as JSON)', required: false, sensitive: false },
  ],
  events: [...EVENT_TYPES],
}

const SAVE_DESCRIPTION = `Unleash's addon shape with the provider webhook. Limits: url ${MAX_URL_LENGTH} characters (http or https, no credentials; its host must resolve to public addresses unless WEBHOOK_ALLOWED_NETWORKS lists them: a refused one is a 400 naming the rule), bodyTemplate ${MAX_TEMPLATE_LENGTH} characters of Mustache, at most ${MAX_CUSTOM_HEADERS} customHeaders. authorization and customHeaders values are secrets: never shown in reads or events.`

export const addonRoutes: FastifyPluginAsyncTypebox<{ db: Database; changed: () => void } & webhooks.WebhookChecks> = async (app, { db, changed, ...ctx }) => {
  // A webhook created, changed or a delivery requeued here: the dispatcher looks again at once.
  app.addHook('onResponse', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 300) changed()
  })
  app.get(
    '/api/admin/addons',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags,
        operationId: 'getAddons',
        summary: 'List webhooks (needs a */* token)',
        description: 'Secret parameters (authorization, customHeaders values) are shown as *****; the signing secret never.',
        errors: errorStatuses(403),
        response: { 200: Type.Object({ addons: Type.Array(Addon), providers: Type.Array(AddonProvider) }) },
      },
    },
    async () => ({ addons: await webhooks.addons(db), providers: [PROVIDER] })
  )

  app.post(
    '/api/admin/addons',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags,
        operationId: 'createAddon',
        summary: 'Create a webhook (needs a */* token)',
        description: `${SAVE_DESCRIPTION} The answer holds the signing secret (whsec_…), shown only here. Records addon-config-created.`,
        body: NewAddon,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 201: CreatedAddon },
      },
    },
    async (request, reply) => reply.code(201).send(await webhooks.createAddon(db, ctx, request.body, request.author))
  )

  app.get(
    '/api/admin/addons/:id',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags,
        operationId: 'getAddon',
        summary: 'Get a webhook (needs a */* token)',
        params: AddonParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Addon },
      },
    },
    async (request) => webhooks.addon(db, request.params.id)
  )

  app.put(
    '/api/admin/addons/:id',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags,
        operationId: 'updateAddon',
        summary: 'Replace a webhook\'s configuration (needs a */* token)',
        description: `${SAVE_DESCRIPTION} Sending ***** for authorization or a customHeaders value keeps the stored one. Deliveries already made keep their webhook-id and are sent with the new configuration. Records addon-config-updated.`,
        params: AddonParams,
        body: NewAddon,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: Addon },
      },
    },
    async (request) => webhooks.updateAddon(db, ctx, request.params.id, request.body, request.author)
  )

  app.delete(
    '/api/admin/addons/:id',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags,
        operationId: 'deleteAddon',
        summary: 'Delete a webhook and its deliveries (needs a */* token)',
        description: 'Records addon-config-deleted.',
        params: AddonParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await webhooks.removeAddon(db, request.params.id, request.author)
      return reply.code(200).send()
    }
  )

  app.post(
    '/api/admin/addons/:id/rotate-secret',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags,
        operationId: 'rotateAddonSecret',
        summary: 'Give a webhook a new signing secret (needs a */* token)',
        description: 'The new secret is shown only in this answer. For WEBHOOK_SECRET_OVERLAP_MS (24 h by default) deliveries carry two signatures, one with each secret, so that receivers can switch. Records addon-secret-rotated (without either secret).',
        params: AddonParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: RotatedSecret },
      },
    },
    async (request) => webhooks.rotateAddonSecret(db, ctx, request.params.id, request.author)
  )

  app.get(
    '/api/admin/addons/:id/deliveries',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags,
        operationId: 'getAddonDeliveries',
        summary: 'A webhook\'s deliveries, newest first (needs a */* token)',
        description: 'Each with its event, state (pending, delivered, dead), every attempt (time, duration, HTTP status, error) and the next attempt of a pending one. Delivered and dead ones are kept WEBHOOK_RETENTION_DAYS. Pages of at most `limit`; pass `nextCursor` as `cursor` for the next.',
        params: AddonParams,
        querystring: DeliveriesQuery,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Type.Object({ deliveries: Type.Array(Delivery), nextCursor: Type.Optional(Type.String()) }) },
      },
    },
    async (request) => {
      const { limit = 50, cursor } = request.query
      const page = await webhooks.deliveries(db, request.params.id, { limit, before: cursor === undefined ? undefined : Number(cursor) })
      const last = page.deliveries.at(-1)
      return { deliveries: page.deliveries, ...(page.more && last && { nextCursor: String(last.id) }) }
    }
  )

  app.get(
    '/api/admin/addons/:id/events',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags,
        operationId: 'getIntegrationEvents',
        summary: "A webhook's deliveries as Unleash's integration events, newest first (needs a */* token)",
        description: 'As Unleash: {integrationEvents}, each delivery tried at least once with its whole event; success when delivered, failed when every attempt so far failed (given up, or to be tried again at details.nextAttemptAt); details hold its webhook-id and attempts. `limit` (at most 200) from `offset`; a page also stops before 4 MiB of event data (it always holds one). The deliveries read says more (pending ones too, with a cursor).',
        params: AddonParams,
        querystring: IntegrationEventsQuery,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Type.Object({ integrationEvents: Type.Array(IntegrationEvent) }) },
      },
    },
    async (request) => {
      const { limit = 50, offset = 0 } = request.query
      return { integrationEvents: await webhooks.integrationEvents(db, request.params.id, { limit, offset }) }
    }
  )

  app.post(
    '/api/admin/addons/:id/deliveries/:deliveryId/redeliver',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags,
        operationId: 'redeliverAddonDelivery',
        summary: 'Send a delivery again (needs a */* token)',
        description: 'The delivery becomes pending and due now, with a fresh series of WEBHOOK_MAX_ATTEMPTS attempts and the same webhook-id (receivers that deduplicate see the same message). One being sent right now is not sent twice at once. Records addon-delivery-redelivered.',
        params: DeliveryParams,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: Delivery },
      },
    },
    async (request) => webhooks.redeliver(db, request.params.id, request.params.deliveryId, request.author)
  )
}
