import type { Static } from '@sinclair/typebox'
import type { Transaction } from 'kysely'
import { ALL, type TokenScope } from '../access/scope.js'
import { isUniqueViolation } from '../db/errors.js'
import type { DB, Queryable } from '../db/types.js'
import { nameExists } from '../errors.js'
import type { NewProject } from './projects.schemas.js'

const projectColumns = ['id', 'name', 'description', 'created_at'] as const

const toProject = (row: { id: string; name: string; description: string | null; created_at: Date }) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  createdAt: row.created_at,
})

export async function listProjects (db: Queryable, token: TokenScope) {
  let query = db.selectFrom('projects').select(projectColumns)
  if (!token.projects.includes(ALL)) query = query.where('id', 'in', token.projects)
  const rows = await query.orderBy('id').execute()
  return rows.map(toProject)
}

export async function findProject (db: Queryable, id: string) {
  const row = await db.selectFrom('projects').select(projectColumns).where('id', '=', id).executeTakeFirst()
  return row && toProject(row)
}

export async function insertProject (trx: Transaction<DB>, project: Static<typeof NewProject>) {
  try {
    const row = await trx
      .insertInto('projects')
      .values({ id: project.id, name: project.name, description: project.description ?? null })
      .returning(projectColumns)
      .executeTakeFirstOrThrow()
    return toProject(row)
  } catch (error) {
    if (isUniqueViolation(error)) throw nameExists(`A project with id ${project.id} already exists`)
    throw error
  }
}

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
