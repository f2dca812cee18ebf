import { createHash } from 'node:crypto'
import semver from 'semver'
import { ALL, type TokenScope } from '../access/scope.js'
import type { Database } from '../db/types.js'
import type { Variant } from '../variants/variants.schemas.js'
import type { ClientState } from './client-state.js'
import type { ClientFeature, ClientFeatures, ClientFeaturesQuery, ClientSegment, ClientStrategy } from './client.schemas.js'
import {
  type ClientFeatureRow,
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
  }
}

/** The features a client token may read, in Unleash's client format (version 2). */
export async function clientFeatures (db: Database, token: TokenScope, request: ClientRequest): Promise<ClientFeatures> {
  const environment = token.environments[0]!
  const projects = token.projects.includes(ALL) ? undefined : token.projects
  const { namePrefix, project } = request
  const outside = project !== undefined && projects !== undefined && !projects.includes(project)
  const filter = { environment, projects, namePrefix, project }
  // One snapshot: a feature switched on must never be served without the strategies it had at
  // that moment (an enabled feature with none is on for everyone).
  const [rows, strategyRows, segmentRows, dependencyRows] = outside
    ? [[], [], [], []]
    : await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => [
        await listClientFeatures(trx, filter),
        await listClientStrategies(trx, filter),
        await listClientSegments(trx, filter),
        await listClientDependencies(trx, filter),
      ] as const)
  const segments: ClientSegment[] = segmentRows.map((s) => ({ id: s.id, name: s.name, constraints: JSON.parse(s.constraints) as unknown[] }))
  const inlined = request.segments ? undefined : new Map(segments.map((s) => [s.id, s]))
  const strategies = new Map<string, ClientStrategy[]>()
  for (const row of strategyRows) {
    const list = strategies.get(row.feature_name) ?? []
    list.push(toClientStrategy(row, inlined))
    strategies.set(row.feature_name, list)
  }
  const dependencies = new Map<string, ClientFeature['dependencies']>()
  for (const d of dependencyRows) {
    const list = dependencies.get(d.child) ?? []
    // As Unleash: the parent's variants only when the child wants it on.
    list.push({ feature: d.parent, enabled: d.enabled, ...(d.enabled && { variants: d.variants === null ? [] : (JSON.parse(d.variants) as string[]) }) })
    dependencies.set(d.child, list)
  }
  const toClientFeature = (row: ClientFeatureRow): ClientFeature => ({
    name: row.name,
    type: row.type,
    project: row.project_id,
    enabled: row.enabled,
    stale: false,
    impressionData: row.impression_data,
    strategies: strategies.get(row.name) ?? [],
    variants: JSON.parse(row.variants) as Variant[],
    dependencies: dependencies.get(row.name) ?? [],
  })
  return {
    version: 2,
    features: rows.map(toClientFeature),
    ...(request.segments && { segments }),
    query: {
      environment,
      inlineSegmentConstraints: !request.segments,
      ...(projects !== undefined && { projects }),
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
