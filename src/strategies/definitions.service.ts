import type { Static } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { ApiError, badData, invalidField, notFound } from '../errors.js'
import { withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import {
  type DefinitionFields,
  definitionUses,
  deleteDefinition,
  findDefinition,
  insertDefinition,
  listDefinitions,
  lockDefinition,
  lockDefinitionForDelete,
  setDeprecated,
  updateDefinition,
} from './definitions.store.js'
import type { NewStrategyDefinition, UpdateStrategyDefinition } from './strategies.schemas.js'

const missing = (name: string) => notFound(`No strategy definition named ${name}`)

export const definitions = (db: Database) => listDefinitions(db)

export async function definition (db: Database, name: string) {
  const found = await findDefinition(db, name)
  if (!found) throw missing(name)
  return found
}

/** Parameter names are unique within a definition. */
function fields (name: string, body: Static<typeof NewStrategyDefinition> | Static<typeof UpdateStrategyDefinition>): DefinitionFields {
  const seen = new Set<string>()
  body.parameters.forEach((p, i) => {
    if (seen.has(p.name)) throw invalidField(`/body/parameters/${i}/name`, `"${p.name}" is declared twice`)
    seen.add(p.name)
  })
  return { name, title: body.title ?? null, description: body.description ?? null, parameters: body.parameters }
}

/** A custom strategy definition (strategy-created); 409 when the name is taken. */
export function createDefinition (writer: Writer, body: Static<typeof NewStrategyDefinition>, createdBy: Author) {
  const wanted = fields(body.name, body)
  return withChange(writer, async ({ trx, record }) => {
    const created = await insertDefinition(trx, wanted)
    record({ type: 'strategy-created', createdBy, data: toJsonText(created) })
    return created
  })
}

/**
 * Replaces a custom definition's title, description and parameters (strategy-updated); the
 * built-in ones cannot be edited. Strategies already using it are not changed: their next
 * write is checked against the new parameters.
 */
export function changeDefinition (writer: Writer, name: string, body: Static<typeof UpdateStrategyDefinition>, createdBy: Author) {
  if (body.name !== undefined && body.name !== name) throw invalidField('/body/name', `must be ${name}, the name in the path, if given`)
  const wanted = fields(name, body)
  return withChange(writer, async ({ trx, record }) => {
    const current = await lockDefinition(trx, name)
    if (!current) throw missing(name)
    if (!current.editable) throw badData(`Strategy ${name} is built in and cannot be edited (deprecate it instead)`)
    const updated = await updateDefinition(trx, wanted)
    if (JSON.stringify(updated) === JSON.stringify(current)) return
    record({ type: 'strategy-updated', createdBy, data: toJsonText(updated), preData: toJsonText(current) })
  })
}

/** Deprecates or reactivates a definition (built-in ones too); no change, no event. */
export function setDefinitionDeprecated (writer: Writer, name: string, deprecated: boolean, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const current = await lockDefinition(trx, name)
    if (!current) throw missing(name)
    if (current.deprecated === deprecated) return
    await setDeprecated(trx, name, deprecated)
    record({ type: deprecated ? 'strategy-deprecated' : 'strategy-reactivated', createdBy, data: toJsonText({ name }) })
  })
}

/**
 * Deletes a custom definition (strategy-deleted with its name, as Unleash). Built-in ones cannot
 * be deleted (400; Unleash answers 500). Unlike Unleash, a definition some strategy uses (of a
 * feature archived or not) is not deleted: 409 naming them, since SDKs would otherwise be
 * served strategies that nothing defines.
 */
export function removeDefinition (writer: Writer, name: string, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const current = await lockDefinitionForDelete(trx, name)
    if (!current) throw missing(name)
    if (!current.editable) throw badData(`Strategy ${name} is built in and cannot be deleted (deprecate it instead)`)
    const { total, uses } = await definitionUses(trx, name, 10)
    if (total > 0) {
      const where = uses.map((u) => `${u.feature} in ${u.environment}`).join(', ')
      throw new ApiError('InUseError', `Strategy ${name} is used by ${total} strategies (${where}${total > uses.length ? ', …' : ''}); remove it from them first`)
    }
    await deleteDefinition(trx, name)
    record({ type: 'strategy-deleted', createdBy, data: toJsonText({ name }), preData: toJsonText(current) })
  })
}
