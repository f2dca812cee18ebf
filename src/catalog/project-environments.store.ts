import type { Transaction } from 'kysely'
import type { DB, Queryable } from '../db/types.js'

/**
 * Enables an existing environment in an existing project and gives each of the project's
 * features its feature-environment there. Returns false when it was enabled already (then
 * nothing is written).
 */
export async function addProjectEnvironment (trx: Transaction<DB>, project: string, environment: string): Promise<boolean> {
  const added = await trx
    .insertInto('project_environments')
    .values({ project_id: project, environment_name: environment })
    .onConflict((oc) => oc.doNothing())
    .returning('project_id')
    .executeTakeFirst()
  if (!added) return false
  await trx
    .insertInto('feature_environments')
    .columns(['feature_name', 'environment_name'])
    .expression((eb) =>
      eb.selectFrom('features').select(['name', eb.val(environment).as('environment_name')]).where('project_id', '=', project)
    )
    .onConflict((oc) => oc.doNothing())
    .execute()
  return true
}

/**
 * Locks the project's row against new features and environments (FOR UPDATE: a feature or a
 * project-environment inserted meanwhile takes a key-share lock on it) until the transaction
 * ends; false when there is no such project.
 */
export async function lockProjectRow (trx: Transaction<DB>, project: string): Promise<boolean> {
  return (await trx.selectFrom('projects').select('id').where('id', '=', project).forUpdate().executeTakeFirst()) !== undefined
}

/** The names of the project's features (archived too), in name order. */
export async function featureNamesOf (db: Queryable, project: string): Promise<string[]> {
  const rows = await db.selectFrom('features').select('name').where('project_id', '=', project).orderBy('name').execute()
  return rows.map((r) => r.name)
}

/**
 * Takes the environment out of the project: the project's feature-environments there go, and
 * with them their strategies; false when it was not enabled there (then nothing is written).
 */
export async function removeProjectEnvironment (trx: Transaction<DB>, project: string, environment: string): Promise<boolean> {
  const removed = await trx
    .deleteFrom('project_environments')
    .where('project_id', '=', project)
    .where('environment_name', '=', environment)
    .returning('project_id')
    .executeTakeFirst()
  if (!removed) return false
  await trx
    .deleteFrom('feature_environments')
    .where('environment_name', '=', environment)
    .where('feature_name', 'in', (eb) => eb.selectFrom('features').select('name').where('project_id', '=', project))
    .execute()
  return true
}

/**
 * The project's default strategy in the environment, its row locked until the transaction
 * ends: JSON text, null when it has none; undefined when the environment is not enabled in the
 * project.
 */
export async function lockDefaultStrategy (trx: Transaction<DB>, project: string, environment: string): Promise<string | null | undefined> {
  const row = await trx
    .selectFrom('project_environments')
    .select('default_strategy')
    .where('project_id', '=', project)
    .where('environment_name', '=', environment)
    .forNoKeyUpdate()
    .executeTakeFirst()
  return row?.default_strategy
}

export async function setDefaultStrategy (trx: Transaction<DB>, project: string, environment: string, strategy: string) {
  await trx
    .updateTable('project_environments')
    .set({ default_strategy: strategy })
    .where('project_id', '=', project)
    .where('environment_name', '=', environment)
    .execute()
}
