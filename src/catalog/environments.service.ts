import type { Static } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import type { NewEnvironment } from './environments.schemas.js'
import { insertEnvironment, listEnvironments } from './environments.store.js'

export const environments = (db: Database) => listEnvironments(db)

export function createEnvironment (writer: Writer, body: Static<typeof NewEnvironment>, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const created = await insertEnvironment(trx, body)
    record({ type: 'environment-created', createdBy, environment: created.name, data: toJsonText(body) })
    return created
  })
}
