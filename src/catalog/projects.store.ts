import type { Static } from '@sinclair/typebox'
import type { Transaction } from 'kysely'
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
