import { sql, type Transaction } from 'kysely'
import type { DB, Queryable } from '../db/types.js'

/** Unleash's names of the settings kept here, and the instance's id (made by the migration). */
export const MAINTENANCE = 'maintenance.mode'
export const FRONTEND = 'unleash.frontend'
export const INSTANCE_ID = 'instance.id'
export type SettingName = typeof MAINTENANCE | typeof FRONTEND | typeof INSTANCE_ID

export async function readSettings (db: Queryable): Promise<Partial<Record<SettingName, unknown>>> {
  const rows = await db.selectFrom('instance_settings').select(['name', 'value']).where('name', 'in', [MAINTENANCE, FRONTEND, INSTANCE_ID]).execute()
  return Object.fromEntries(rows.map((r) => [r.name, r.value]))
}

/** A setting, locked until the transaction ends (saves serialise on it); undefined when never saved. */
export async function lockSetting (trx: Transaction<DB>, name: SettingName): Promise<unknown> {
  // The row may not exist yet: a transaction-scoped advisory lock on the name serialises the first saves too.
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`instance_settings:${name}`}))`.execute(trx)
  const row = await trx.selectFrom('instance_settings').select('value').where('name', '=', name).executeTakeFirst()
  return row?.value
}

export async function writeSetting (trx: Transaction<DB>, name: SettingName, value: unknown): Promise<void> {
  const json = JSON.stringify(value)
  await trx
    .insertInto('instance_settings')
    .values({ name, value: json })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: json, updated_at: sql<Date>`now()` }))
    .execute()
}
