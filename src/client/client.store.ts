import { type ExpressionBuilder, sql } from 'kysely'
import type { DB, Queryable } from '../db/types.js'
import { segmentIds } from '../strategies/strategies.store.js'

/**
 * What an answer holds: an environment's features in `projects` (all when undefined), optionally
 * one project, names with a prefix, or (for streaming updates) only the features named.
 */
export type ClientFilter = {
  environment: string
  projects?: readonly string[] | undefined
  project?: string | undefined
  namePrefix?: string | undefined
  names?: readonly string[] | undefined
  /**
   * The playground's view besides: the features of the projects that are not in the environment
   * too (off there, as Unleash's playground lists them), and the disabled strategies, with the
   * ids and titles of all.
   */
  playground?: boolean
}

/**
 * The features an answer holds, as a condition on a query that has them as `f`: not archived,
 * in the token's projects, and the filters the SDK asked for.
 */
const served = (filter: ClientFilter) => (eb: ExpressionBuilder<DB & { f: DB['features'] }, 'f'>) =>
  eb.and([
    eb('f.archived_at', 'is', null),
    ...(filter.projects !== undefined ? [eb('f.project_id', 'in', filter.projects)] : []),
    ...(filter.project !== undefined ? [eb('f.project_id', '=', filter.project)] : []),
    ...(filter.namePrefix !== undefined ? [sql<boolean>`starts_with(f.name, ${filter.namePrefix})`] : []),
    ...(filter.names !== undefined ? [eb('f.name', '=', eb.fn.any(eb.val(filter.names as string[])))] : []),
  ])

export interface ClientFeatureRow {
  impression_data: boolean
  stale: boolean
  name: string
  type: string
  project_id: string
  enabled: boolean
  /** JSON text, as stored. */
  variants: string
}

/**
 * The features of an environment that SDKs may read: not archived, in `projects` (all when
 * undefined), optionally only one project and names with a prefix; in name order.
 */
export async function listClientFeatures (
  db: Queryable,
  filter: ClientFilter
): Promise<ClientFeatureRow[]> {
  if (filter.playground) {
    return db
      .selectFrom('features as f')
      .leftJoin('feature_environments as fe', (join) => join.onRef('fe.feature_name', '=', 'f.name').on('fe.environment_name', '=', filter.environment))
      .select(['f.name', 'f.type', 'f.project_id', 'f.stale', 'f.impression_data'])
      .select((eb) => [eb.fn.coalesce('fe.enabled', eb.val(false)).as('enabled'), eb.fn.coalesce('fe.variants', eb.val('[]')).as('variants')])
      .where(served(filter))
      .orderBy('f.name')
      .execute()
  }
  return db
    .selectFrom('features as f')
    .innerJoin('feature_environments as fe', 'fe.feature_name', 'f.name')
    .select(['f.name', 'f.type', 'f.project_id', 'f.stale', 'f.impression_data', 'fe.enabled', 'fe.variants'])
    .where('fe.environment_name', '=', filter.environment)
    .where(served(filter))
    .orderBy('f.name')
    .execute()
}

export interface ClientStrategyRow {
  /** JSON text: the ids of the segments it uses, ascending. */
  segments: string
  feature_name: string
  strategy_name: string
  /** JSON text */
  parameters: string
  /** JSON text */
  constraints: string
  /** JSON text */
  variants: string
  /** In the playground's view only. */
  id?: string
  title?: string | null
  disabled?: boolean
}

/**
 * The active (not disabled) strategies (all, in the playground's view) of the features `listClientFeatures` returns with the
 * same filter, in the order SDKs evaluate them.
 */
export async function listClientStrategies (
  db: Queryable,
  filter: ClientFilter
): Promise<ClientStrategyRow[]> {
  return db
    .selectFrom('feature_strategies as s')
    .innerJoin('features as f', 'f.name', 's.feature_name')
    .select(['s.feature_name', 's.strategy_name', 's.parameters', 's.constraints', 's.variants'])
    .select(segmentIds)
    .$if(filter.playground === true, (qb) => qb.select(['s.id', 's.title', 's.disabled']))
    .where('s.environment_name', '=', filter.environment)
    .$if(filter.playground !== true, (qb) => qb.where('s.disabled', '=', false))
    .where(served(filter))
    .orderBy('s.feature_name')
    .orderBy('s.sort_order')
    .orderBy('s.created_at')
    .orderBy('s.id')
    .execute()
}

/** The segments used by the active strategies (all, in the playground's view) of the features an answer holds, by id. */
export async function listClientSegments (db: Queryable, filter: ClientFilter) {
  return db
    .selectFrom('segments as g')
    .select(['g.id', 'g.name', 'g.constraints'])
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('feature_strategy_segments as ss')
          .innerJoin('feature_strategies as s', 's.id', 'ss.strategy_id')
          .innerJoin('features as f', 'f.name', 's.feature_name')
          .select('ss.segment_id')
          .whereRef('ss.segment_id', '=', 'g.id')
          .where('s.environment_name', '=', filter.environment)
          .$if(filter.playground !== true, (qb) => qb.where('s.disabled', '=', false))
          .where(served(filter))
      )
    )
    .orderBy('g.id')
    .execute()
}

/** The dependencies of the features an answer holds. */
export async function listClientDependencies (db: Queryable, filter: ClientFilter) {
  return db
    .selectFrom('feature_dependencies as d')
    .innerJoin('features as f', 'f.name', 'd.child')
    .$if(filter.playground !== true, (qb) =>
      qb.innerJoin('feature_environments as fe', (join) => join.onRef('fe.feature_name', '=', 'f.name').on('fe.environment_name', '=', filter.environment))
    )
    .select(['d.child', 'd.parent', 'd.enabled', 'd.variants'])
    .where(served(filter))
    .orderBy('d.child')
    .orderBy('d.created_at')
    .orderBy('d.parent')
    .execute()
}
