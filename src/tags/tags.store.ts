import type { Transaction } from 'kysely'
import { isForeignKeyViolation, isUniqueViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import { badData, nameExists } from '../errors.js'
import type { Tag, TagType } from './tags.schemas.js'
import { groupBy } from '../db/rows.js'

const typeColumns = ['name', 'description', 'icon', 'color'] as const

export async function listTagTypes (db: Queryable, names?: readonly string[]): Promise<TagType[]> {
  if (names?.length === 0) return []
  let query = db.selectFrom('tag_types').select(typeColumns).orderBy('name')
  if (names !== undefined) query = query.where('name', 'in', names)
  return query.execute()
}

export async function findTagType (db: Queryable, name: string): Promise<TagType | undefined> {
  return db.selectFrom('tag_types').select(typeColumns).where('name', '=', name).executeTakeFirst()
}

export async function lockTagType (trx: Transaction<DB>, name: string): Promise<TagType | undefined> {
  return trx.selectFrom('tag_types').select(typeColumns).where('name', '=', name).forNoKeyUpdate().executeTakeFirst()
}

export async function insertTagType (trx: Transaction<DB>, tagType: TagType): Promise<TagType> {
  try {
    return await trx.insertInto('tag_types').values(tagType).returning(typeColumns).executeTakeFirstOrThrow()
  } catch (error) {
    if (isUniqueViolation(error)) throw nameExists(`There already exists a tag-type with the name ${tagType.name}`)
    throw error
  }
}

export async function updateTagType (trx: Transaction<DB>, tagType: TagType): Promise<TagType> {
  return trx.updateTable('tag_types').set(tagType).where('name', '=', tagType.name).returning(typeColumns).executeTakeFirstOrThrow()
}

/** Deletes a tag type, its tags and their uses (ON DELETE CASCADE). */
export async function deleteTagType (trx: Transaction<DB>, name: string) {
  await trx.deleteFrom('tag_types').where('name', '=', name).execute()
}

export async function listTags (db: Queryable, type?: string): Promise<Tag[]> {
  let query = db.selectFrom('tags').select(['value', 'type']).orderBy('type').orderBy('value')
  if (type !== undefined) query = query.where('type', '=', type)
  return query.execute()
}

export async function findTag (db: Queryable, tag: Tag): Promise<Tag | undefined> {
  return db.selectFrom('tags').select(['value', 'type']).where('type', '=', tag.type).where('value', '=', tag.value).executeTakeFirst()
}

/**
 * Inserts a tag; returns false when it exists already (a 409 when `conflictIsError`). A tag
 * type that does not exist is a 400 naming it, as Unleash.
 */
export async function insertTag (trx: Transaction<DB>, tag: Tag, { conflictIsError }: { conflictIsError: boolean }): Promise<boolean> {
  try {
    const inserted = await trx
      .insertInto('tags')
      .values({ type: tag.type, value: tag.value })
      .onConflict((oc) => oc.doNothing())
      .returning('value')
      .executeTakeFirst()
    if (!inserted && conflictIsError) throw nameExists(`A tag of type ${tag.type} with the value ${tag.value} already exists`)
    return inserted !== undefined
  } catch (error) {
    if (isForeignKeyViolation(error)) throw badData(`Tag type '${tag.type}' does not exist`)
    throw error
  }
}

/** Deletes a tag and its uses; returns whether it was there. */
export async function deleteTag (trx: Transaction<DB>, tag: Tag): Promise<boolean> {
  const deleted = await trx.deleteFrom('tags').where('type', '=', tag.type).where('value', '=', tag.value).returning('value').executeTakeFirst()
  return deleted !== undefined
}

/** The tags of a feature, in the order they were added. */
export async function tagsOfFeature (db: Queryable, feature: string): Promise<Tag[]> {
  return db
    .selectFrom('feature_tags')
    .select(['tag_value as value', 'tag_type as type'])
    .where('feature_name', '=', feature)
    .orderBy('created_at')
    .orderBy('tag_type')
    .orderBy('tag_value')
    .execute()
}

/** The tags of these features, by feature then in the order they were added. */
export async function tagsOfFeatures (db: Queryable, features: readonly string[]) {
  if (features.length === 0) return []
  return db
    .selectFrom('feature_tags')
    .select(['feature_name as featureName', 'tag_type as tagType', 'tag_value as tagValue'])
    .where('feature_name', 'in', features)
    .orderBy('feature_name')
    .orderBy('created_at')
    .orderBy('tag_type')
    .orderBy('tag_value')
    .execute()
}

/** The tags of the features of a project that are not archived, by feature name, in the order they were added. */
export async function tagsOfProject (db: Queryable, project: string): Promise<Map<string, Tag[]>> {
  const rows = await db
    .selectFrom('feature_tags')
    .innerJoin('features', 'features.name', 'feature_tags.feature_name')
    .select(['feature_tags.feature_name', 'feature_tags.tag_type', 'feature_tags.tag_value'])
    .where('features.project_id', '=', project)
    .where('features.archived_at', 'is', null)
    .orderBy('feature_tags.feature_name')
    .orderBy('feature_tags.created_at')
    .orderBy('feature_tags.tag_type')
    .orderBy('feature_tags.tag_value')
    .execute()
  return groupBy(rows, (r) => r.feature_name, (r): Tag => ({ value: r.tag_value, type: r.tag_type }))
}

/** The features carrying a tag of this value (any type), by name. */
export async function featuresTagged (db: Queryable, value: string): Promise<string[]> {
  const rows = await db.selectFrom('feature_tags').select('feature_name').distinct().where('tag_value', '=', value).orderBy('feature_name').execute()
  return rows.map((r) => r.feature_name)
}

/** Tags a feature; returns false when it had the tag already. */
export async function tagFeature (trx: Transaction<DB>, feature: string, tag: Tag): Promise<boolean> {
  const inserted = await trx
    .insertInto('feature_tags')
    .values({ feature_name: feature, tag_type: tag.type, tag_value: tag.value })
    .onConflict((oc) => oc.doNothing())
    .returning('feature_name')
    .executeTakeFirst()
  return inserted !== undefined
}

/** Removes a tag from a feature; returns whether it had it. */
export async function untagFeature (trx: Transaction<DB>, feature: string, tag: Tag): Promise<boolean> {
  const deleted = await trx
    .deleteFrom('feature_tags')
    .where('feature_name', '=', feature)
    .where('tag_type', '=', tag.type)
    .where('tag_value', '=', tag.value)
    .returning('feature_name')
    .executeTakeFirst()
  return deleted !== undefined
}

/** The project of a feature (archived or not), locked until the transaction ends when `trx` is one. */
export async function lockFeatureProject (trx: Transaction<DB>, feature: string): Promise<string | undefined> {
  const row = await trx.selectFrom('features').select('project_id').where('name', '=', feature).forNoKeyUpdate().executeTakeFirst()
  return row?.project_id
}

export async function featureProject (db: Queryable, feature: string): Promise<string | undefined> {
  const row = await db.selectFrom('features').select('project_id').where('name', '=', feature).executeTakeFirst()
  return row?.project_id
}
