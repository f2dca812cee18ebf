import { coversProject, type TokenScope } from '../access/scope.js'
import type { Database } from '../db/types.js'
import { invalidField, nameExists, notFound } from '../errors.js'
import { type Change, type Writer, withChange } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { lockFeatures } from '../features/features.store.js'
import type { Tag, TagBody, TagType, TagTypeBody, TagTypeUpdate, TagsChange } from './tags.schemas.js'
import {
  deleteTag,
  deleteTagType,
  featureProject,
  findTag,
  findTagType,
  insertTag,
  insertTagType,
  listTags,
  listTagTypes,
  lockFeatureProject,
  lockTagType,
  tagFeature,
  tagsOfFeature,
  untagFeature,
  updateTagType,
} from './tags.store.js'

export const DEFAULT_TAG_TYPE = 'simple'

/** A tag as stored: its value trimmed (2–50 characters after that), its type simple when left out. */
export function tagOf (body: TagBody, path: string): Tag {
  const value = body.value.trim()
  if (value.length < 2) throw invalidField(`${path}/value`, 'must have at least 2 characters besides surrounding white space')
  return { value, type: body.type ?? DEFAULT_TAG_TYPE }
}

const tagTypeOf = (body: TagTypeBody): TagType => ({
  name: body.name,
  description: body.description ?? '',
  icon: body.icon ?? null,
  color: body.color || null,
})

// Tag types

export const tagTypes = (db: Database) => listTagTypes(db)

export async function tagType (db: Database, name: string) {
  const found = await findTagType(db, name)
  if (!found) throw notFound(`Tagtype ${name} could not be found`)
  return found
}

/** A new tag type (tag-type-created); 409 when the name is taken. */
export function createTagType (target: Writer, body: TagTypeBody, createdBy: Author) {
  return withChange(target, async ({ trx, record }) => {
    const created = await insertTagType(trx, tagTypeOf(body))
    record({ type: 'tag-type-created', createdBy, data: toJsonText(created) })
    return created
  })
}

/** 409 when a tag type of that name exists (the body is valid, or the schema said why not). */
export async function checkTagType (db: Database, body: TagTypeBody) {
  if (await findTagType(db, body.name)) throw nameExists(`There already exists a tag-type with the name ${body.name}`)
}

/** Changes a tag type's description, icon and colour (tag-type-updated); left out, they keep their value. */
export function changeTagType (db: Database, name: string, body: TagTypeUpdate, createdBy: Author) {
  if (body.name !== undefined && body.name !== name) throw invalidField('/body/name', `must be ${name}, the name in the path: a tag type cannot be renamed`)
  return withChange(db, async ({ trx, record }) => {
    const current = await lockTagType(trx, name)
    if (!current) throw notFound(`Tagtype ${name} could not be found`)
    const next: TagType = {
      name,
      description: body.description ?? current.description,
      icon: body.icon === undefined ? current.icon : body.icon,
      color: body.color === undefined ? current.color : body.color || null,
    }
    if (JSON.stringify(next) === JSON.stringify(current)) return
    await updateTagType(trx, next)
    record({ type: 'tag-type-updated', createdBy, data: toJsonText(next), preData: toJsonText(current) })
  })
}

/**
 * Deletes a tag type with its tags, which leave every feature that had them
 * (tag-type-deleted). One that does not exist changes nothing (200, as Unleash).
 */
export function removeTagType (db: Database, name: string, createdBy: Author) {
  return withChange(db, async ({ trx, record }) => {
    const current = await lockTagType(trx, name)
    if (!current) return
    await deleteTagType(trx, name)
    record({ type: 'tag-type-deleted', createdBy, preData: toJsonText(current) })
  })
}

// Tags

export const tags = (db: Database, type?: string) => listTags(db, type)

export async function tag (db: Database, wanted: Tag) {
  const found = await findTag(db, wanted)
  if (!found) throw notFound(`No tag of type ${wanted.type} with the value ${wanted.value}`)
  return found
}

/** A new tag (tag-created); 409 when it exists, 400 when its type does not. */
export function createTag (db: Database, body: TagBody, createdBy: Author) {
  const wanted = tagOf(body, '/body')
  return withChange(db, async ({ trx, record }) => {
    await insertTag(trx, wanted, { conflictIsError: true })
    record({ type: 'tag-created', createdBy, data: toJsonText(wanted) })
    return wanted
  })
}

/** Deletes a tag, which leaves every feature that had it (tag-deleted); one that is not there changes nothing. */
export function removeTag (db: Database, wanted: Tag, createdBy: Author) {
  return withChange(db, async ({ trx, record }) => {
    if (await deleteTag(trx, wanted)) record({ type: 'tag-deleted', createdBy, data: toJsonText(wanted) })
  })
}

// Tags of features

/** 404 for a feature that does not exist or is of a project outside the token's scope (which learns nothing). */
function requireVisible (project: string | undefined, feature: string, token: TokenScope): string {
  if (project === undefined || !coversProject(token, project)) throw notFound(`Feature ${feature} does not exist`)
  return project
}

/** 404 unless the feature exists in a project of the token's scope. */
export async function requireFeatureVisible (db: Database, feature: string, token: TokenScope) {
  requireVisible(await featureProject(db, feature), feature, token)
}

export async function featureTags (db: Database, feature: string, token: TokenScope) {
  requireVisible(await featureProject(db, feature), feature, token)
  return tagsOfFeature(db, feature)
}

/** Creates the tag when it is new (tag-created), then tags the feature (feature-tagged); a tag it has changes nothing. */
async function addTagTo (change: Change, project: string, feature: string, wanted: Tag, createdBy: Author) {
  if (await insertTag(change.trx, wanted, { conflictIsError: false })) {
    change.record({ type: 'tag-created', createdBy, data: toJsonText(wanted) })
  }
  if (await tagFeature(change.trx, feature, wanted)) {
    change.record({ type: 'feature-tagged', createdBy, project, featureName: feature, data: toJsonText(wanted) })
  }
}

async function removeTagFrom (change: Change, project: string, feature: string, wanted: Tag, createdBy: Author) {
  if (await untagFeature(change.trx, feature, wanted)) {
    change.record({ type: 'feature-untagged', createdBy, project, featureName: feature, preData: toJsonText(wanted) })
  }
}

/** Tags a feature (archived ones too, as Unleash), with the feature's row locked. */
export function addFeatureTag (target: Writer, feature: string, body: TagBody, token: TokenScope, author: Author) {
  const wanted = tagOf(body, '/body')
  return withChange(target, async (change) => {
    const project = requireVisible(await lockFeatureProject(change.trx, feature), feature, token)
    await addTagTo(change, project, feature, wanted, author)
    return wanted
  })
}

/** Adds and removes tags of a feature in one change; returns its tags after. */
export function changeFeatureTags (db: Database, feature: string, body: TagsChange, token: TokenScope, author: Author) {
  const added = body.addedTags.map((t, i) => tagOf(t, `/body/addedTags/${i}`))
  const removed = body.removedTags.map((t, i) => tagOf(t, `/body/removedTags/${i}`))
  return withChange(db, async (change) => {
    const project = requireVisible(await lockFeatureProject(change.trx, feature), feature, token)
    for (const wanted of added) await addTagTo(change, project, feature, wanted, author)
    for (const wanted of removed) await removeTagFrom(change, project, feature, wanted, author)
    return tagsOfFeature(change.trx, feature)
  })
}

/**
 * A feature's tags become `wanted` (each as tagOf reads it): those it has that are not wanted
 * are removed (feature-untagged), wanted ones it lacks are added (tag-created when new,
 * feature-tagged). The same tags again change nothing. A refusal names the element at
 * `rootOf(index in wanted)`.
 */
export function setFeatureTags (
  target: Writer,
  feature: string,
  wanted: readonly TagBody[],
  token: TokenScope,
  author: Author,
  rootOf: (index: number) => string = (index) => `/body/${index}`
) {
  const tags = wanted.map((t, i) => tagOf(t, rootOf(i)))
  const key = (tag: Tag) => `${tag.type}\u0000${tag.value}`
  return withChange(target, async (change) => {
    const project = requireVisible(await lockFeatureProject(change.trx, feature), feature, token)
    const current = await tagsOfFeature(change.trx, feature)
    const wantedKeys = new Set(tags.map(key))
    for (const tag of current) if (!wantedKeys.has(key(tag))) await removeTagFrom(change, project, feature, tag, author)
    for (const tag of tags) await addTagTo(change, project, feature, tag, author)
  })
}

/** Removes a tag from a feature (feature-untagged); a tag it does not have changes nothing. */
export function removeFeatureTag (target: Writer, feature: string, wanted: Tag, token: TokenScope, author: Author) {
  return withChange(target, async (change) => {
    const project = requireVisible(await lockFeatureProject(change.trx, feature), feature, token)
    await removeTagFrom(change, project, feature, wanted, author)
  })
}

/**
 * Adds and removes tags on several features of a project, all or none (Unleash's bulk tagging):
 * the features locked first, in name order (404 naming the first that is not in the project);
 * each then gets the added tags and loses the removed ones, as the single routes do it (their
 * events; a tag it has, or lacks, changes nothing).
 */
export function tagFeatures (writer: Writer, project: string, features: readonly string[], body: TagsChange, author: Author) {
  const added = body.addedTags.map((t, i) => tagOf(t, `/body/tags/addedTags/${i}`))
  const removed = body.removedTags.map((t, i) => tagOf(t, `/body/tags/removedTags/${i}`))
  return withChange(writer, async (change) => {
    for (const { name } of await lockFeatures(change.trx, project, features)) {
      for (const wanted of added) await addTagTo(change, project, name, wanted, author)
      for (const wanted of removed) await removeTagFrom(change, project, name, wanted, author)
    }
  })
}
