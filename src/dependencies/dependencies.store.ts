import { sql, type Transaction } from 'kysely'
import type { DB, Queryable } from '../db/types.js'
import { groupBy } from '../db/rows.js'

export interface Dependency {
  feature: string
  enabled: boolean
  /** Variant names of the parent; undefined when none were given. */
  variants?: string[]
}

const toDependency = (row: { parent: string; enabled: boolean; variants: string | null }): Dependency => ({
  feature: row.parent,
  enabled: row.enabled,
  ...(row.variants !== null && { variants: JSON.parse(row.variants) as string[] }),
})

/** The parents of a feature, in the order they were added. */
export async function parentsOf (db: Queryable, child: string): Promise<Dependency[]> {
  const rows = await db
    .selectFrom('feature_dependencies')
    .select(['parent', 'enabled', 'variants'])
    .where('child', '=', child)
    .orderBy('created_at')
    .orderBy('parent')
    .execute()
  return rows.map(toDependency)
}

/** The children of a feature, by name; `live`: only those not archived. */
export async function childrenOf (db: Queryable, parent: string, live = false): Promise<string[]> {
  let query = db
    .selectFrom('feature_dependencies as d')
    .innerJoin('features as f', 'f.name', 'd.child')
    .select('d.child')
    .where('d.parent', '=', parent)
    .orderBy('d.child')
  if (live) query = query.where('f.archived_at', 'is', null)
  return (await query.execute()).map((r) => r.child)
}

export async function upsertDependency (trx: Transaction<DB>, child: string, dependency: Dependency) {
  const values = {
    enabled: dependency.enabled,
    variants: dependency.variants === undefined ? null : JSON.stringify(dependency.variants),
  }
  await trx
    .insertInto('feature_dependencies')
    .values({ child, parent: dependency.feature, ...values })
    .onConflict((oc) => oc.columns(['child', 'parent']).doUpdateSet(values))
    .execute()
}

/** Removes dependencies of a child (on one parent, or all); returns the parents removed. */
export async function deleteDependencies (trx: Transaction<DB>, child: string, parent?: string): Promise<string[]> {
  let query = trx.deleteFrom('feature_dependencies').where('child', '=', child)
  if (parent !== undefined) query = query.where('parent', '=', parent)
  return (await query.returning('parent').execute()).map((r) => r.parent)
}

/** The parents of several features, by child name, each list in the order they were added. */
export async function parentsOfFeatures (db: Queryable, children: readonly string[]): Promise<Map<string, Dependency[]>> {
  if (children.length === 0) return new Map()
  const rows = await db
    .selectFrom('feature_dependencies')
    .select(['child', 'parent', 'enabled', 'variants'])
    .where('child', 'in', children)
    .orderBy('child')
    .orderBy('created_at')
    .orderBy('parent')
    .execute()
  return groupBy(rows, (row) => row.child, toDependency)
}

/** Those of `names` that other features depend on (archived children too). */
export async function parentsAmong (db: Queryable, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return []
  const rows = await db.selectFrom('feature_dependencies').select('parent').distinct().where('parent', 'in', names).orderBy('parent').execute()
  return rows.map((r) => r.parent)
}

/** Those of `names` that a feature not in `names` depends on: taking them away would leave it an orphan. */
export async function parentsWithChildrenOutside (db: Queryable, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return []
  const rows = await db
    .selectFrom('feature_dependencies')
    .select('parent')
    .distinct()
    .where('parent', 'in', names)
    .where('child', 'not in', names)
    .orderBy('parent')
    .execute()
  return rows.map((r) => r.parent)
}

/** Whether any of these features depends on another or has features depending on it. */
export async function haveDependencies (db: Queryable, names: readonly string[]): Promise<boolean> {
  if (names.length === 0) return false
  const row = await db
    .selectFrom('feature_dependencies')
    .select('child')
    .where((eb) => eb.or([eb('parent', 'in', names), eb('child', 'in', names)]))
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** Whether any feature of the project (archived too) has a parent. */
export async function projectHasDependencies (db: Queryable, project: string): Promise<boolean> {
  const row = await db
    .selectFrom('feature_dependencies as d')
    .innerJoin('features as f', 'f.name', 'd.child')
    .select('d.child')
    .where('f.project_id', '=', project)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/**
 * The features `child` may depend on, by name, as Unleash offers them: those of its project,
 * not itself, not archived, that depend on no other feature (no chains). Empty when there is no
 * such child.
 */
export async function possibleParents (db: Queryable, project: string, child: string): Promise<string[]> {
  const rows = await db
    .selectFrom('features as f')
    .select('f.name')
    .where('f.project_id', '=', project)
    .where('f.name', '!=', child)
    .where('f.archived_at', 'is', null)
    .where(({ exists, selectFrom }) => exists(selectFrom('features as c').select('c.name').where('c.name', '=', child).where('c.project_id', '=', project)))
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('feature_dependencies as d').select('d.child').whereRef('d.child', '=', 'f.name'))))
    .orderBy('f.name')
    .execute()
  return rows.map((r) => r.name)
}

/** The distinct variant names of a feature of the project, from its strategies' variants and its environments' variants, sorted. */
export async function parentVariantNames (db: Queryable, project: string, parent: string): Promise<string[]> {
  const rows = await db
    .selectFrom('features as f')
    .innerJoin('feature_environments as fe', 'fe.feature_name', 'f.name')
    .select(sql<string>`v.value->>'name'`.as('name'))
    .innerJoin(sql<{ value: unknown }>`json_array_elements(fe.variants)`.as('v'), (join) => join.onTrue())
    .where('f.name', '=', parent)
    .where('f.project_id', '=', project)
    .union(
      db
        .selectFrom('features as f')
        .innerJoin('feature_strategies as s', 's.feature_name', 'f.name')
        .innerJoin(sql<{ value: unknown }>`json_array_elements(s.variants)`.as('v'), (join) => join.onTrue())
        .select(sql<string>`v.value->>'name'`.as('name'))
        .where('f.name', '=', parent)
        .where('f.project_id', '=', project)
    )
    .execute()
  return [...new Set(rows.map((r) => r.name).filter((n): n is string => typeof n === 'string'))].sort()
}
