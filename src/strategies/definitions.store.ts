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
