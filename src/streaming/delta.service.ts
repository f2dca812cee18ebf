import { readSnapshot } from '../db/snapshot.js'
import type { TokenScope } from '../access/scope.js'
import type { ClientSegment } from '../client/client.schemas.js'
import { clientFilter, outsideScope, readClientState } from '../client/client.service.js'
import { type ClientFilter, listClientSegments } from '../client/client.store.js'
import type { Database, Queryable } from '../db/types.js'
import { type DeltaEvent, REVISION_PATTERN } from './streaming.schemas.js'
import { type ChangeRow, changesBetween, type Horizon, isRevision, readHorizon, readWatermark, revisionBelow, WIDE_EVENTS } from './streaming.store.js'

/*
 * Revisions. Every event stores the id of the transaction that wrote it (xact_id). A reader
 * computes a watermark below which every transaction of this database has finished (see
 * readWatermark), so the events below it are final; an event id, taken from a sequence at
 * insert, would not do: a transaction can commit after another with a larger id. The revision
 * is one more than the transaction id of the last event below the watermark that clients care
 * about: "every such event below this number". It names a set of events, so every instance
 * computes the same one, it only grows, and a revision a client sends back is known when it is
 * the current one or one more than an event's transaction id.
 */

/** What one scope of SDKs is served: the client filter of its token (and query). */
export interface StreamScope {
  key: string
  filter: ClientFilter
}

export const scopeOf = (token: TokenScope, query: { namePrefix?: string | undefined; project?: string | undefined } = {}): StreamScope => {
  const filter = clientFilter(token, query)
  return { key: JSON.stringify([filter.environment, filter.projects ?? null, filter.project ?? null, filter.namePrefix ?? null]), filter }
}

/** A revision as sent back (Last-Event-ID, If-None-Match: "N", W/"N" or N); undefined when it is none. */
export function parseRevision (header: string | undefined): bigint | undefined {
  if (header === undefined) return undefined
  const opaque = header.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1')
  if (!REVISION_PATTERN.test(opaque)) return undefined
  const value = BigInt(opaque)
  return value <= 9223372036854775807n ? value : undefined
}

/** What a reader at revision `from` needs to catch up to `revision`. */
export type Plan =
  | { kind: 'up-to-date'; revision: bigint }
  | { kind: 'hydrate'; revision: bigint }
  | { kind: 'changes'; revision: bigint; changes: ChangeRow[] }

/** The snapshot's watermark and current revision: read first in a repeatable-read transaction begun after `horizon` was read. */
export async function readPosition (q: Queryable, horizon: Horizon) {
  const watermark = await readWatermark(q, horizon)
  return { watermark, revision: await revisionBelow(q, watermark) }
}

/**
 * How a reader at `from` catches up: nothing (it holds the current revision), the events since
 * (at most `limit`), or a hydration (no revision, one this database never gave out or not yet,
 * or too far behind). Never "up to date" for a revision the server does not know.
 */
export async function planFrom (q: Queryable, position: { watermark: bigint; revision: bigint }, from: bigint | undefined, limit: number): Promise<Plan> {
  const { watermark, revision } = position
  if (from === revision) return { kind: 'up-to-date', revision }
  if (from === undefined || from > revision || !(await isRevision(q, from))) return { kind: 'hydrate', revision }
  const changes = await changesBetween(q, from, watermark, limit + 1)
  return changes.length > limit ? { kind: 'hydrate', revision } : { kind: 'changes', revision, changes }
}

/** Whether a change may concern the SDKs of a filter (an event about an environment, project or name they do not read does not). */
function concerns (filter: ClientFilter, change: ChangeRow): boolean {
  if (change.environment !== null && change.environment !== filter.environment) return false
  if (change.project !== null) {
    if (filter.projects !== undefined && !filter.projects.includes(change.project)) return false
    if (filter.project !== undefined && filter.project !== change.project) return false
  }
  return change.feature_name === null || filter.namePrefix === undefined || change.feature_name.startsWith(filter.namePrefix)
}

const eventIdOf = (change: ChangeRow) => Number(BigInt(change.xact_id) + 1n)

/** Everything a scope's SDK holds, replaced: the client-API features of the scope and the segments they use. */
async function hydration (q: Queryable, filter: ClientFilter, revision: bigint): Promise<DeltaEvent> {
  const state = outsideScope(filter) ? { features: [], segments: [] } : await readClientState(q, filter, false)
  return { type: 'hydration', eventId: Number(revision), features: state.features, segments: state.segments }
}

/**
 * The updates of a scope for `changes`, read in the caller's snapshot: each feature changed, once,
 * as the client API holds it now (feature-updated), or feature-removed when it is no longer
 * served; segment-updated first for the segments the updated features use and for changed
 * segments the scope uses; segment-removed last. A change that adds or removes features without
 * naming them (an import, an environment added) makes it a hydration.
 */
async function updatesFor (q: Queryable, filter: ClientFilter, changes: readonly ChangeRow[], revision: bigint): Promise<DeltaEvent[]> {
  const relevant = outsideScope(filter) ? [] : changes.filter((c) => concerns(filter, c))
  if (relevant.length === 0) return []
  if (relevant.some((c) => (WIDE_EVENTS as readonly string[]).includes(c.type))) return [await hydration(q, filter, revision)]
  // The last change of each feature and segment decides its place.
  const features = new Map<string, { eventId: number; project: string }>()
  const segments = new Map<number, { eventId: number; deleted: boolean }>()
  for (const change of relevant) {
    const eventId = eventIdOf(change)
    if (change.feature_name !== null) {
      features.delete(change.feature_name)
      features.set(change.feature_name, { eventId, project: change.project ?? '' })
    } else if (change.segment_id !== null) {
      segments.set(Number(change.segment_id), { eventId, deleted: change.type === 'segment-deleted' })
    }
  }
  const names = [...features.keys()]
  const state = names.length > 0 ? await readClientState(q, { ...filter, names }, false) : { features: [], segments: [] }
  const sent = new Map<number, ClientSegment>(state.segments.map((s) => [s.id, s]))
  if ([...segments.values()].some((s) => !s.deleted)) {
    for (const row of await listClientSegments(q, filter)) {
      if (segments.has(row.id) && !sent.has(row.id)) sent.set(row.id, { id: row.id, name: row.name, constraints: JSON.parse(row.constraints) as unknown[] })
    }
  }
  const first = Math.min(...[...features.values(), ...segments.values()].map((c) => c.eventId))
  const out: DeltaEvent[] = [...sent.values()].map((segment) => ({ type: 'segment-updated', eventId: segments.get(segment.id)?.eventId ?? first, segment }))
  const served = new Map(state.features.map((f) => [f.name, f]))
  for (const [name, { eventId, project }] of features) {
    const feature = served.get(name)
    if (feature !== undefined) out.push({ type: 'feature-updated', eventId, feature })
    else if (project !== '') out.push({ type: 'feature-removed', eventId, featureName: name, project })
  }
  for (const [segmentId, { eventId, deleted }] of segments) {
    if (deleted) out.push({ type: 'segment-removed', eventId, segmentId })
  }
  return out
}

export async function eventsOf (q: Queryable, filter: ClientFilter, plan: Plan): Promise<DeltaEvent[]> {
  if (plan.kind === 'up-to-date') return []
  if (plan.kind === 'hydrate') return [await hydration(q, filter, plan.revision)]
  return updatesFor(q, filter, plan.changes, plan.revision)
}

/**
 * GET /api/client/delta: the ETag is the revision; an SDK that holds it gets nothing to build
 * (304), one with a known older revision the events since, any other a hydration.
 */
export async function clientDelta (
  db: Database,
  token: TokenScope,
  query: { namePrefix?: string | undefined; project?: string | undefined },
  held: string | undefined,
  replayLimit: number
): Promise<{ etag: string; json: string | undefined }> {
  const { filter } = scopeOf(token, query)
  const horizon = await readHorizon(db)
  return readSnapshot(db, async (trx) => {
    const position = await readPosition(trx, horizon)
    const plan = await planFrom(trx, position, parseRevision(held), replayLimit)
    const etag = `"${plan.revision}"`
    if (plan.kind === 'up-to-date') return { etag, json: undefined }
    return { etag, json: JSON.stringify({ events: await eventsOf(trx, filter, plan) }) }
  })
}
