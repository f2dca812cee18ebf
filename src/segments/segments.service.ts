import { ALL, type TokenScope } from '../access/scope.js'
import { lockFeaturesByName } from '../features/features.store.js'
import type { Database } from '../db/types.js'
import { ApiError, invalidField, nameExists, notFound, RuleError } from '../errors.js'
import { withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { canonicalConstraint, constraintProblems } from '../constraints/constraint-rules.js'
import type { ConstraintLimits } from '../constraints/constraints.schemas.js'
import type { Segment, UpsertSegment } from './segments.schemas.js'
import {
  deleteSegment,
  findSegment,
  insertSegment,
  listSegments,
  lockSegment,
  type SegmentFields,
  segmentNameTaken,
  segmentUses,
  updateSegment,
} from './segments.store.js'

export interface SegmentRules {
  limits: ConstraintLimits
  /** Most constraint values in one segment, all constraints together. */
  maxValues: number
}

const missing = (id: number) => notFound(`No segment exists with id ${id}`)

/** A segment of a project is seen by tokens of that project; one of no project by every token. */
function visible (segment: Segment, token: TokenScope) {
  return segment.project === null || token.projects.includes(ALL) || token.projects.includes(segment.project)
}

/** The stored form of a segment, every rule of its constraints checked (as a strategy's). */
export function segmentFields (body: UpsertSegment, rules: SegmentRules): SegmentFields {
  const total = body.constraints.reduce((sum, c) => sum + (c.values?.length ?? 0), 0)
  if (total > rules.maxValues) {
    throw invalidField('/body/constraints', `hold ${total} values in all; a segment may have at most ${rules.maxValues} (MAX_SEGMENT_VALUES)`)
  }
  const [first, ...rest] = constraintProblems(body.constraints, rules.limits)
  if (first) throw new RuleError('segment', [first, ...rest])
  return {
    name: body.name,
    description: body.description ?? null,
    project: body.project ?? null,
    constraints: body.constraints.map(canonicalConstraint),
  }
}

export async function segments (db: Database, token: TokenScope) {
  return listSegments(db, token.projects.includes(ALL) ? undefined : token.projects)
}

export async function segment (db: Database, id: number, token: TokenScope) {
  const found = await findSegment(db, id)
  if (!found || !visible(found, token)) throw missing(id)
  return found
}

/** A new segment (segment-created). */
export function createSegment (writer: Writer, body: UpsertSegment, rules: SegmentRules, createdBy: Author) {
  const fields = segmentFields(body, rules)
  return withChange(writer, async ({ trx, record }) => {
    const created = await insertSegment(trx, fields, createdBy.name)
    record({ type: 'segment-created', createdBy, project: created.project ?? undefined, data: toJsonText(created) })
    return created
  })
}

/**
 * Replaces a segment (segment-updated with data and preData; the same segment again changes
 * nothing). Its project cannot become one that excludes strategies already using it.
 */
export function changeSegment (writer: Writer, id: number, body: UpsertSegment & { id?: number }, rules: SegmentRules, createdBy: Author) {
  if (body.id !== undefined && body.id !== id) throw invalidField('/body/id', `must be ${id}, the id in the path: a segment's id cannot change`)
  const fields = segmentFields(body, rules)
  return withChange(writer, async ({ trx, record }) => {
    const current = await lockSegment(trx, id)
    if (!current) throw missing(id)
    if (fields.project !== null && fields.project !== current.project) {
      const elsewhere = [...new Set((await segmentUses(trx, id)).filter((u) => u.projectId !== fields.project).map((u) => u.projectId))]
      if (elsewhere.length > 0) {
        throw invalidField('/body/project', `cannot be ${fields.project}: the segment is used by strategies in ${elsewhere.join(', ')}`)
      }
    }
    const updated = await updateSegment(trx, id, fields)
    if (JSON.stringify(updated) === JSON.stringify(current)) return
    record({ type: 'segment-updated', createdBy, project: updated.project ?? undefined, data: toJsonText(updated), preData: toJsonText(current) })
  })
}

/**
 * Deletes a segment that no strategy of a feature that is not archived uses (segment-deleted);
 * strategies of archived features lose it, as in Unleash (a revived feature's strategy then no
 * longer has it). The features using it are locked first, so that none is revived meanwhile.
 */
export function removeSegment (writer: Writer, id: number, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const current = await lockSegment(trx, id)
    if (!current) throw missing(id)
    const users = [...new Set((await segmentUses(trx, id)).map((u) => u.featureName))]
    if (users.length > 0) await lockFeaturesByName(trx, users)
    const uses = (await segmentUses(trx, id)).filter((u) => !u.archived)
    if (uses.length > 0) {
      const where = uses.slice(0, 10).map((u) => `${u.featureName} in ${u.environment}`).join(', ')
      throw new ApiError('InUseError', `Segment ${id} is used by ${uses.length} strategies (${where}${uses.length > 10 ? ', …' : ''}); remove it from them first`)
    }
    await deleteSegment(trx, id)
    record({ type: 'segment-deleted', createdBy, project: current.project ?? undefined, preData: toJsonText(current) })
  })
}

/** 409 when the name is taken. */
export async function checkSegmentName (db: Database, name: string) {
  if (await segmentNameTaken(db, name)) throw nameExists(`A segment named ${name} already exists`)
}

export async function strategiesUsing (db: Database, id: number, token: TokenScope) {
  await segment(db, id, token)
  const uses = (await segmentUses(db, id)).map(({ archived, ...use }) => use)
  return token.projects.includes(ALL) ? uses : uses.filter((u) => token.projects.includes(u.projectId))
}
