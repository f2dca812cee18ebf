import type { Static } from '@sinclair/typebox'
import type { TokenScope } from '../access/scope.js'
import type { Database } from '../db/types.js'
import { notFound } from '../errors.js'
import { readerOf, withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { requirePresent } from '../features/features.store.js'
import type { NewProject } from './projects.schemas.js'
import { addProjectEnvironment, findProject, insertProject, listProjects } from './projects.store.js'

export const projects = (db: Database, token: TokenScope) => listProjects(db, token)

export async function project (db: Database, id: string) {
  const found = await findProject(db, id)
  if (!found) throw notFound(`Project ${id} does not exist`)
  return found
}

export function createProject (writer: Writer, body: Static<typeof NewProject>, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const created = await insertProject(trx, body)
    record({ type: 'project-created', createdBy, project: created.id, data: toJsonText(body) })
    return created
  })
}

/** Enables an environment in a project (project-environment-added); enabling it again changes nothing. */
export async function enableEnvironment (writer: Writer, project: string, environment: string, createdBy: Author) {
  // Projects and environments are never removed: checked once, they stay there.
  await requirePresent(readerOf(writer), { project, environment }, false)
  await withChange(writer, async ({ trx, record }) => {
    if (await addProjectEnvironment(trx, project, environment)) {
      record({ type: 'project-environment-added', createdBy, project, environment, data: toJsonText({ environment }) })
    }
  })
}
