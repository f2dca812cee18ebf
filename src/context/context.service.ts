import { ALL, type TokenScope } from '../access/scope.js'
import type { Database } from '../db/types.js'
import { ApiError, invalidField, nameExists, notFound } from '../errors.js'
import { type Change, type Writer, withChange } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import type { ContextField, ContextFieldUpdate, LegalValue, NewContextField } from './context.schemas.js'
import {
  type ContextFieldFields,
  deleteContextField,
  findContextField,
  insertContextField,
  listContextFields,
  lockContextField,
  strategiesReading,
  updateContextField,
} from './context.store.js'

const missing = (name: string) => notFound(`Could not find context field with name ${name}`)

/** 400 naming the first legal value listed twice. */
export function checkLegalValues (legalValues: readonly LegalValue[], root: string) {
  const seen = new Set<string>()
  legalValues.forEach((v, i) => {
    if (seen.has(v.value)) throw invalidField(`${root}/legalValues/${i}/value`, `lists ${v.value} a second time; each legal value is listed once`)
    seen.add(v.value)
  })
}

/** A legal value as stored: its description only when it has one. */
const canonicalLegalValue = (v: LegalValue): LegalValue => ({ value: v.value, ...(v.description ? { description: v.description } : {}) })

/** The event's view of a field (what Unleash records): without createdAt. */
const eventData = (f: ContextField) =>
  toJsonText({ name: f.name, description: f.description, stickiness: f.stickiness, sortOrder: f.sortOrder, legalValues: f.legalValues })

export const contextFields = (db: Database) => listContextFields(db)

export async function contextField (db: Database, name: string) {
  const found = await findContextField(db, name)
  if (!found) throw notFound('Could not find context field')
  return found
}

/** A new context field (context-field-created); 409 when the name is taken. */
export function createContextField (target: Writer, body: NewContextField, createdBy: Author) {
  checkLegalValues(body.legalValues ?? [], '/body')
  const fields: ContextFieldFields = {
    name: body.name,
    description: body.description ?? null,
    stickiness: body.stickiness ?? false,
    sortOrder: body.sortOrder ?? 0,
    legalValues: (body.legalValues ?? []).map(canonicalLegalValue),
  }
  return withChange(target, async ({ trx, record }) => {
    const created = await insertContextField(trx, fields)
    record({ type: 'context-field-created', createdBy, data: eventData(created) })
    return created
  })
}

/**
 * Replaces a context field's stickiness and legal values (context-field-updated with data and
 * preData), as Unleash: left out, they become false and none; a description or sortOrder left
 * out keeps its value. The same values again change nothing.
 */
export function changeContextField (db: Database, name: string, body: ContextFieldUpdate, createdBy: Author) {
  if (body.name !== undefined && body.name !== name) throw invalidField('/body/name', `must be ${name}, the name in the path: a context field cannot be renamed`)
  checkLegalValues(body.legalValues ?? [], '/body')
  return writeField(db, name, createdBy, (current) => ({
    name,
    description: body.description === undefined ? current.description : body.description,
    stickiness: body.stickiness ?? false,
    sortOrder: body.sortOrder ?? current.sortOrder,
    legalValues: (body.legalValues ?? []).map(canonicalLegalValue),
  }))
}

/** Adds a legal value, or changes its description when it is there (context-field-updated). */
export function putLegalValue (db: Database, name: string, legalValue: LegalValue, createdBy: Author) {
  const value = canonicalLegalValue(legalValue)
  return writeField(db, name, createdBy, (current) => {
    const at = current.legalValues.findIndex((v) => v.value === value.value)
    const legalValues = at === -1 ? [...current.legalValues, value] : current.legalValues.map((v, i) => (i === at ? value : v))
    return { ...current, legalValues }
  })
}

/** Removes a legal value (context-field-updated); one that is not there changes nothing. */
export function removeLegalValue (db: Database, name: string, legalValue: string, createdBy: Author) {
  return writeField(db, name, createdBy, (current) => ({ ...current, legalValues: current.legalValues.filter((v) => v.value !== legalValue) }))
}

/** Locks the field, computes its next form, and writes it with its event when it differs. */
function writeField (target: Writer, name: string, createdBy: Author, next: (current: ContextField) => ContextFieldFields) {
  return withChange(target, async ({ trx, record }) => {
    const current = await lockContextField(trx, name)
    if (!current) throw missing(name)
    const updated = await updateContextField(trx, next(current))
    if (eventData(updated) !== eventData(current)) {
      record({ type: 'context-field-updated', createdBy, data: eventData(updated), preData: eventData(current) })
    }
  })
}

/** Sets the legal values of a field (an import adding the values it needs): the field's other members stay. */
export function setLegalValues (change: Change, name: string, legalValues: LegalValue[], createdBy: Author) {
  return writeField(change, name, createdBy, (current) => ({ ...current, legalValues: legalValues.map(canonicalLegalValue) }))
}

/**
 * Deletes a context field no strategy reads (context-field-deleted); 409 when strategies (of
 * archived features too) still have constraints on it, as Unleash.
 */
export function removeContextField (db: Database, name: string, createdBy: Author) {
  return withChange(db, async ({ trx, record }) => {
    const current = await lockContextField(trx, name)
    if (!current) throw missing(name)
    if ((await strategiesReading(trx, name)).length > 0) {
      throw new ApiError('InUseError', 'This context field is in use by existing flags. To delete it, first remove its usage from all flags.')
    }
    await deleteContextField(trx, name)
    record({ type: 'context-field-deleted', createdBy, preData: eventData(current) })
  })
}

/** 409 when a context field of that name exists. */
export async function checkContextFieldName (db: Database, name: string) {
  if (await findContextField(db, name)) throw nameExists('A context field with that name already exist')
}

/** The strategies whose constraints read the field, of the token's projects. */
export async function strategiesUsingField (db: Database, name: string, token: TokenScope) {
  const uses = await strategiesReading(db, name)
  return token.projects.includes(ALL) ? uses : uses.filter((u) => token.projects.includes(u.projectId))
}
