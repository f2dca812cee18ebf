import type { Transaction } from 'kysely'
import { isForeignKeyViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import { notFound } from '../errors.js'

/** Marks a feature as the person's favourite; false when it was one already. */
export async function insertFavoriteFeature (trx: Transaction<DB>, userId: number, feature: string): Promise<boolean> {
  const row = await trx
    .insertInto('favorite_features')
    .values({ user_id: userId, feature_name: feature })
    .onConflict((oc) => oc.doNothing())
    .returning('feature_name')
    .executeTakeFirst()
  return row !== undefined
}

/** Unmarks it; false when it was not one. */
export async function deleteFavoriteFeature (trx: Transaction<DB>, userId: number, feature: string): Promise<boolean> {
  const rows = await trx.deleteFrom('favorite_features').where('user_id', '=', userId).where('feature_name', '=', feature).returning('feature_name').execute()
  return rows.length > 0
}

export async function insertFavoriteProject (trx: Transaction<DB>, userId: number, project: string): Promise<boolean> {
  try {
    const row = await trx
      .insertInto('favorite_projects')
      .values({ user_id: userId, project_id: project })
      .onConflict((oc) => oc.doNothing())
      .returning('project_id')
      .executeTakeFirst()
    return row !== undefined
  } catch (error) {
    // Deleted since it was looked up.
    if (isForeignKeyViolation(error)) throw notFound(`Project ${project} does not exist`)
    throw error
  }
}

export async function deleteFavoriteProject (trx: Transaction<DB>, userId: number, project: string): Promise<boolean> {
  const rows = await trx.deleteFrom('favorite_projects').where('user_id', '=', userId).where('project_id', '=', project).returning('project_id').execute()
  return rows.length > 0
}

/** Which of these features are the person's favourites. */
export async function favoriteFeaturesAmong (db: Queryable, userId: number, features: readonly string[]): Promise<Set<string>> {
  if (features.length === 0) return new Set()
  const rows = await db.selectFrom('favorite_features').select('feature_name').where('user_id', '=', userId).where('feature_name', 'in', features).execute()
  return new Set(rows.map((r) => r.feature_name))
}

/** The person's favourite features of a project (archived ones too). */
export async function favoriteFeaturesOfProject (db: Queryable, userId: number, project: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('favorite_features as ff')
    .innerJoin('features as f', 'f.name', 'ff.feature_name')
    .select('ff.feature_name')
    .where('ff.user_id', '=', userId)
    .where('f.project_id', '=', project)
    .execute()
  return new Set(rows.map((r) => r.feature_name))
}
