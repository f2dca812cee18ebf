import { sql, type Transaction } from 'kysely'
import type { DB, Queryable } from '../db/types.js'

/** Unleash's names of the two settings. */
export const OIDC_SETTINGS = 'unleash.enterprise.auth.oidc'
export const PASSWORD_SETTINGS = 'unleash.auth.simple'
export type SettingName = typeof OIDC_SETTINGS | typeof PASSWORD_SETTINGS

/** `ms` milliseconds as a PostgreSQL interval, bound as a number. */
const millis = (ms: number) => sql<string>`(${ms} * interval '1 millisecond')`

export async function readSettings (db: Queryable): Promise<Partial<Record<SettingName, unknown>>> {
  const rows = await db.selectFrom('auth_settings').select(['name', 'value']).where('name', 'in', [OIDC_SETTINGS, PASSWORD_SETTINGS]).execute()
  return Object.fromEntries(rows.map((r) => [r.name, r.value]))
}

/** A setting, locked until the transaction ends (saves serialise on it); undefined when never saved. */
export async function lockSetting (trx: Transaction<DB>, name: SettingName): Promise<unknown> {
  // The row may not exist yet: a transaction-scoped advisory lock on the name serialises the first saves too.
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`auth_settings:${name}`}))`.execute(trx)
  const row = await trx.selectFrom('auth_settings').select('value').where('name', '=', name).executeTakeFirst()
  return row?.value
}

export async function writeSetting (trx: Transaction<DB>, name: SettingName, value: object): Promise<void> {
  const json = JSON.stringify(value)
  await trx
    .insertInto('auth_settings')
    .values({ name, value: json })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: json, updated_at: sql<Date>`now()` }))
    .execute()
}

export interface NewLogin {
  bindingHash: string
  state: string
  nonce: string
  codeVerifier: string | undefined
  redirect: string
  addressKey: string
  ttlMs: number
}

/** Logins under way (not expired): in all, and from one source address. */
export async function countLogins (db: Queryable, addressKey: string): Promise<{ all: number; address: number }> {
  const row = await db
    .selectFrom('oidc_logins')
    .select([
      (eb) => eb.fn.countAll<string>().as('all'),
      sql<string>`count(*) FILTER (WHERE address_key = ${addressKey})`.as('address'),
    ])
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirstOrThrow()
  return { all: Number(row.all), address: Number(row.address) }
}

export async function insertLogin (db: Queryable, login: NewLogin): Promise<void> {
  await db
    .insertInto('oidc_logins')
    .values({
      binding_hash: login.bindingHash,
      state: login.state,
      nonce: login.nonce,
      code_verifier: login.codeVerifier ?? null,
      redirect: login.redirect,
      address_key: login.addressKey,
      expires_at: sql<Date>`now() + ${millis(login.ttlMs)}`,
    })
    .execute()
}

/** Deletes a login and returns it when it had not expired: each is used once, even by concurrent callbacks. */
export async function takeLogin (db: Queryable, bindingHash: string) {
  return db
    .deleteFrom('oidc_logins')
    .where('binding_hash', '=', bindingHash)
    .returning(['state', 'nonce', 'code_verifier', 'redirect', sql<boolean>`expires_at > now()`.as('live')])
    .executeTakeFirst()
}

/** Removes logins that expired (their browser never came back). */
export async function deleteExpiredLogins (db: Queryable): Promise<number> {
  const result = await db.deleteFrom('oidc_logins').where('expires_at', '<=', sql<Date>`now()`).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function markSsoSession (trx: Transaction<DB>, sessionHash: string): Promise<void> {
  await trx.insertInto('oidc_sessions').values({ session_hash: sessionHash }).execute()
}

export async function isSsoSession (db: Queryable, sessionHash: string): Promise<boolean> {
  return (await db.selectFrom('oidc_sessions').select('session_hash').where('session_hash', '=', sessionHash).executeTakeFirst()) !== undefined
}
