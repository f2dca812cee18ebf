import { createHash } from 'node:crypto'
import { ALL, type TokenScope } from '../auth/tokens.js'
import type { Database } from '../db/types.js'
import { notModified } from '../http/etag.js'
import type { Variant } from '../variants/variants.schemas.js'
import type { ClientState } from './client-state.js'
import type { ClientFeature, ClientFeatures, ClientFeaturesQuery, ClientStrategy } from './client.schemas.js'
import { type ClientFeatureRow, type ClientStrategyRow, listClientFeatures, listClientStrategies } from './client.store.js'

/** The ETag of an answer: the state version and what was asked, by whom (scope, filters). */
export function clientEtag (version: string, token: TokenScope, query: ClientFeaturesQuery): string {
  const asked = createHash('sha256')
    .update(JSON.stringify([token.environments[0], token.projects, query.namePrefix ?? null, query.project ?? null]))
    .digest('base64url')
    .slice(0, 16)
  return `"${version}-${asked}"`
}

/** A strategy in Unleash's client format: constraints and parameters exactly as stored. */
const toClientStrategy = (row: ClientStrategyRow): ClientStrategy => ({
  name: row.strategy_name,
  constraints: JSON.parse(row.constraints) as unknown[],
  parameters: JSON.parse(row.parameters) as Record<string, string>,
  variants: JSON.parse(row.variants) as unknown[],
})

/** One feature in Unleash's client format; its variants exactly as stored. */
const toClientFeature = (row: ClientFeatureRow, strategies: ClientStrategy[]): ClientFeature => ({
  name: row.name,
  type: row.type,
  project: row.project_id,
  enabled: row.enabled,
  stale: false,
  impressionData: false,
  strategies,
  variants: JSON.parse(row.variants) as Variant[],
  dependencies: [],
})

/** The features a client token may read, in Unleash's client format (version 2). */
export async function clientFeatures (db: Database, token: TokenScope, query: ClientFeaturesQuery): Promise<ClientFeatures> {
  const environment = token.environments[0]!
  const projects = token.projects.includes(ALL) ? undefined : token.projects
  const outside = query.project !== undefined && projects !== undefined && !projects.includes(query.project)
  const filter = { environment, projects, ...query }
  // Features and their strategies from one snapshot: a feature switched on must never be served
  // without the strategies it had at that moment (an enabled feature with none is on for all).
  const [rows, strategyRows] = outside
    ? [[], []]
    : await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => [await listClientFeatures(trx, filter), await listClientStrategies(trx, filter)] as const)
  const strategies = new Map<string, ClientStrategy[]>()
  for (const s of strategyRows) {
    const list = strategies.get(s.feature_name) ?? []
    list.push(toClientStrategy(s))
    strategies.set(s.feature_name, list)
  }
  return {
    version: 2,
    features: rows.map((row) => toClientFeature(row, strategies.get(row.name) ?? [])),
    query: {
      environment,
      inlineSegmentConstraints: true,
      ...(projects !== undefined && { projects }),
      ...(query.project !== undefined && { project: query.project }),
      ...(query.namePrefix !== undefined && { namePrefix: query.namePrefix }),
    },
  }
}

/**
 * An SDK's poll: the ETag of the current answer, and the answer itself unless the SDK holds it
 * already (If-None-Match, compared weakly). Answers come from the client state's caches.
 */
export async function pollClientFeatures (
  db: Database,
  state: ClientState,
  token: TokenScope,
  query: ClientFeaturesQuery,
  ifNoneMatch: string | undefined
): Promise<{ etag: string; json?: string }> {
  const etag = clientEtag(await state.version(), token, query)
  if (ifNoneMatch !== undefined && notModified(ifNoneMatch, etag)) return { etag }
  return { etag, json: await state.answer(etag, async () => JSON.stringify(await clientFeatures(db, token, query))) }
}
