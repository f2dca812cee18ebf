import { sql } from 'kysely'
import type { Queryable } from '../db/types.js'

export interface ClientFeatureRow {
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
  filter: { environment: string; projects?: readonly string[] | undefined; project?: string | undefined; namePrefix?: string | undefined }
): Promise<ClientFeatureRow[]> {
  let select = db
    .selectFrom('features as f')
    .innerJoin('feature_environments as fe', 'fe.feature_name', 'f.name')
    .select(['f.name', 'f.type', 'f.project_id', 'fe.enabled', 'fe.variants'])
    .where('fe.environment_name', '=', filter.environment)
    .where('f.archived_at', 'is', null)
    .orderBy('f.name')
  if (filter.projects !== undefined) select = select.where('f.project_id', 'in', filter.projects)
  if (filter.project !== undefined) select = select.where('f.project_id', '=', filter.project)
  if (filter.namePrefix !== undefined) select = select.where(sql<boolean>`starts_with(f.name, ${filter.namePrefix})`)
  return select.execute()
}

export interface ClientStrategyRow {
  feature_name: string
  strategy_name: string
  /** JSON text */
  parameters: string
  /** JSON text */
  constraints: string
  /** JSON text */
  variants: string
}

/**
 * The active (not disabled) strategies of the features `listClientFeatures` returns with the
 * same filter, in the order SDKs evaluate them.
 */
export async function listClientStrategies (
  db: Queryable,
  filter: { environment: string; projects?: readonly string[] | undefined; project?: string | undefined; namePrefix?: string | undefined }
): Promise<ClientStrategyRow[]> {
  let select = db
    .selectFrom('feature_strategies as s')
    .innerJoin('features as f', 'f.name', 's.feature_name')
    .select(['s.feature_name', 's.strategy_name', 's.parameters', 's.constraints', 's.variants'])
    .where('s.environment_name', '=', filter.environment)
    .where('s.disabled', '=', false)
    .where('f.archived_at', 'is', null)
    .orderBy('s.feature_name')
    .orderBy('s.sort_order')
    .orderBy('s.created_at')
    .orderBy('s.id')
  if (filter.projects !== undefined) select = select.where('f.project_id', 'in', filter.projects)
  if (filter.project !== undefined) select = select.where('f.project_id', '=', filter.project)
  if (filter.namePrefix !== undefined) select = select.where(sql<boolean>`starts_with(f.name, ${filter.namePrefix})`)
  return select.execute()
}
