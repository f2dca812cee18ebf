import type { Database } from '../db/types.js'
import { ApiError } from '../errors.js'
import { jsonMember, type NewEvent } from '../events/events.store.js'
import type { ValidVariants } from './variants.js'
import {
  type FeatureEnvironmentRef,
  lockVariants,
  readVariants,
  type StoredVariants,
  writeVariants,
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
 * A dry run reads without a lock and writes nothing. A change runs in one transaction: lock
 * the feature-environment row, apply the rule to what is stored, and store the result with
 * its event in one statement. The row lock makes concurrent writers (on one instance or
 * several) queue instead of losing updates, and If-Match is checked against the locked
 * revision. A result equal to the stored variants writes nothing and records no event.
 *
 * Why not optimistic (read, then write guarded by the revision, lock only on a miss): it
 * saves two round trips when writes are spread over many rows, but on a busy row most
 * guarded writes miss and the work is done twice; measured with `npm run bench`, the locked
 * transaction was faster on one hot row (0.74 vs 0.49 of the floor at 2 variants) and equal
 * on writes spread over 50 features.
 */
export async function changeVariants (
  db: Database,
  ref: FeatureEnvironmentRef,
  rule: VariantsRule,
  request: ChangeRequest
): Promise<ChangeResult> {
  if (request.dryRun) return plan(ref, await readVariants(db, ref), rule, request).result
  return db.transaction().execute(async (trx) => {
    const locked = await lockVariants(trx, ref)
    const change = plan(ref, locked, rule, request)
    if (change.write) await writeVariants(trx, ref, change.result.json, change.write)
    return change.result
  })
}

/**
 * PUT variants-batch: the same variants in several environments of one feature, in one
 * transaction. The rows are locked in name order, so that two batches over the same
 * environments cannot deadlock; when one cannot be found, the 404 names the first missing
 * environment in the order sent. Each environment gets its own revision and event; one whose
 * variants are already these is left alone. Nothing is written if anything is refused.
 */
export async function changeVariantsInEnvironments (
  db: Database,
  feature: Omit<FeatureEnvironmentRef, 'environment'>,
  environments: readonly string[],
  rule: VariantsRule,
  createdBy: string
): Promise<string> {
  const refs = environments.map((environment) => ({ ...feature, environment }))
  const request = { ifMatch: undefined, dryRun: false, createdBy }
  return db.transaction().execute(async (trx) => {
    let json = '[]'
    for (const ref of [...refs].sort((a, b) => (a.environment < b.environment ? -1 : 1))) {
      const locked = await lockVariants(trx, ref).catch(async (error: unknown) => {
        // Only on refusal: explain the first environment, in the order sent, that is missing.
        for (const sent of refs) await readVariants(trx, sent)
        throw error
      })
      const change = plan(ref, locked, rule, request)
      if (change.write) await writeVariants(trx, ref, change.result.json, change.write)
      json = change.result.json
    }
    return json
  })
}
