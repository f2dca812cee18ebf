import type { Transaction } from 'kysely'
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
