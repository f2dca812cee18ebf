import { sql } from 'kysely'
import type { Queryable } from '../db/types.js'

export interface LimitKey {
  scope: 'account' | 'address'
  key: string
}

const millis = (ms: number) => sql<string>`(${ms} * interval '1 millisecond')`

/**
 * Counts one attempt against each key, in one statement (atomic, so concurrent attempts are
 * all counted), starting a new window for a key whose window is over. Returns each key's count
 * and the milliseconds left in its window.
 */
export async function countAttempt (db: Queryable, keys: LimitKey[], windowMs: number) {
  const over = sql<boolean>`login_failures.window_started_at <= now() - ${millis(windowMs)}`
  const rows = await db
    .insertInto('login_failures')
    .values(keys.map((k) => ({ scope: k.scope, key: k.key, window_started_at: sql<Date>`now()`, failures: 1 })))
    .onConflict((oc) =>
      oc.columns(['scope', 'key']).doUpdateSet({
        failures: sql<number>`CASE WHEN ${over} THEN 1 ELSE login_failures.failures + 1 END`,
        window_started_at: sql<Date>`CASE WHEN ${over} THEN now() ELSE login_failures.window_started_at END`,
      })
    )
    .returning([
      'scope',
      'failures',
      sql<string>`ceil(extract(epoch from (window_started_at + ${millis(windowMs)} - now())) * 1000)`.as('left_ms'),
    ])
    .execute()
  return rows.map((r) => ({ scope: r.scope, failures: r.failures, leftMs: Math.max(0, Number(r.left_ms)) }))
}

/** A successful login: its account starts afresh; the address takes back the attempt it counted. */
export async function forgiveAttempt (db: Queryable, account: LimitKey, address?: LimitKey): Promise<void> {
  await db.deleteFrom('login_failures').where('scope', '=', 'account').where('key', '=', account.key).execute()
  if (address === undefined) return
  await db
    .updateTable('login_failures')
    .set({ failures: sql<number>`greatest(failures - 1, 0)` })
    .where('scope', '=', 'address')
    .where('key', '=', address.key)
    .execute()
}

export async function deleteOldFailures (db: Queryable, windowMs: number): Promise<void> {
  await db.deleteFrom('login_failures').where('window_started_at', '<=', sql<Date>`now() - ${millis(windowMs)}`).execute()
}

/** A source's attempt that succeeded is taken back (a sign-up that worked). */
export async function forgiveAddressAttempt (db: Queryable, address: LimitKey): Promise<void> {
  await db
    .updateTable('login_failures')
    .set({ failures: sql<number>`greatest(failures - 1, 0)` })
    .where('scope', '=', 'address')
    .where('key', '=', address.key)
    .execute()
}
