import { readSnapshot } from '../db/snapshot.js'
import { createHash } from 'node:crypto'
import semver from 'semver'
import { ALL, type TokenScope } from '../access/scope.js'
import { groupBy } from '../db/rows.js'
import type { Database, Queryable } from '../db/types.js'
import { notFound } from '../errors.js'
import type { Variant } from '../variants/variants.schemas.js'
import type { ClientState } from './client-state.js'
import type { ClientFeature, ClientFeatures, ClientFeaturesQuery, ClientSegment, ClientStrategy } from './client.schemas.js'
import {
  type ClientFeatureRow,
  type ClientFilter,
  type ClientStrategyRow,
  listClientDependencies,
  listClientFeatures,
  listClientSegments,
  listClientStrategies,
} from './client.store.js'

/** What an SDK asks for: its filters, and whether it reads top-level segments. */
export interface ClientRequest extends ClientFeaturesQuery {
  /** The SDK implements client specification 4.2.0 or later (Unleash-Client-Spec). */
  segments: boolean
}

/** SDKs on client specification 4.2.0 or later read segments at the top level, as Unleash decides. */
export const readsSegments = (specVersion: string | undefined) => specVersion !== undefined && semver.gte(specVersion, '4.2.0')

/** The ETag of an answer: the state version and what was asked, by whom (scope, filters, segments or inlined). */
export function clientEtag (version: string, token: TokenScope, request: ClientRequest): string {
  const asked = createHash('sha256')
    .update(JSON.stringify([token.environments[0], token.projects, request.namePrefix ?? null, request.project ?? null, request.segments]))
    .digest('base64url')
    .slice(0, 16)
  return `"${version}-${asked}"`
}

/**
 * A strategy in Unleash's client format: constraints, parameters and variants exactly as
 * stored; its segments as ids, or (for older SDKs) their constraints after its own.
 */
function toClientStrategy (row: ClientStrategyRow, segments: Map<number, ClientSegment> | undefined): ClientStrategy {
  const constraints = JSON.parse(row.constraints) as unknown[]
  const ids = JSON.parse(row.segments) as number[]
  return {
    name: row.strategy_name,
    constraints: segments === undefined ? constraints : [...constraints, ...ids.flatMap((id) => segments.get(id)?.constraints ?? [])],
    parameters: JSON.parse(row.parameters) as Record<string, string>,
    variants: JSON.parse(row.variants) as unknown[],
    ...(segments === undefined && { segments: ids }),
    // The playground's view: which strategy it is, and whether it is disabled.
    ...(row.id !== undefined && { id: row.id, title: row.title ?? null, disabled: row.disabled ?? false }),
  }
}

/** The client-API features of a filter and the segments their strategies use, in Unleash's client format. */
export interface ClientSnapshot {
  features: ClientFeature[]
  segments: ClientSegment[]
}

/**
 * The features (and the segments they use) of `filter`, read on `q`: the caller's snapshot (a
 * repeatable-read transaction), so that a feature switched on is never served without the
 * strategies it had at that moment. Strategies carry their segments' ids, or (`inline`) their
 * constraints after their own. In the playground's view (`filter.playground`), strategies also
 * carry `id`, `title` and `disabled` (see TraceStrategy).
 */
export async function readClientState (q: Queryable, filter: ClientFilter, inline: boolean): Promise<ClientSnapshot> {
  const rows = await listClientFeatures(q, filter)
  const strategyRows = await listClientStrategies(q, filter)
  const segmentRows = await listClientSegments(q, filter)
  const dependencyRows = await listClientDependencies(q, filter)
  const segments: ClientSegment[] = segmentRows.map((s) => ({ id: s.id, name: s.name, constraints: JSON.parse(s.constraints) as unknown[] }))
  const inlined = inline ? new Map(segments.map((s) => [s.id, s])) : undefined
  const strategies = groupBy(strategyRows, (row) => row.feature_name, (row) => toClientStrategy(row, inlined))
  // As Unleash: the parent's variants only when the child wants it on.
  const dependencies = groupBy(dependencyRows, (d) => d.child, (d): ClientFeature['dependencies'][number] =>
    ({ feature: d.parent, enabled: d.enabled, ...(d.enabled && { variants: d.variants === null ? [] : (JSON.parse(d.variants) as string[]) }) }))
  const toClientFeature = (row: ClientFeatureRow): ClientFeature => ({
    name: row.name,
    type: row.type,
    project: row.project_id,
    enabled: row.enabled,
    stale: row.stale,
    impressionData: row.impression_data,
    strategies: strategies.get(row.name) ?? [],
    variants: JSON.parse(row.variants) as Variant[],
    dependencies: dependencies.get(row.name) ?? [],
  })
  return { features: rows.map(toClientFeature), segments }
}

/** The filter of a client token and what its SDK asked for. */
export function clientFilter (token: TokenScope, request: { namePrefix?: string | undefined; project?: string | undefined }): ClientFilter {
  return {
    environment: token.environments[0]!,
    projects: token.projects.includes(ALL) ? undefined : token.projects,
    namePrefix: request.namePrefix,
    project: request.project,
  }
}

/** A project asked for outside the token's projects: the answer is empty. */
export const outsideScope = (filter: ClientFilter) =>
  filter.project !== undefined && filter.projects !== undefined && !filter.projects.includes(filter.project)

/** The features a client token may read, in Unleash's client format (version 2). */
export async function clientFeatures (db: Database, token: TokenScope, request: ClientRequest): Promise<ClientFeatures> {
  const filter = clientFilter(token, request)
  const { environment, projects, namePrefix, project } = filter
  const { features, segments } = outsideScope(filter)
    ? { features: [], segments: [] }
    : await readSnapshot(db, (trx) => readClientState(trx, filter, !request.segments))
  return {
    version: 2,
    features,
    ...(request.segments && { segments }),
    query: {
      environment,
      inlineSegmentConstraints: !request.segments,
      ...(projects !== undefined && { projects: [...projects] }),
      ...(project !== undefined && { project }),
      ...(namePrefix !== undefined && { namePrefix }),
    },
  }
}

/**
 * An SDK's poll: the ETag of the current answer, and how to build the answer, which is only
 * built when the SDK does not hold it already. Answers come from the client state's caches.
 */
export async function pollClientFeatures (
  db: Database,
  state: ClientState,
  token: TokenScope,
  request: ClientRequest
): Promise<{ etag: string; json: () => Promise<string> }> {
  const etag = clientEtag(await state.version(), token, request)
  return { etag, json: () => state.answer(etag, async () => JSON.stringify(await clientFeatures(db, token, request))) }
}

/**
 * One feature a client token may read, in Unleash's client format, with its segments'
 * constraints inlined (the answer has no top-level segments). 404 when it does not exist, is
 * archived or is outside the token's projects, as for a feature that does not exist.
 */
export async function clientFeature (db: Database, token: TokenScope, name: string): Promise<ClientFeature> {
  const filter = { ...clientFilter(token, {}), names: [name] }
  const { features } = await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute((trx) => readClientState(trx, filter, true))
  const [found] = features
  if (!found) throw notFound(`Feature ${name} does not exist`)
  return found
}
