import { monotonicFactory } from 'ulid'
import { invalidField, notFound } from '../errors.js'
import { type Change, withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { lockFeature } from '../features/features.store.js'
import type { FeatureRef } from '../features/missing.js'
import type { FeatureLink, LinkBody } from './feature-links.schemas.js'
import { deleteLink, findLink, insertLink, linksOf, updateLink } from './feature-links.store.js'
import { MAX_LINKS_PER_FEATURE, normalizeLinkUrl } from './link-rules.js'

/** Link ids grow within a millisecond too: links added together keep their order. */
const nextId = monotonicFactory()

const eventOf = (ref: FeatureRef, createdBy: Author) => ({ createdBy, project: ref.project, featureName: ref.feature })

/** What a link says: its normalised address and its title (an empty title is none). */
const linkOf = (body: LinkBody, root: string) => ({ url: normalizeLinkUrl(body.url, `${root}/url`), title: body.title || null })

const missingLink = (ref: FeatureRef, id: string) => notFound(`Link ${id} does not exist for feature ${ref.feature} in project ${ref.project}`)

async function add (change: Change, ref: FeatureRef, link: { url: string; title: string | null }, createdBy: Author) {
  await insertLink(change.trx, { id: nextId(), feature: ref.feature, ...link })
  change.record({ ...eventOf(ref, createdBy), type: 'feature-link-added', data: toJsonText(link) })
}

async function remove (change: Change, ref: FeatureRef, link: FeatureLink, createdBy: Author) {
  await deleteLink(change.trx, link.id)
  change.record({ ...eventOf(ref, createdBy), type: 'feature-link-removed', preData: toJsonText({ url: link.url, title: link.title }) })
}

const tooManyLinks = (at: string, ref: FeatureRef) =>
  invalidField(at, `would be link ${MAX_LINKS_PER_FEATURE + 1} of feature ${ref.feature}; at most ${MAX_LINKS_PER_FEATURE} are allowed`)

/** Adds a link to a feature (feature-link-added with the normalised address); at most 10 per feature. */
export function addLink (writer: Writer, ref: FeatureRef, body: LinkBody, createdBy: Author) {
  const link = linkOf(body, '/body')
  return withChange(writer, async (change) => {
    await lockFeature(change.trx, ref)
    if ((await linksOf(change.trx, ref.feature)).length >= MAX_LINKS_PER_FEATURE) throw tooManyLinks('/body', ref)
    await add(change, ref, link, createdBy)
  })
}

/** Changes a link (feature-link-updated with data and preData); the same address and title again change nothing. */
export function changeLink (writer: Writer, ref: FeatureRef, id: string, body: LinkBody, createdBy: Author) {
  const link = linkOf(body, '/body')
  return withChange(writer, async ({ trx, record }) => {
    await lockFeature(trx, ref)
    const current = await findLink(trx, ref.feature, id)
    if (!current) throw missingLink(ref, id)
    if (current.url === link.url && current.title === link.title) return
    await updateLink(trx, id, link)
    record({ ...eventOf(ref, createdBy), type: 'feature-link-updated', data: toJsonText(link), preData: toJsonText({ url: current.url, title: current.title }) })
  })
}

/** Removes a link (feature-link-removed with preData). */
export function removeLink (writer: Writer, ref: FeatureRef, id: string, createdBy: Author) {
  return withChange(writer, async (change) => {
    await lockFeature(change.trx, ref)
    const current = await findLink(change.trx, ref.feature, id)
    if (!current) throw missingLink(ref, id)
    await remove(change, ref, current, createdBy)
  })
}

/**
 * A feature's links become `wanted`, in that order: nothing changes when they are these
 * already (ids aside); otherwise the old ones are removed and the wanted ones added, each as
 * the single routes do (their events). A refusal names the element at `rootOf(index)`.
 */
export function setLinks (
  writer: Writer,
  ref: FeatureRef,
  wanted: readonly LinkBody[],
  createdBy: Author,
  rootOf: (index: number) => string = (index) => `/body/${index}`
) {
  const links = wanted.map((body, i) => linkOf(body, rootOf(i)))
  return withChange(writer, async (change) => {
    await lockFeature(change.trx, ref)
    if (links.length > MAX_LINKS_PER_FEATURE) throw tooManyLinks(rootOf(MAX_LINKS_PER_FEATURE), ref)
    const current = await linksOf(change.trx, ref.feature)
    const text = (list: readonly { url: string; title: string | null }[]) => JSON.stringify(list.map((l) => [l.url, l.title]))
    if (text(current) === text(links)) return
    for (const link of current) await remove(change, ref, link, createdBy)
    for (const link of links) await add(change, ref, link, createdBy)
  })
}
