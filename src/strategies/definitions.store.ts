import type { Transaction } from 'kysely'
import { isUniqueViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import { nameExists } from '../errors.js'
import type { ParameterDefinition, StrategyDefinition } from './strategies.schemas.js'

const columns = ['name', 'display_name', 'title', 'description', 'parameters', 'built_in', 'deprecated'] as const

type Row = {
  name: string
  display_name: string | null
  title: string | null
  description: string | null
  parameters: string
  built_in: boolean
  deprecated: boolean
}

/** As Unleash shows a definition: parameters with their description and required flag filled in. */
const toDefinition = (row: Row): StrategyDefinition => ({
  name: row.name,
  displayName: row.display_name,
  title: row.title,
  description: row.description,
  editable: !row.built_in,
  deprecated: row.deprecated,
  parameters: (JSON.parse(row.parameters) as ParameterDefinition[]).map((p) => ({
    name: p.name,
    type: p.type,
    description: p.description ?? '',
    required: p.required ?? false,
  })),
})

export async function listDefinitions (db: Queryable): Promise<StrategyDefinition[]> {
  const rows = await db.selectFrom('strategy_definitions').select(columns).orderBy('sort_order').orderBy('name').execute()
  return rows.map(toDefinition)
}

export async function findDefinition (db: Queryable, name: string): Promise<StrategyDefinition | undefined> {
  const row = await db.selectFrom('strategy_definitions').select(columns).where('name', '=', name).executeTakeFirst()
  return row && toDefinition(row)
}

/** The definition, locked until the transaction ends (its writers serialise). */
export async function lockDefinition (trx: Transaction<DB>, name: string): Promise<StrategyDefinition | undefined> {
  const row = await trx.selectFrom('strategy_definitions').select(columns).where('name', '=', name).forNoKeyUpdate().executeTakeFirst()
  return row && toDefinition(row)
}

/**
 * The definition a strategy about to be written names, its key locked (FOR KEY SHARE) until the
 * transaction ends: a definition being deleted waits for the write, and then sees its use.
 */
export async function findDefinitionForUse (trx: Transaction<DB>, name: string): Promise<StrategyDefinition | undefined> {
  const row = await trx.selectFrom('strategy_definitions').select(columns).where('name', '=', name).forKeyShare().executeTakeFirst()
  return row && toDefinition(row)
}

/** The definition, locked for deletion: strategies about to use it wait, and then find it gone. */
export async function lockDefinitionForDelete (trx: Transaction<DB>, name: string): Promise<StrategyDefinition | undefined> {
  const row = await trx.selectFrom('strategy_definitions').select(columns).where('name', '=', name).forUpdate().executeTakeFirst()
  return row && toDefinition(row)
}

/** The strategies (of features archived or not) that use a definition: at most `limit`, and how many there are. */
export async function definitionUses (trx: Transaction<DB>, name: string, limit: number) {
  const rows = await trx
    .selectFrom('feature_strategies')
    .select(['feature_name', 'environment_name', (eb) => eb.fn.countAll<string>().over().as('total')])
    .where('strategy_name', '=', name)
    .orderBy('feature_name')
    .orderBy('environment_name')
    .limit(limit)
    .execute()
  return { total: Number(rows[0]?.total ?? 0), uses: rows.map((r) => ({ feature: r.feature_name, environment: r.environment_name })) }
}

export async function deleteDefinition (trx: Transaction<DB>, name: string) {
  await trx.deleteFrom('strategy_definitions').where('name', '=', name).execute()
}

export interface DefinitionFields {
  name: string
  title: string | null
  description: string | null
  parameters: ParameterDefinition[]
}

const stored = (d: DefinitionFields) => ({
  title: d.title,
  description: d.description,
  parameters: JSON.stringify(d.parameters.map((p) => ({ name: p.name, type: p.type, description: p.description ?? '', required: p.required ?? false }))),
})

export async function insertDefinition (trx: Transaction<DB>, definition: DefinitionFields): Promise<StrategyDefinition> {
  try {
    const row = await trx
      .insertInto('strategy_definitions')
      .values({ name: definition.name, display_name: null, ...stored(definition) })
      .returning(columns)
      .executeTakeFirstOrThrow()
    return toDefinition(row)
  } catch (error) {
    if (isUniqueViolation(error)) throw nameExists(`A strategy named ${definition.name} already exists`)
    throw error
  }
}

export async function updateDefinition (trx: Transaction<DB>, definition: DefinitionFields): Promise<StrategyDefinition> {
  const row = await trx
    .updateTable('strategy_definitions')
    .set(stored(definition))
    .where('name', '=', definition.name)
    .returning(columns)
    .executeTakeFirstOrThrow()
  return toDefinition(row)
}

export async function setDeprecated (trx: Transaction<DB>, name: string, deprecated: boolean) {
  await trx.updateTable('strategy_definitions').set({ deprecated }).where('name', '=', name).execute()
}
