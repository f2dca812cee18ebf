/**
 * Entity tags (RFC 9110 section 8.8.3) and the conditional request headers that carry them:
 * If-Match compares strongly (a weak tag never matches), If-None-Match weakly (W/"x" matches
 * "x": compressing proxies turn tags weak, and a poll must still be answered 304). Both take a
 * comma-separated list, or `*`.
 */

/** The opaque part of an entity tag, and whether it is weak; undefined when it is not one. */
function parse (tag: string): { opaque: string; weak: boolean } | undefined {
  const t = tag.trim()
  const weak = t.startsWith('W/')
  const quoted = weak ? t.slice(2) : t
  if (quoted.length < 2 || !quoted.startsWith('"') || !quoted.endsWith('"')) return undefined
  const opaque = quoted.slice(1, -1)
  return opaque.includes('"') ? undefined : { opaque, weak }
}

/** The tags of a header value, or '*'. Tags that do not parse are ignored. */
function tagsOf (header: string): '*' | { opaque: string; weak: boolean }[] {
  if (header.trim() === '*') return '*'
  return header.split(',').flatMap((part) => parse(part) ?? [])
}

/** `"<opaque>"`, a strong tag. */
export const strongEtag = (opaque: string | number) => `"${opaque}"`

/** If-Match: `*`, or one of the listed tags equals `etag` by strong comparison. */
export function ifMatchHolds (header: string, etag: string): boolean {
  const tags = tagsOf(header)
  const current = parse(etag)
  if (tags === '*') return true
  return current !== undefined && !current.weak && tags.some((t) => !t.weak && t.opaque === current.opaque)
}

/** If-None-Match: `*`, or one of the listed tags equals `etag` by weak comparison: answer 304. */
export function notModified (header: string, etag: string): boolean {
  // The common case, a client sending back the tag it was given: no parsing.
  if (header === etag) return parse(etag) !== undefined
  const tags = tagsOf(header)
  const current = parse(etag)
  if (tags === '*') return true
  return current !== undefined && tags.some((t) => t.opaque === current.opaque)
}
