import type { Transaction } from 'kysely'
import type { DB } from '../db/types.js'

/** An application as people describe it. */
export interface Described {
  description: string | null
  url: string | null
  color: string | null
  icon: string | null
  /** JSON text */
  strategies: string
}

/** The described application, locked until the transaction ends (undefined when nobody described it). */
export async function lockApplication (trx: Transaction<DB>, appName: string) {
  return trx
    .selectFrom('applications')
    .select(['description', 'url', 'color', 'icon', 'strategies'])
    .where('app_name', '=', appName)
    .forUpdate()
    .executeTakeFirst()
}

/** Inserts or replaces what people said of the application. */
export async function saveApplication (trx: Transaction<DB>, appName: string, described: Described, createdBy: string) {
  await trx
    .insertInto('applications')
    .values({ app_name: appName, ...described, created_by: createdBy })
    .onConflict((oc) => oc.column('app_name').doUpdateSet({ ...described, updated_at: new Date() }))
    .execute()
}

/**
 * Forgets an application: what people said of it, and every registration SDKs made under its
 * name (with their instances and counts). Returns how many rows of each went.
 */
export async function deleteApplication (trx: Transaction<DB>, appName: string) {
  const described = await trx.deleteFrom('applications').where('app_name', '=', appName).executeTakeFirst()
  const reported = await trx.deleteFrom('usage_applications').where('app_name', '=', appName).executeTakeFirst()
  await trx.deleteFrom('unknown_flags').where('app_name', '=', appName).execute()
  return { described: Number(described.numDeletedRows), reported: Number(reported.numDeletedRows) }
}
