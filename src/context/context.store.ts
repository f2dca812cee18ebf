import { sql, type Transaction } from 'kysely'
import { isUniqueViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import { nameExists } from '../errors.js'
import type { ContextField, LegalValue } from './context.schemas.js'

const columns = ['name', 'description', 'stickiness', 'sort_order', 'legal_values', 'created_at', 'project'] as const

type Row = { name: string; description: string | null; stickiness: boolean; sort_order: number; legal_values: string; created_at: Date; project: string | null }

const toContextField = (row: Row): ContextField => ({
  name: row.name,
  description: row.description,
  stickiness: row.stickiness,
  sortOrder: row.sort_order,
  legalValues: JSON.parse(row.legal_values) as LegalValue[],
  createdAt: row.created_at,
  ...(row.project !== null && { project: row.project }),
})

/** What a context field is made of, as stored. */
export interface ContextFieldFields {
  name: string
  description: string | null
  stickiness: boolean
  sortOrder: number
  legalValues: LegalValue[]
  /** Only when created: a field never moves between projects. */
  project?: string | null
}

/** Which fields a list holds: the root ones or not, and those of every project (undefined) or of these. */
export interface FieldScope {
  root: boolean
  projects?: readonly string[]
}

const values = (f: ContextFieldFields) => ({
  description: f.description,
  stickiness: f.stickiness,
  sort_order: f.sortOrder,
  legal_values: JSON.stringify(f.legalValues),
})

/** Strategies whose constraints read a context field (JSON text, so cast for the containment test). */
const readsField = (name: string) => sql<boolean>`s.constraints::jsonb @> ${JSON.stringify([{ contextName: name }])}::jsonb`

/** The context fields in scope, by name, with how many features (not archived) and projects use each. */
export async function listContextFields (db: Queryable, scope: FieldScope) {
  if (!scope.root && scope.projects?.length === 0) return []
  const rows = await db
    .selectFrom('context_fields as c')
    .select(['c.name', 'c.description', 'c.stickiness', 'c.sort_order', 'c.legal_values', 'c.created_at', 'c.project'])
    .where((eb) => {
      const ofProjects = scope.projects === undefined ? eb('c.project', 'is not', null) : scope.projects.length === 0 ? eb.val(false) : eb('c.project', 'in', scope.projects)
      return scope.root ? eb.or([eb('c.project', 'is', null), ofProjects]) : ofProjects
    })
    .select((eb) => [
      eb
        .selectFrom('feature_strategies as s')
        .innerJoin('features as f', 'f.name', 's.feature_name')
        .select(sql<string>`count(DISTINCT f.name)`.as('n'))
        .where('f.archived_at', 'is', null)
        .where(sql<boolean>`s.constraints::jsonb @> jsonb_build_array(jsonb_build_object('contextName', c.name))`)
        .as('used_in_features'),
      eb
        .selectFrom('feature_strategies as s')
        .innerJoin('features as f', 'f.name', 's.feature_name')
        .select(sql<string>`count(DISTINCT f.project_id)`.as('n'))
        .where('f.archived_at', 'is', null)
        .where(sql<boolean>`s.constraints::jsonb @> jsonb_build_array(jsonb_build_object('contextName', c.name))`)
        .as('used_in_projects'),
    ])
    .orderBy('c.name')
    .execute()
  return rows.map((r) => ({ ...toContextField(r), usedInFeatures: Number(r.used_in_features ?? 0), usedInProjects: Number(r.used_in_projects ?? 0) }))
}

/** Context fields by name, in name order (all when `names` is undefined), without usage counts. */
export async function contextFieldsNamed (db: Queryable, names?: readonly string[]): Promise<ContextField[]> {
  if (names?.length === 0) return []
  let query = db.selectFrom('context_fields').select(columns).orderBy('name')
  if (names !== undefined) query = query.where('name', 'in', names)
  return (await query.execute()).map(toContextField)
}

export async function findContextField (db: Queryable, name: string): Promise<ContextField | undefined> {
  const row = await db.selectFrom('context_fields').select(columns).where('name', '=', name).executeTakeFirst()
  return row && toContextField(row)
}

/** The context field, locked until the transaction ends: its writers serialise. */
export async function lockContextField (trx: Transaction<DB>, name: string): Promise<ContextField | undefined> {
  const row = await trx.selectFrom('context_fields').select(columns).where('name', '=', name).forNoKeyUpdate().executeTakeFirst()
  return row && toContextField(row)
}

export async function insertContextField (trx: Transaction<DB>, fields: ContextFieldFields): Promise<ContextField> {
  try {
    const row = await trx.insertInto('context_fields').values({ name: fields.name, ...values(fields), project: fields.project ?? null }).returning(columns).executeTakeFirstOrThrow()
    return toContextField(row)
  } catch (error) {
    if (isUniqueViolation(error)) throw nameExists('A context field with that name already exist')
    throw error
  }
}

export async function updateContextField (trx: Transaction<DB>, fields: ContextFieldFields): Promise<ContextField> {
  const row = await trx.updateTable('context_fields').set(values(fields)).where('name', '=', fields.name).returning(columns).executeTakeFirstOrThrow()
  return toContextField(row)
}

export async function deleteContextField (trx: Transaction<DB>, name: string) {
  await trx.deleteFrom('context_fields').where('name', '=', name).execute()
}

/** The strategies (of archived features too) whose constraints read the field, in feature and environment order. */
export async function strategiesReading (db: Queryable, name: string) {
  const rows = await db
    .selectFrom('feature_strategies as s')
    .innerJoin('features as f', 'f.name', 's.feature_name')
    .select(['s.id', 'f.project_id', 's.feature_name', 's.strategy_name', 's.environment_name'])
    .where(readsField(name))
    .orderBy('s.feature_name')
    .orderBy('s.environment_name')
    .orderBy('s.id')
    .execute()
  return rows.map((r) => ({ id: r.id, projectId: r.project_id, featureName: r.feature_name, strategyName: r.strategy_name, environment: r.environment_name }))
}
