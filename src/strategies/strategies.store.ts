import { type ExpressionBuilder, type Selectable, sql, type Transaction } from 'kysely'
import type { FeatureEnvironmentRef } from '../features/missing.js'
import type { DB, Queryable } from '../db/types.js'
import type { Variant } from '../variants/variants.schemas.js'
import type { FeatureStrategy, StoredStrategy } from './strategies.schemas.js'
import type { StrategyDocument } from './strategy-rules.js'
import { groupBy } from '../db/rows.js'

const columns = ['s.id', 's.strategy_name', 's.title', 's.disabled', 's.sort_order', 's.parameters', 's.constraints', 's.variants', 's.revision'] as const

/** The ids of the segments a strategy (`s`) uses, ascending, as JSON text. */
export const segmentIds = (eb: ExpressionBuilder<DB & { s: DB['feature_strategies'] }, 's'>) =>
  eb.fn
    .coalesce(
      eb
        .selectFrom('feature_strategy_segments as ss')
        .select(sql<string>`json_agg(ss.segment_id ORDER BY ss.segment_id)::text`.as('ids'))
        .whereRef('ss.strategy_id', '=', 's.id'),
      sql<string>`'[]'`
    )
    .as('segments')

type Row = Pick<Selectable<DB['feature_strategies']>, 'id' | 'strategy_name' | 'title' | 'disabled' | 'sort_order' | 'parameters' | 'constraints' | 'variants' | 'revision'> & {
  segments: string
}

const toStrategy = (row: Row): StoredStrategy => ({
  strategy: {
    id: row.id,
    name: row.strategy_name,
    title: row.title,
    disabled: row.disabled,
    sortOrder: row.sort_order,
    constraints: JSON.parse(row.constraints) as unknown[],
    parameters: JSON.parse(row.parameters) as Record<string, string>,
    variants: JSON.parse(row.variants) as Variant[],
    segments: JSON.parse(row.segments) as number[],
  },
  revision: row.revision,
})

/** The strategies of a feature-environment in the order they are evaluated and listed in. */
export async function listStrategies (db: Queryable, ref: FeatureEnvironmentRef): Promise<StoredStrategy[]> {
  const rows = await db
    .selectFrom('feature_strategies as s')
    .select([...columns, segmentIds])
    .where('s.feature_name', '=', ref.feature)
    .where('s.environment_name', '=', ref.environment)
    .orderBy('s.sort_order')
    .orderBy('s.created_at')
    .orderBy('s.id')
    .execute()
  return rows.map(toStrategy)
}

export async function findStrategy (db: Queryable, ref: FeatureEnvironmentRef, id: string): Promise<StoredStrategy | undefined> {
  const row = await db
    .selectFrom('feature_strategies as s')
    .select([...columns, segmentIds])
    .where('s.id', '=', id)
    .where('s.feature_name', '=', ref.feature)
    .where('s.environment_name', '=', ref.environment)
    .executeTakeFirst()
  return row && toStrategy(row)
}

/** Where a strategy is: its feature, that feature's project, and its environment (whatever feature it is of). */
export async function strategyPlace (db: Queryable, id: string): Promise<{ feature: string; project: string; environment: string } | undefined> {
  return db
    .selectFrom('feature_strategies as s')
    .innerJoin('features as f', 'f.name', 's.feature_name')
    .select(['s.feature_name as feature', 'f.project_id as project', 's.environment_name as environment'])
    .where('s.id', '=', id)
    .executeTakeFirst()
}

/** How many strategies the feature-environment has, and the sortOrder after the last one. */
export async function strategyCount (trx: Transaction<DB>, ref: FeatureEnvironmentRef) {
  const row = await trx
    .selectFrom('feature_strategies')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.max('sort_order').as('last')])
    .where('feature_name', '=', ref.feature)
    .where('environment_name', '=', ref.environment)
    .executeTakeFirstOrThrow()
  return { count: Number(row.n), nextSortOrder: row.last === null ? 0 : Number(row.last) + 1 }
}

/** Whether any strategy of the feature-environment is not disabled. */
export async function hasActiveStrategy (trx: Transaction<DB>, ref: FeatureEnvironmentRef): Promise<boolean> {
  const row = await trx
    .selectFrom('feature_strategies')
    .select('id')
    .where('feature_name', '=', ref.feature)
    .where('environment_name', '=', ref.environment)
    .where('disabled', '=', false)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

const values = (doc: StrategyDocument) => ({
  strategy_name: doc.name,
  title: doc.title,
  disabled: doc.disabled,
  sort_order: doc.sortOrder,
  parameters: JSON.stringify(doc.parameters),
  constraints: JSON.stringify(doc.constraints),
  variants: JSON.stringify(doc.variants),
})

/** The segments a strategy uses become `ids`. */
async function replaceSegments (trx: Transaction<DB>, id: string, ids: readonly number[]) {
  await trx.deleteFrom('feature_strategy_segments').where('strategy_id', '=', id).execute()
  if (ids.length > 0) {
    await trx.insertInto('feature_strategy_segments').values(ids.map((segment) => ({ strategy_id: id, segment_id: segment }))).execute()
  }
}

const stored = (row: Omit<Row, 'segments'>, doc: StrategyDocument) => toStrategy({ ...row, segments: JSON.stringify(doc.segments) })

const returned = ['id', 'strategy_name', 'title', 'disabled', 'sort_order', 'parameters', 'constraints', 'variants', 'revision'] as const

export async function insertStrategy (trx: Transaction<DB>, ref: FeatureEnvironmentRef, id: string, doc: StrategyDocument) {
  const row = await trx
    .insertInto('feature_strategies')
    .values({ id, feature_name: ref.feature, environment_name: ref.environment, ...values(doc) })
    .returning(returned)
    .executeTakeFirstOrThrow()
  await replaceSegments(trx, id, doc.segments)
  return stored(row, doc)
}

export async function updateStrategy (trx: Transaction<DB>, id: string, doc: StrategyDocument) {
  const row = await trx
    .updateTable('feature_strategies')
    .set((eb) => ({ ...values(doc), revision: eb('revision', '+', 1) }))
    .where('id', '=', id)
    .returning(returned)
    .executeTakeFirstOrThrow()
  await replaceSegments(trx, id, doc.segments)
  return stored(row, doc)
}

export async function deleteStrategy (trx: Transaction<DB>, id: string) {
  await trx.deleteFrom('feature_strategies').where('id', '=', id).execute()
}

export async function setSortOrder (trx: Transaction<DB>, id: string, sortOrder: number) {
  await trx
    .updateTable('feature_strategies')
    .set((eb) => ({ sort_order: sortOrder, revision: eb('revision', '+', 1) }))
    .where('id', '=', id)
    .execute()
}

/** The strategies of one feature in each of `environments` (all when undefined), in order. */
export async function strategiesOfFeature (db: Queryable, feature: string, environments: readonly string[] | undefined) {
  let query = db
    .selectFrom('feature_strategies as s')
    .select(['s.environment_name', ...columns, segmentIds])
    .where('s.feature_name', '=', feature)
    .orderBy('s.sort_order')
    .orderBy('s.created_at')
    .orderBy('s.id')
  if (environments !== undefined) query = query.where('s.environment_name', 'in', environments)
  return groupBy(await query.execute(), (row) => row.environment_name, (row) => toStrategy(row).strategy)
}

/** The strategies of several features in one environment, by feature name, each list in order. */
export async function strategiesOfFeatures (db: Queryable, features: readonly string[], environment: string): Promise<Map<string, FeatureStrategy[]>> {
  if (features.length === 0) return new Map()
  const rows = await db
    .selectFrom('feature_strategies as s')
    .select(['s.feature_name', ...columns, segmentIds])
    .where('s.feature_name', 'in', features)
    .where('s.environment_name', '=', environment)
    .orderBy('s.feature_name')
    .orderBy('s.sort_order')
    .orderBy('s.created_at')
    .orderBy('s.id')
    .execute()
  return groupBy(rows, (row) => row.feature_name, (row) => toStrategy(row).strategy)
}

/**
 * The project's default strategy in the feature-environment's environment (JSON text), null
 * when it has none: what a feature switched on there with no active strategy gets.
 */
export async function projectDefaultStrategy (trx: Transaction<DB>, ref: FeatureEnvironmentRef): Promise<string | null> {
  const row = await trx
    .selectFrom('project_environments')
    .select('default_strategy')
    .where('project_id', '=', ref.project)
    .where('environment_name', '=', ref.environment)
    .executeTakeFirst()
  return row?.default_strategy ?? null
}
