import type { Database } from '../db/types.js'
import { ApiError } from '../errors.js'
import { jsonMember, type NewEvent } from '../events/events.store.js'
import type { ValidVariants } from './variants.js'
import {
  type FeatureEnvironmentRef,
  lockVariants,
  readVariants,
  type StoredVariants,
  writeVariantsAt,
} from './variants.store.js'

export interface ChangeRequest {
  /** The If-Match header, if sent. */
  ifMatch: string | undefined
  dryRun: boolean
  /** Name of the token making the change, recorded on the event. */
  createdBy: string
}

export interface ChangeResult {
  /** The variants after the change (or as they would be, on a dry run), as JSON text. */
  json: string
  /** The stored revision after the change; undefined on a dry run. */
  revision: number | undefined
}

/** What a change does to the variants: PATCH applies operations, PUT replaces them. */
export type VariantsRule = (stored: StoredVariants) => ValidVariants

export const etagOf = (revision: number) => `"${revision}"`

/** RFC 9110 If-Match: `*` or a list of strong entity tags; weak tags never match. */
export function ifMatchSatisfied (header: string, revision: number): boolean {
  const current = etagOf(revision)
  return header.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t === current
  })
}

type Plan = { result: ChangeResult; write?: undefined } | { result: ChangeResult; write: NewEvent }

/** Checks If-Match, applies the rule, and decides whether anything is to be written. */
function plan (
  ref: FeatureEnvironmentRef,
  stored: StoredVariants,
  rule: VariantsRule,
  request: ChangeRequest
): Plan {
  if (request.ifMatch !== undefined && !ifMatchSatisfied(request.ifMatch, stored.revision)) {
    throw new ApiError(
      'PreconditionFailedError',
      `If-Match ${request.ifMatch} does not match the current ETag ${etagOf(stored.revision)}`
    )
  }
  const next = rule(stored)
  if (request.dryRun) return { result: { json: next.json, revision: undefined } }
  if (next.json === stored.json) return { result: stored }
  return {
    result: { json: next.json, revision: stored.revision + 1 },
    write: {
      type: 'feature-environment-variants-updated',
      createdBy: request.createdBy,
      project: ref.project,
      featureName: ref.feature,
      environment: ref.environment,
      data: jsonMember('variants', next.json),
      preData: jsonMember('variants', stored.json),
    },
  }
}

/**
 * The write path of PATCH and PUT, and the owner of its transaction.
 *
 * Optimistic first: read the variants without a lock, apply the rule, then store the result
 * and its event in one statement that only writes if the revision is still the one read.
 * That is two round trips, no lock held while the document is parsed, patched and
 * validated, and a dry run that never locks. When the revision has moved (someone wrote in
 * between), the change is made again inside a transaction holding the row lock, which
 * waits for the other writer and keeps anyone else out until it commits; so concurrent
 * writers, on one instance or several, never lose an update. A result equal to the stored
 * variants writes nothing and records no event.
 */
export async function changeVariants (
  db: Database,
  ref: FeatureEnvironmentRef,
  rule: VariantsRule,
  request: ChangeRequest
): Promise<ChangeResult> {
  if (process.env.EXPERIMENT_LOCKED_ONLY) {
    return db.transaction().execute(async (trx) => {
      const locked = await lockVariants(trx, ref)
      const again = plan(ref, locked, rule, request)
      if (again.write) await writeVariantsAt(trx, ref, locked.revision, again.result.json, again.write)
      return again.result
    })
  }
  const current = await readVariants(db, ref)
  const first = plan(ref, current, rule, request)
  if (!first.write) return first.result
  if (await writeVariantsAt(db, ref, current.revision, first.result.json, first.write)) {
    return first.result
  }
  return db.transaction().execute(async (trx) => {
    const locked = await lockVariants(trx, ref)
    const again = plan(ref, locked, rule, request)
    if (again.write) await writeVariantsAt(trx, ref, locked.revision, again.result.json, again.write)
    return again.result
  })
}
