import type { Static } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { notFound } from '../errors.js'
import { withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { findProject } from './projects.store.js'
import type { NewEnvironment } from './environments.schemas.js'
import {
  type Environment,
  environmentsOfProject,
  findEnvironment,
  insertEnvironment,
  listEnvironments,
  lockEnvironments,
  updateEnvironment,
} from './environments.store.js'

const missing = (name: string) => notFound(`Environment ${name} does not exist`)

/** What an environment-updated event shows of an environment. */
const eventData = (e: Environment) => toJsonText({ name: e.name, type: e.type, enabled: e.enabled, protected: e.protected, sortOrder: e.sortOrder })

export const environments = (db: Database) => listEnvironments(db)

export async function environment (db: Database, name: string) {
  const found = await findEnvironment(db, name)
  if (!found) throw missing(name)
  return found
}

/** Every environment as the project sees it; 404 for a project that does not exist. */
export async function projectEnvironments (db: Database, project: string) {
  const list = await environmentsOfProject(db, project)
  // An environment is never enabled in a project that does not exist: only then ask.
  if (!list.some((e) => e.visible) && !(await findProject(db, project))) throw notFound(`Project ${project} does not exist`)
  return list
}

export function createEnvironment (writer: Writer, body: Static<typeof NewEnvironment>, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const created = await insertEnvironment(trx, body)
    record({ type: 'environment-created', createdBy, environment: created.name, data: toJsonText(body) })
    return created
  })
}

/**
 * Gives the named environments their sortOrder, all or none: 404 naming the first that does
 * not exist (Unleash ignores it). Each environment whose order changes records
 * environment-updated with data and preData; the same orders again change nothing.
 */
export function setSortOrders (writer: Writer, orders: Record<string, number>, createdBy: Author) {
  const names = Object.keys(orders)
  return withChange(writer, async ({ trx, record }) => {
    const locked = new Map((await lockEnvironments(trx, names)).map((e) => [e.name, e]))
    const absent = names.find((name) => !locked.has(name))
    if (absent !== undefined) throw missing(absent)
    for (const name of [...names].sort()) {
      const before = locked.get(name)!
      if (before.sortOrder === orders[name]) continue
      await updateEnvironment(trx, name, { sortOrder: orders[name]! })
      record({ type: 'environment-updated', createdBy, environment: name, data: eventData({ ...before, sortOrder: orders[name]! }), preData: eventData(before) })
    }
  })
}

/**
 * Enables or disables (deprecates) an environment, recording environment-updated (Unleash
 * records nothing); one already so changes nothing. A disabled environment is still served
 * to SDKs and still writable: only clients stop offering it.
 */
export function setEnvironmentEnabled (writer: Writer, name: string, enabled: boolean, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const [before] = await lockEnvironments(trx, [name])
    if (!before) throw missing(name)
    if (before.enabled === enabled) return
    await updateEnvironment(trx, name, { enabled })
    record({ type: 'environment-updated', createdBy, environment: name, data: eventData({ ...before, enabled }), preData: eventData(before) })
  })
}
