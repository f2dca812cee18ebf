import { sql, type Transaction } from 'kysely'
import type { DB, Queryable } from '../db/types.js'

export async function environmentExists (db: Queryable, name: string): Promise<boolean> {
  return (await db.selectFrom('environments').select('name').where('name', '=', name).executeTakeFirst()) !== undefined
}

/** The names of the features (not archived) of a project, or of every project, by name. */
export async function liveFeatureNames (db: Queryable, project?: string): Promise<string[]> {
  let query = db.selectFrom('features').select('name').where('archived_at', 'is', null).orderBy('name')
  if (project !== undefined) query = query.where('project_id', '=', project)
  return (await query.execute()).map((r) => r.name)
}

/** Features by name (archived ones too), by name, with what an export says of them. */
export async function featuresNamed (db: Queryable, names: readonly string[]) {
  if (names.length === 0) return []
  const rows = await db
    .selectFrom('features')
    .select(['name', 'description', 'type', 'project_id', 'stale', 'impression_data', 'archived_at'])
    .where('name', 'in', names)
    .orderBy('name')
    .execute()
  return rows.map((r) => ({ name: r.name, description: r.description, type: r.type, project: r.project_id, stale: r.stale, impressionData: r.impression_data, archived: r.archived_at !== null }))
}

/** The feature-environments of these features in one environment, by feature name. */
export async function featureEnvironmentsOf (db: Queryable, names: readonly string[], environment: string) {
  if (names.length === 0) return []
  const rows = await db
    .selectFrom('feature_environments')
    .select(['feature_name', 'enabled', 'variants'])
    .where('feature_name', 'in', names)
    .where('environment_name', '=', environment)
    .orderBy('feature_name')
    .execute()
  return rows.map((r) => ({ featureName: r.feature_name, enabled: r.enabled, variants: r.variants }))
}

/** Imports run one at a time (instances starting together each import IMPORT_FILE): held until the transaction ends. */
export async function lockImports (trx: Transaction<DB>) {
  await sql`SELECT pg_advisory_xact_lock(${IMPORT_LOCK})`.execute(trx)
}
const IMPORT_LOCK = 0x1f1a6_0028
