import type { Transaction } from 'kysely'
import type { DB, Queryable } from '../db/types.js'

export interface FeatureType {
  id: string
  name: string
  description: string
  lifetimeDays: number | null
}

const toFeatureType = (r: { id: string; name: string; description: string; lifetime_days: number | null }): FeatureType => ({
  id: r.id,
  name: r.name,
  description: r.description,
  lifetimeDays: r.lifetime_days,
})

export async function listFeatureTypes (db: Queryable): Promise<FeatureType[]> {
  const rows = await db.selectFrom('feature_types').select(['id', 'name', 'description', 'lifetime_days']).orderBy('created_at').orderBy('id').execute()
  return rows.map(toFeatureType)
}

export async function lockFeatureType (trx: Transaction<DB>, id: string): Promise<FeatureType | undefined> {
  const row = await trx.selectFrom('feature_types').select(['id', 'name', 'description', 'lifetime_days']).where('id', '=', id).forNoKeyUpdate().executeTakeFirst()
  return row && toFeatureType(row)
}

export async function setLifetime (trx: Transaction<DB>, id: string, lifetimeDays: number | null) {
  await trx.updateTable('feature_types').set({ lifetime_days: lifetimeDays }).where('id', '=', id).execute()
}
