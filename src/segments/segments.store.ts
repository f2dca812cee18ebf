import { sql, type Transaction } from 'kysely'
import { isForeignKeyViolation, isUniqueViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import { ApiError, nameExists } from '../errors.js'
import type { Constraint } from '../constraints/constraints.schemas.js'
import type { Segment } from './segments.schemas.js'

const columns = ['id', 'name', 'description', 'project_id', 'constraints', 'created_by', 'created_at'] as const

type Row = {
  id: number
  name: string
  description: string | null
  project_id: string | null
  constraints: string
  created_by: string
  created_at: Date
}

const toSegment = (row: Row): Segment => ({
  id: row.id,
  name: row.name,
  description: row.description,
  project: row.project_id,
  constraints: JSON.parse(row.constraints) as unknown[],
  createdBy: row.created_by,
  createdAt: row.created_at,
})

/** Segments visible to a scope (all when `projects` is undefined: global ones and those of the projects), by name. */
export async function listSegments (db: Queryable, projects: readonly string[] | undefined) {
  let query = db
    .selectFrom('segments as g')
    .select(['g.id', 'g.name', 'g.description', 'g.project_id', 'g.constraints', 'g.created_by', 'g.created_at'])
    .select((eb) => [
      eb
        .selectFrom('feature_strategy_segments as ss')
        .innerJoin('feature_strategies as s', 's.id', 'ss.strategy_id')
        .innerJoin('features as f', 'f.name', 's.feature_name')
        .select(sql<string>`count(DISTINCT f.name)`.as('n'))
        .whereRef('ss.segment_id', '=', 'g.id')
        .where('f.archived_at', 'is', null)
        .as('used_in_features'),
      eb
        .selectFrom('feature_strategy_segments as ss')
        .innerJoin('feature_strategies as s', 's.id', 'ss.strategy_id')
        .innerJoin('features as f', 'f.name', 's.feature_name')
        .select(sql<string>`count(DISTINCT f.project_id)`.as('n'))
        .whereRef('ss.segment_id', '=', 'g.id')
        .where('f.archived_at', 'is', null)
        .as('used_in_projects'),
    ])
    .orderBy('g.name')
  if (projects !== undefined) query = query.where((eb) => eb.or([eb('g.project_id', 'is', null), eb('g.project_id', 'in', projects)]))
  const rows = await query.execute()
  return rows.map((r) => ({ ...toSegment(r), usedInFeatures: Number(r.used_in_features ?? 0), usedInProjects: Number(r.used_in_projects ?? 0) }))
}

export async function findSegment (db: Queryable, id: number): Promise<Segment | undefined> {
  const row = await db.selectFrom('segments').select(columns).where('id', '=', id).executeTakeFirst()
  return row && toSegment(row)
}

/** The segment, locked until the transaction ends: its writers serialise. */
export async function lockSegment (trx: Transaction<DB>, id: number): Promise<Segment | undefined> {
  const row = await trx.selectFrom('segments').select(columns).where('id', '=', id).forNoKeyUpdate().executeTakeFirst()
  return row && toSegment(row)
}

/** Segments by id, or (with `names`) by name, in id order; no lock. */
export async function segmentsWhere (db: Queryable, where: { ids?: readonly number[]; names?: readonly string[] }): Promise<Segment[]> {
  if (where.ids?.length === 0 || where.names?.length === 0) return []
  let query = db.selectFrom('segments').select(columns).orderBy('id')
  if (where.ids !== undefined) query = query.where('id', 'in', where.ids)
  if (where.names !== undefined) query = query.where('name', 'in', where.names)
  return (await query.execute()).map(toSegment)
}

/** The segments of these ids that exist (for a strategy that wants to use them), sharing their rows' key lock. */
export async function segmentsById (trx: Transaction<DB>, ids: readonly number[]): Promise<Segment[]> {
  if (ids.length === 0) return []
  const rows = await trx.selectFrom('segments').select(columns).where('id', 'in', ids).forKeyShare().execute()
  return rows.map(toSegment)
}

/** The segments a strategy uses, by id. */
export async function segmentsOfStrategy (db: Queryable, strategyId: string): Promise<Segment[]> {
  const rows = await db
    .selectFrom('segments')
    .innerJoin('feature_strategy_segments as ss', 'ss.segment_id', 'segments.id')
    .select(columns.map((c) => `segments.${c}` as const))
    .where('ss.strategy_id', '=', strategyId)
    .orderBy('segments.id')
    .execute()
  return rows.map(toSegment)
}

export interface SegmentFields {
  name: string
  description: string | null
  project: string | null
  constraints: Constraint[]
}

const values = (s: SegmentFields) => ({
  name: s.name,
  description: s.description,
  project_id: s.project,
  constraints: JSON.stringify(s.constraints),
})

const translated = (error: unknown, fields: SegmentFields) => {
  if (isUniqueViolation(error)) return nameExists(`A segment named ${fields.name} already exists`)
  if (isForeignKeyViolation(error)) return new ApiError('NotFoundError', `Project ${fields.project} does not exist`)
  return error
}

export async function insertSegment (trx: Transaction<DB>, fields: SegmentFields, createdBy: string): Promise<Segment> {
  try {
    const row = await trx.insertInto('segments').values({ ...values(fields), created_by: createdBy }).returning(columns).executeTakeFirstOrThrow()
    return toSegment(row)
  } catch (error) {
    throw translated(error, fields)
  }
}

export async function updateSegment (trx: Transaction<DB>, id: number, fields: SegmentFields): Promise<Segment> {
  try {
    const row = await trx.updateTable('segments').set(values(fields)).where('id', '=', id).returning(columns).executeTakeFirstOrThrow()
    return toSegment(row)
  } catch (error) {
    throw translated(error, fields)
  }
}

/** Deletes a segment, taking it from the strategies that still use it (of archived features). */
export async function deleteSegment (trx: Transaction<DB>, id: number) {
  await trx.deleteFrom('feature_strategy_segments').where('segment_id', '=', id).execute()
  await trx.deleteFrom('segments').where('id', '=', id).execute()
}

export async function segmentNameTaken (db: Queryable, name: string): Promise<boolean> {
  return (await db.selectFrom('segments').select('id').where('name', '=', name).executeTakeFirst()) !== undefined
}

/** The strategies that use a segment (of archived features too), in feature and environment order. */
export async function segmentUses (db: Queryable, id: number) {
  const rows = await db
    .selectFrom('feature_strategy_segments as ss')
    .innerJoin('feature_strategies as s', 's.id', 'ss.strategy_id')
    .innerJoin('features as f', 'f.name', 's.feature_name')
    .select(['s.id', 'f.project_id', 's.feature_name', 's.strategy_name', 's.environment_name', 'f.archived_at'])
    .where('ss.segment_id', '=', id)
    .orderBy('s.feature_name')
    .orderBy('s.environment_name')
    .orderBy('s.id')
    .execute()
  return rows.map((r) => ({ id: r.id, projectId: r.project_id, featureName: r.feature_name, strategyName: r.strategy_name, environment: r.environment_name, archived: r.archived_at !== null }))
}
