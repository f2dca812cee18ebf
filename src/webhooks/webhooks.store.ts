import { type Selectable, sql, type Transaction } from 'kysely'
import type { DB, Queryable, WebhooksTable } from '../db/types.js'

/** A webhook as the service handles it, secrets included (the routes mask them). */
export interface WebhookConfig {
  description: string | null
  enabled: boolean
  events: string[]
  projects: string[]
  environments: string[]
  url: string
  contentType: string | null
  authorization: string | null
  customHeaders: Record<string, string> | null
  bodyTemplate: string | null
}

export interface StoredWebhook extends WebhookConfig {
  id: number
  createdAt: Date
}

const columns = [
  'id',
  'description',
  'enabled',
  'events',
  'projects',
  'environments',
  'url',
  'content_type',
  'auth_header',
  'custom_headers',
  'body_template',
  'created_at',
] as const

const toWebhook = (row: Pick<Selectable<WebhooksTable>, (typeof columns)[number]>): StoredWebhook => ({
  id: row.id,
  description: row.description,
  enabled: row.enabled,
  events: row.events,
  projects: row.projects,
  environments: row.environments,
  url: row.url,
  contentType: row.content_type,
  authorization: row.auth_header,
  customHeaders: row.custom_headers === null ? null : (JSON.parse(row.custom_headers) as Record<string, string>),
  bodyTemplate: row.body_template,
  createdAt: row.created_at,
})

const toRow = (config: WebhookConfig) => ({
  description: config.description,
  enabled: config.enabled,
  events: config.events,
  projects: config.projects,
  environments: config.environments,
  url: config.url,
  content_type: config.contentType,
  auth_header: config.authorization,
  custom_headers: config.customHeaders === null ? null : JSON.stringify(config.customHeaders),
  body_template: config.bodyTemplate,
})

export async function insertWebhook (trx: Transaction<DB>, config: WebhookConfig, signingSecret: string) {
  const row = await trx
    .insertInto('webhooks')
    .values({ ...toRow(config), signing_secret: signingSecret })
    .returning(columns)
    .executeTakeFirstOrThrow()
  return toWebhook(row)
}

/** Whether any webhook is enabled (when none is, there is nothing to claim). */
export async function anyEnabledWebhook (db: Queryable): Promise<boolean> {
  const row = await db.selectFrom('webhooks').select('id').where('enabled', '=', true).limit(1).executeTakeFirst()
  return row !== undefined
}

export async function listWebhooks (db: Queryable) {
  const rows = await db.selectFrom('webhooks').select(columns).orderBy('id').execute()
  return rows.map(toWebhook)
}

export async function findWebhook (db: Queryable, id: number) {
  const row = await db.selectFrom('webhooks').select(columns).where('id', '=', id).executeTakeFirst()
  return row && toWebhook(row)
}

/** The webhook, locked until the transaction ends (updates of one webhook queue). */
export async function lockWebhook (trx: Transaction<DB>, id: number) {
  const row = await trx.selectFrom('webhooks').select(columns).where('id', '=', id).forUpdate().executeTakeFirst()
  return row && toWebhook(row)
}

export async function updateWebhook (trx: Transaction<DB>, id: number, config: WebhookConfig) {
  const row = await trx.updateTable('webhooks').set(toRow(config)).where('id', '=', id).returning(columns).executeTakeFirstOrThrow()
  return toWebhook(row)
}

/** Deletes the webhook with its deliveries and their attempts (ON DELETE CASCADE). */
export async function deleteWebhook (trx: Transaction<DB>, id: number) {
  const row = await trx.deleteFrom('webhooks').where('id', '=', id).returning(columns).executeTakeFirst()
  return row && toWebhook(row)
}

/** A new signing secret; the current one stays valid (signs too) for `overlapMs`. */
export async function rotateSecret (trx: Transaction<DB>, id: number, signingSecret: string, overlapMs: number) {
  return trx
    .updateTable('webhooks')
    .set((eb) => ({
      previous_secret: eb.ref('signing_secret'),
      previous_secret_until: sql<Date>`now() + ${overlapMs} * interval '1 millisecond'`,
      signing_secret: signingSecret,
    }))
    .where('id', '=', id)
    .returning('previous_secret_until')
    .executeTakeFirst()
}
