import { createHash } from 'node:crypto'
import { sql } from 'kysely'
import { ALL, type TokenScope } from '../auth/tokens.js'
import type { Queryable } from '../db/types.js'

export interface ClientQuery {
  namePrefix?: string | undefined
  project?: string | undefined
}

/**
 * The version of everything the client API serves: every change the service makes records
 * an event in the same transaction, so the newest event id moves whenever a feature might
 * look different. One index lookup, no feature read.
 */
export async function stateVersion (db: Queryable): Promise<string> {
  const row = await db.selectFrom('events').select((eb) => eb.fn.max('id').as('last')).executeTakeFirst()
  return String(row?.last ?? 0)
}

/** The ETag of an answer: the state version and what was asked, by whom (scope, filters). */
export function clientEtag (version: string, token: TokenScope, query: ClientQuery): string {
  const asked = createHash('sha256')
    .update(JSON.stringify([token.environments[0], token.projects, query.namePrefix ?? null, query.project ?? null]))
    .digest('base64url')
    .slice(0, 16)
  return `"${version}-${asked}"`
}

/**
 * The features a client token may read, in Unleash's client format, as JSON text: the
 * variants are spliced in as stored (same order, weights, stickiness, payload, overrides).
 */
export async function clientFeaturesJson (db: Queryable, token: TokenScope, query: ClientQuery): Promise<string> {
  const environment = token.environments[0]!
  const projects = token.projects.includes(ALL) ? undefined : token.projects
  if (query.project !== undefined && projects !== undefined && !projects.includes(query.project)) {
    return answer([], environment, token, query)
  }
  let select = db
    .selectFrom('features as f')
    .innerJoin('feature_environments as fe', 'fe.feature_name', 'f.name')
    .select(['f.name', 'f.type', 'f.project_id', 'fe.enabled', 'fe.variants'])
    .where('fe.environment_name', '=', environment)
    .where('f.archived_at', 'is', null)
    .orderBy('f.name')
  if (projects !== undefined) select = select.where('f.project_id', 'in', projects)
  if (query.project !== undefined) select = select.where('f.project_id', '=', query.project)
  if (query.namePrefix !== undefined) select = select.where(sql<boolean>`starts_with(f.name, ${query.namePrefix})`)
  return answer(await select.execute(), environment, token, query)
}

interface Row {
  name: string
  type: string
  project_id: string
  enabled: boolean
  variants: string
}

function answer (rows: Row[], environment: string, token: TokenScope, query: ClientQuery): string {
  const features = rows.map((r) => {
    const name = JSON.stringify(r.name)
    // A feature switched on without strategies is on for everyone, as Unleash serves it.
    const strategies = r.enabled
      ? `[{"name":"flexibleRollout","constraints":[],"parameters":{"rollout":"100","stickiness":"default","groupId":${name}},"variants":[]}]`
      : '[]'
    return `{"name":${name},"type":${JSON.stringify(r.type)},"project":${JSON.stringify(r.project_id)},"enabled":${r.enabled},"stale":false,"impressionData":false,"strategies":${strategies},"variants":${r.variants},"dependencies":[]}`
  })
  const echoed = {
    environment,
    inlineSegmentConstraints: true,
    ...(token.projects.includes(ALL) ? {} : { projects: token.projects }),
    ...(query.project !== undefined ? { project: query.project } : {}),
    ...(query.namePrefix !== undefined ? { namePrefix: query.namePrefix } : {}),
  }
  return `{"version":2,"features":[${features.join(',')}],"query":${JSON.stringify(echoed)}}`
}
