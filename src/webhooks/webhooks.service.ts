import type { Static } from '@sinclair/typebox'
import type { Config } from '../config.js'
import type { Database } from '../db/types.js'
import { invalidField, notFound } from '../errors.js'
import { readerOf, withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { type TriedDelivery, triedDeliveries } from './integration-events.store.js'
import { templateProblem } from './payload.js'
import { generateSigningSecret } from './signing.js'
import { checkTarget, RefusedTarget, type Resolve } from './ssrf.js'
import { MASK, type NewAddon, RESERVED_HEADERS } from './webhooks.schemas.js'
import { listDeliveries, requeueDelivery } from './deliveries.store.js'
import {
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listWebhooks,
  lockWebhook,
  rotateSecret,
  type StoredWebhook,
  updateWebhook,
  type WebhookConfig,
} from './webhooks.store.js'

/** What checking a webhook's target needs: the settings, and how hosts are resolved. */
export interface WebhookChecks {
  config: Config['webhooks']
  resolve: Resolve
}

type AddonBody = Static<typeof NewAddon>

/** A webhook as reads, events and logs show it: the provider, and its secrets masked. */
export function addonView (webhook: StoredWebhook) {
  const { authorization, customHeaders, contentType, bodyTemplate, url } = webhook
  return {
    id: webhook.id,
    provider: 'webhook' as const,
    description: webhook.description,
    enabled: webhook.enabled,
    events: webhook.events,
    projects: webhook.projects,
    environments: webhook.environments,
    parameters: {
      url,
      ...(contentType !== null && { contentType }),
      ...(authorization !== null && { authorization: MASK as typeof MASK }),
      ...(customHeaders !== null && {
        customHeaders: Object.fromEntries(Object.keys(customHeaders).map((name) => [name, MASK])) as Record<string, typeof MASK>,
      }),
      ...(bodyTemplate !== null && { bodyTemplate }),
    },
    createdAt: webhook.createdAt,
  }
}

/** `*` anywhere in a list means all, which is stored as the empty list. */
const scope = (list: string[] | undefined) => (list === undefined || list.includes('*') ? [] : list)

/**
 * Checks a body the schema has validated further: the template parses, no custom header is
 * reserved or given twice, and the URL's host resolves to addresses webhooks may reach.
 */
async function checkBody (ctx: WebhookChecks, body: AddonBody): Promise<void> {
  const { parameters } = body
  if (parameters.bodyTemplate !== undefined) {
    const problem = templateProblem(parameters.bodyTemplate)
    if (problem) throw invalidField('/body/parameters/bodyTemplate', problem)
  }
  const seen = new Set<string>()
  for (const name of Object.keys(parameters.customHeaders ?? {})) {
    const lower = name.toLowerCase()
    if (RESERVED_HEADERS.includes(lower)) throw invalidField(headerPath(name), 'is a header the service sets itself')
    if (seen.has(lower)) throw invalidField(headerPath(name), 'is given twice (header names are case-insensitive)')
    seen.add(lower)
  }
  try {
    await checkTarget(parameters.url, { allowedNetworks: ctx.config.allowedNetworks, resolve: ctx.resolve, timeoutMs: ctx.config.timeoutMs })
  } catch (error) {
    if (error instanceof RefusedTarget) throw invalidField('/body/parameters/url', error.rule)
    throw error
  }
}

const headerPath = (name: string) => `/body/parameters/customHeaders/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`

/** The stored configuration of a checked body; masked secrets sent back (`*****`) keep the values of `stored`. */
function configOf (body: AddonBody, stored?: StoredWebhook): WebhookConfig {
  const { parameters } = body
  let customHeaders: Record<string, string> | null = null
  if (parameters.customHeaders !== undefined) {
    customHeaders = {}
    for (const [name, value] of Object.entries(parameters.customHeaders)) {
      const kept = value === MASK ? stored?.customHeaders?.[name] : value
      if (kept === undefined) throw invalidField(headerPath(name), `is ${MASK}, but no value of this header is stored to keep`)
      customHeaders[name] = kept
    }
  }
  let authorization = parameters.authorization ?? null
  if (authorization === MASK) {
    authorization = stored?.authorization ?? null
    if (authorization === null) throw invalidField('/body/parameters/authorization', `is ${MASK}, but no authorization is stored to keep`)
  }
  return {
    description: body.description ?? null,
    enabled: body.enabled,
    events: body.events,
    projects: scope(body.projects),
    environments: scope(body.environments),
    url: parameters.url,
    contentType: parameters.contentType ?? null,
    authorization,
    customHeaders,
    bodyTemplate: parameters.bodyTemplate ?? null,
  }
}

const eventData = (webhook: StoredWebhook) => toJsonText(addonView(webhook))

/** Creates a webhook (addon-config-created) and returns it with its signing secret, which reads never show. */
export async function createAddon (writer: Writer, ctx: WebhookChecks, body: AddonBody, createdBy: Author) {
  await checkBody(ctx, body)
  const config = configOf(body)
  const signingSecret = generateSigningSecret()
  const created = await withChange(writer, async ({ trx, record }) => {
    const webhook = await insertWebhook(trx, config, signingSecret)
    record({ type: 'addon-config-created', createdBy, data: eventData(webhook) })
    return webhook
  })
  return { ...addonView(created), signingSecret }
}

export const addons = async (db: Database) => (await listWebhooks(db)).map(addonView)

const missing = (id: number) => notFound(`Addon ${id} does not exist`)

export async function addon (db: Database, id: number) {
  const webhook = await findWebhook(db, id)
  if (!webhook) throw missing(id)
  return addonView(webhook)
}

/** Replaces a webhook's configuration (addon-config-updated, the previous one in preData). */
export async function updateAddon (writer: Writer, ctx: WebhookChecks, id: number, body: AddonBody, createdBy: Author) {
  // Resolving the URL can take a while: done before the transaction, not under the row lock.
  await checkBody(ctx, body)
  const updated = await withChange(writer, async ({ trx, record }) => {
    const stored = await lockWebhook(trx, id)
    if (!stored) throw missing(id)
    const next = await updateWebhook(trx, id, configOf(body, stored))
    record({ type: 'addon-config-updated', createdBy, data: eventData(next), preData: eventData(stored) })
    return next
  })
  return addonView(updated)
}

/** Deletes a webhook with its deliveries (addon-config-deleted). */
export function removeAddon (writer: Writer, id: number, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const deleted = await deleteWebhook(trx, id)
    if (!deleted) throw missing(id)
    record({ type: 'addon-config-deleted', createdBy, preData: eventData(deleted) })
  })
}

/** A new signing secret (addon-secret-rotated); the previous one also signs for WEBHOOK_SECRET_OVERLAP_MS. */
export async function rotateAddonSecret (writer: Writer, ctx: WebhookChecks, id: number, createdBy: Author) {
  const signingSecret = generateSigningSecret()
  const rotated = await withChange(writer, async ({ trx, record }) => {
    const row = await rotateSecret(trx, id, signingSecret, ctx.config.secretOverlapMs)
    if (!row) throw missing(id)
    record({ type: 'addon-secret-rotated', createdBy, data: toJsonText({ id, previousSecretValidUntil: row.previous_secret_until }) })
    return row
  })
  return { signingSecret, previousSecretValidUntil: rotated.previous_secret_until! }
}

/** A page of the webhook's deliveries, newest first. */
export async function deliveries (db: Database, id: number, page: { limit: number; before?: number }) {
  if (!(await findWebhook(db, id))) throw missing(id)
  return listDeliveries(db, id, page)
}

/** Makes a delivery due again now, with the same webhook-id (addon-delivery-redelivered). */
export async function redeliver (writer: Writer, id: number, deliveryId: number, createdBy: Author) {
  await withChange(writer, async ({ trx, record }) => {
    const row = await requeueDelivery(trx, id, deliveryId)
    if (!row) {
      if (!(await lockWebhook(trx, id))) throw missing(id)
      throw notFound(`Addon ${id} has no delivery ${deliveryId}`)
    }
    record({ type: 'addon-delivery-redelivered', createdBy, data: toJsonText({ id, deliveryId, eventId: Number(row.event_id) }) })
  })
  // The page that starts at this delivery holds it first (unless the webhook was deleted since).
  const [delivery] = (await listDeliveries(readerOf(writer), id, { limit: 1, before: deliveryId + 1 })).deliveries
  if (delivery?.id !== deliveryId) throw missing(id)
  return delivery
}

/** What the last attempt of a delivery got, in words. */
function outcome (attempt: TriedDelivery['attempts'][number]): string {
  const status = attempt.status === null ? 'no answer' : `status code ${attempt.status}`
  return attempt.error === null ? status : `${status}: ${attempt.error}`
}

/** A tried delivery as Unleash's integration event: delivered is success, else failed (given up, or to be tried again). */
function integrationEvent (delivery: TriedDelivery) {
  const last = delivery.attempts.at(-1)!
  const tries = `${delivery.attempts.length} attempt${delivery.attempts.length === 1 ? '' : 's'}`
  const stateDetails =
    delivery.state === 'delivered'
      ? `Delivered (${outcome(last)}) after ${tries}`
      : delivery.state === 'dead'
        ? `Gave up after ${tries}; the last got ${outcome(last)}`
        : `Failed ${tries} so far; the last got ${outcome(last)}; tried again at ${delivery.nextAttemptAt.toISOString()}`
  return {
    id: delivery.id,
    integrationId: delivery.webhookId,
    createdAt: last.startedAt,
    state: delivery.state === 'delivered' ? ('success' as const) : ('failed' as const),
    stateDetails,
    event: delivery.event,
    details: {
      messageId: delivery.messageId,
      attempts: delivery.attempts,
      ...(delivery.state === 'pending' && { nextAttemptAt: delivery.nextAttemptAt }),
    },
  }
}

/** The webhook's tried deliveries as Unleash's integration events, newest first. */
export async function integrationEvents (db: Database, id: number, page: { limit: number; offset: number }) {
  if (!(await findWebhook(db, id))) throw missing(id)
  return (await triedDeliveries(db, id, page)).map(integrationEvent)
}
