import type { Static } from '@sinclair/typebox'
import { type ExpressionBuilder, sql, type Transaction } from 'kysely'
import { isUniqueViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import { nameExists } from '../errors.js'
import type { FeatureStrategy } from '../strategies/strategies.schemas.js'
import type { NewEnvironment } from './environments.schemas.js'

const columns = ['e.name', 'e.type', 'e.enabled', 'e.protected', 'e.sort_order'] as const

type Row = { name: string; type: string; enabled: boolean; protected: boolean; sort_order: number }

/** An environment as Unleash's environmentSchema has it (no change requests here: requiredApprovals null). */
const toEnvironment = (row: Row) => ({
  name: row.name,
  type: row.type,
  enabled: row.enabled,
  protected: row.protected,
  sortOrder: row.sort_order,
  requiredApprovals: null,
})
export type Environment = ReturnType<typeof toEnvironment>

/** The JSON array (a token's `environments` or `projects`) holds this value. */
const holds = (column: string, value: string) => sql<boolean>`${sql.ref(column)} @> ${JSON.stringify([value])}::jsonb`

/** Tokens that name the environment (`e`): the environment's tokens, as Unleash counts them. */
const tokensOf = (eb: ExpressionBuilder<DB & { e: DB['environments'] }, 'e'>) =>
  eb.selectFrom('api_tokens as t').select(eb.fn.countAll<string>().as('n')).where(sql<boolean>`t.environments @> jsonb_build_array(e.name)`)

/** Every environment, in list order (sortOrder, then creation), with Unleash's counts. */
export async function listEnvironments (db: Queryable) {
  const rows = await db
    .selectFrom('environments as e')
    .select(columns)
    .select((eb) => [
      eb.selectFrom('project_environments as pe').select(eb.fn.countAll<string>().as('n')).whereRef('pe.environment_name', '=', 'e.name').as('projects'),
      tokensOf(eb).as('tokens'),
      eb.selectFrom('feature_environments as fe').select(eb.fn.countAll<string>().as('n')).whereRef('fe.environment_name', '=', 'e.name').where('fe.enabled', '=', true).as('enabled_features'),
    ])
    .orderBy('e.sort_order')
    .orderBy('e.created_at')
    .orderBy('e.name')
    .execute()
  return rows.map((r) => ({
    ...toEnvironment(r),
    projectCount: Number(r.projects ?? 0),
    apiTokenCount: Number(r.tokens ?? 0),
    enabledToggleCount: Number(r.enabled_features ?? 0),
  }))
}

export async function findEnvironment (db: Queryable, name: string): Promise<Environment | undefined> {
  const row = await db.selectFrom('environments as e').select(columns).where('e.name', '=', name).executeTakeFirst()
  return row && toEnvironment(row)
}

/** The named environments that exist, locked until the transaction ends, in name order (so that two such writers cannot deadlock). */
export async function lockEnvironments (trx: Transaction<DB>, names: readonly string[]): Promise<Environment[]> {
  if (names.length === 0) return []
  const rows = await trx.selectFrom('environments as e').select(columns).where('e.name', 'in', names).orderBy('e.name').forNoKeyUpdate().execute()
  return rows.map(toEnvironment)
}

/** Creates an environment; without a sortOrder it is listed after the last one. */
export async function insertEnvironment (trx: Transaction<DB>, environment: Static<typeof NewEnvironment>): Promise<Environment> {
  try {
    const row = await trx
      .insertInto('environments')
      .values((eb) => ({
        name: environment.name,
        type: environment.type,
        sort_order: environment.sortOrder ?? eb.selectFrom('environments').select(sql<number>`coalesce(max(sort_order), 0) + 1`.as('next')),
      }))
      .returning(['name', 'type', 'enabled', 'protected', 'sort_order'])
      .executeTakeFirstOrThrow()
    return toEnvironment(row)
  } catch (error) {
    if (isUniqueViolation(error)) throw nameExists(`An environment named ${environment.name} already exists`)
    throw error
  }
}

export async function updateEnvironment (trx: Transaction<DB>, name: string, fields: { sortOrder?: number; enabled?: boolean }) {
  await trx
    .updateTable('environments')
    .set({ ...(fields.sortOrder !== undefined && { sort_order: fields.sortOrder }), ...(fields.enabled !== undefined && { enabled: fields.enabled }) })
    .where('name', '=', name)
    .execute()
}

/**
 * Every environment as one project sees it, in list order: whether it is enabled there
 * (visible), its client and frontend tokens that cover the project, the project's features on
 * in it, and the project's default strategy there.
 */
export async function environmentsOfProject (db: Queryable, project: string) {
  const rows = await db
    .selectFrom('environments as e')
    .leftJoin('project_environments as pe', (join) => join.onRef('pe.environment_name', '=', 'e.name').on('pe.project_id', '=', project))
    .select(columns)
    .select(['pe.project_id', 'pe.default_strategy'])
    .select((eb) => [
      eb
        .selectFrom('api_tokens as t')
        .select(eb.fn.countAll<string>().as('n'))
        .where('t.type', 'in', ['client', 'frontend'])
        .where(sql<boolean>`t.environments @> jsonb_build_array(e.name)`)
        .where((w) => w.or([holds('t.projects', '*'), holds('t.projects', project)]))
        .as('tokens'),
      eb
        .selectFrom('feature_environments as fe')
        .innerJoin('features as f', 'f.name', 'fe.feature_name')
        .select(eb.fn.countAll<string>().as('n'))
        .whereRef('fe.environment_name', '=', 'e.name')
        .where('f.project_id', '=', project)
        .where('fe.enabled', '=', true)
        .as('enabled_features'),
    ])
    .orderBy('e.sort_order')
    .orderBy('e.created_at')
    .orderBy('e.name')
    .execute()
  return rows.map((r) => ({
    ...toEnvironment(r),
    projectApiTokenCount: Number(r.tokens ?? 0),
    projectEnabledToggleCount: Number(r.enabled_features ?? 0),
    ...(r.default_strategy !== null && { defaultStrategy: JSON.parse(r.default_strategy) as Omit<FeatureStrategy, 'id'> }),
    visible: r.project_id !== null,
  }))
}
