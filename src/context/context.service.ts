import { ALL, type TokenScope } from '../access/scope.js'
import type { Database, Queryable } from '../db/types.js'
import { requirePresent } from '../features/features.store.js'
import { ApiError, invalidField, nameExists, notFound } from '../errors.js'
import { type Change, readerOf, type Writer, withChange } from '../events/events.service.js'
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

/** Whether a route may change the field: a project's route (`project`) only that project's fields, as Unleash; the root routes any. */
const ownedBy = (field: ContextField, project: string | undefined) => project === undefined || field.project === project

/** Where an event about the field is filed: its project, for a project field. */
const filedUnder = (f: ContextField) => (f.project === undefined ? {} : { project: f.project })

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
  toJsonText({ name: f.name, description: f.description, stickiness: f.stickiness, sortOrder: f.sortOrder, legalValues: f.legalValues, ...filedUnder(f) })

const includes = (include: string | undefined, what: 'root' | 'project') => include?.toLowerCase() === what

/** The root fields; with include=project, the project fields of the projects the token may see too. */
export const contextFields = (db: Database, include: string | undefined, token: TokenScope) =>
  listContextFields(db, { root: true, projects: !includes(include, 'project') ? [] : token.projects.includes(ALL) ? undefined : token.projects })

/** The fields of a project; with include=root, the root fields too. 404 for a project that does not exist. */
export async function projectContextFields (db: Database, project: string, include: string | undefined) {
  await requirePresent(db, { project })
  return listContextFields(db, { root: includes(include, 'root'), projects: [project] })
}

/** A field of the project, or a root field; another project's field is a 404 here. */
export async function projectContextField (db: Database, project: string, name: string) {
  const found = await findContextField(db, name)
  if (!found || (found.project !== undefined && found.project !== project)) {
    await requirePresent(db, { project })
    throw notFound('Could not find context field')
  }
  return found
}

export async function contextField (db: Database, name: string) {
  const found = await findContextField(db, name)
  if (!found) throw notFound('Could not find context field')
  return found
}

/**
 * A new context field (context-field-created, filed under its project for a project field);
 * 409 when the name is taken by a root or a project field; 404 for a project that does not
 * exist.
 */
export async function createContextField (target: Writer, body: NewContextField, createdBy: Author) {
  checkLegalValues(body.legalValues ?? [], '/body')
  const fields: ContextFieldFields = {
    name: body.name,
    description: body.description ?? null,
    stickiness: body.stickiness ?? false,
    sortOrder: body.sortOrder ?? 0,
    legalValues: (body.legalValues ?? []).map(canonicalLegalValue),
    project: body.project ?? null,
  }
  // Projects are never removed: checked once, it stays there.
  if (body.project !== undefined) await requirePresent(readerOf(target), { project: body.project })
  return withChange(target, async ({ trx, record }) => {
    const created = await insertContextField(trx, fields)
    record({ type: 'context-field-created', createdBy, data: eventData(created), ...filedUnder(created) })
    return created
  })
}

/** A new field of the project (the path's; a body naming another is a 400). */
export function createProjectContextField (db: Database, project: string, body: NewContextField, createdBy: Author) {
  if (body.project !== undefined && body.project !== project) throw invalidField('/body/project', `must be ${project}, the project in the path`)
  return createContextField(db, { ...body, project }, createdBy)
}

/**
 * Replaces a context field's stickiness and legal values (context-field-updated with data and
 * preData), as Unleash: left out, they become false and none; a description or sortOrder left
 * out keeps its value. The same values again change nothing.
 */
export function changeContextField (db: Database, name: string, body: ContextFieldUpdate, createdBy: Author, project?: string) {
  if (body.name !== undefined && body.name !== name) throw invalidField('/body/name', `must be ${name}, the name in the path: a context field cannot be renamed`)
  checkLegalValues(body.legalValues ?? [], '/body')
  return writeField(db, name, createdBy, project, (current) => {
    if (body.project !== undefined && body.project !== current.project) {
      throw invalidField('/body/project', current.project === undefined ? 'must be left out: the field is a root field' : `must be ${current.project}, the field's project: a field cannot move`)
    }
    return {
      name,
      description: body.description === undefined ? current.description : body.description,
      stickiness: body.stickiness ?? false,
      sortOrder: body.sortOrder ?? current.sortOrder,
      legalValues: (body.legalValues ?? []).map(canonicalLegalValue),
    }
  })
}

/** Adds a legal value, or changes its description when it is there (context-field-updated). */
export function putLegalValue (db: Database, name: string, legalValue: LegalValue, createdBy: Author, project?: string) {
  const value = canonicalLegalValue(legalValue)
  return writeField(db, name, createdBy, project, (current) => {
    const at = current.legalValues.findIndex((v) => v.value === value.value)
    const legalValues = at === -1 ? [...current.legalValues, value] : current.legalValues.map((v, i) => (i === at ? value : v))
    return { ...current, legalValues }
  })
}

/** Removes a legal value (context-field-updated); one that is not there changes nothing. */
export function removeLegalValue (db: Database, name: string, legalValue: string, createdBy: Author, project?: string) {
  return writeField(db, name, createdBy, project, (current) => ({ ...current, legalValues: current.legalValues.filter((v) => v.value !== legalValue) }))
}

/**
 * Locks the field, computes its next form, and writes it with its event when it differs; a
 * project's route (`project`) may only change that project's fields.
 */
function writeField (target: Writer, name: string, createdBy: Author, project: string | undefined, next: (current: ContextField) => ContextFieldFields) {
  return withChange(target, async ({ trx, record }) => {
    const current = await lockContextField(trx, name)
    if (!current || !ownedBy(current, project)) throw project === undefined ? missing(name) : await missingInProject(trx, name, project)
    const updated = await updateContextField(trx, next(current))
    if (eventData(updated) !== eventData(current)) {
      record({ type: 'context-field-updated', createdBy, data: eventData(updated), preData: eventData(current), ...filedUnder(current) })
    }
  })
}

/** The 404 of a project's route: the project first, then the field. */
async function missingInProject (db: Queryable, name: string, project: string) {
  await requirePresent(db, { project })
  return notFound(`Could not find context field ${name} in project ${project}`)
}

/** Sets the legal values of a field (an import adding the values it needs): the field's other members stay. */
export function setLegalValues (change: Change, name: string, legalValues: LegalValue[], createdBy: Author) {
  return writeField(change, name, createdBy, undefined, (current) => ({ ...current, legalValues: legalValues.map(canonicalLegalValue) }))
}

/**
 * Deletes a context field no strategy reads (context-field-deleted); 409 when strategies (of
 * archived features too) still have constraints on it, as Unleash.
 */
export function removeContextField (db: Database, name: string, createdBy: Author, project?: string) {
  return withChange(db, async ({ trx, record }) => {
    const current = await lockContextField(trx, name)
    if (!current || !ownedBy(current, project)) throw project === undefined ? missing(name) : await missingInProject(trx, name, project)
    if ((await strategiesReading(trx, name)).length > 0) {
      throw new ApiError('InUseError', 'This context field is in use by existing flags. To delete it, first remove its usage from all flags.')
    }
    await deleteContextField(trx, name)
    record({ type: 'context-field-deleted', createdBy, preData: eventData(current), ...filedUnder(current) })
  })
}

/** 409 when a context field of that name exists (root or project field); a project's route checks its project first. */
export async function checkContextFieldName (db: Database, name: string, project?: string) {
  if (project !== undefined) await requirePresent(db, { project })
  if (await findContextField(db, name)) throw nameExists('A context field with that name already exist')
}

/** The strategies whose constraints read the field, of the token's projects. */
export async function strategiesUsingField (db: Database, name: string, token: TokenScope) {
  const uses = await strategiesReading(db, name)
  return token.projects.includes(ALL) ? uses : uses.filter((u) => token.projects.includes(u.projectId))
}

/** As strategiesUsingField, on a project's route: 404 for a project that does not exist. */
export async function projectStrategiesUsingField (db: Database, project: string, name: string, token: TokenScope) {
  await requirePresent(db, { project })
  return strategiesUsingField(db, name, token)
}
