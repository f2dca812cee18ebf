import type { Transaction } from 'kysely'
import { groupBy } from '../db/rows.js'
import type { DB, Queryable } from '../db/types.js'
import type { FeatureLink } from './feature-links.schemas.js'

const toLink = (row: { id: string; feature_name: string; url: string; title: string | null }): FeatureLink => ({
  id: row.id,
  url: row.url,
  title: row.title,
  feature: row.feature_name,
})

const columns = ['id', 'feature_name', 'url', 'title'] as const

/** A feature's links, in the order they were added. */
export async function linksOf (db: Queryable, feature: string): Promise<FeatureLink[]> {
  const rows = await db.selectFrom('feature_links').select(columns).where('feature_name', '=', feature).orderBy('id').execute()
  return rows.map(toLink)
}

/** The links of several features, by feature name, each list in the order they were added. */
export async function linksOfFeatures (db: Queryable, features: readonly string[]): Promise<Map<string, FeatureLink[]>> {
  if (features.length === 0) return new Map()
  const rows = await db
    .selectFrom('feature_links')
    .select(columns)
    .where('feature_name', 'in', features)
    .orderBy('feature_name')
    .orderBy('id')
    .execute()
  return groupBy(rows, (row) => row.feature_name, toLink)
}

export async function findLink (db: Queryable, feature: string, id: string): Promise<FeatureLink | undefined> {
  const row = await db.selectFrom('feature_links').select(columns).where('id', '=', id).where('feature_name', '=', feature).executeTakeFirst()
  return row && toLink(row)
}

export async function insertLink (trx: Transaction<DB>, link: FeatureLink) {
  await trx.insertInto('feature_links').values({ id: link.id, feature_name: link.feature, url: link.url, title: link.title }).execute()
}

export async function updateLink (trx: Transaction<DB>, id: string, fields: { url: string; title: string | null }) {
  await trx.updateTable('feature_links').set(fields).where('id', '=', id).execute()
}

export async function deleteLink (trx: Transaction<DB>, id: string) {
  await trx.deleteFrom('feature_links').where('id', '=', id).execute()
}
