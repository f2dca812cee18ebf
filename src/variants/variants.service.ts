import type { Transaction } from 'kysely'
import type { DB } from '../db/types.js'
import { ApiError } from '../errors.js'
import { recordEvent } from '../events/events.store.js'
import { sameVariants, type Variant, validateVariants } from './variants.js'
import {
  type FeatureEnvironmentRef,
  readFeatureEnvironment,
  writeVariants,
} from './variants.store.js'

export interface ChangeOptions {
  /** The If-Match header, if sent. */
  ifMatch: string | undefined
  dryRun: boolean
  maxVariants: number
  createdBy: string
  /** Where validation errors point: `/variants` for a patch result, `/body` for PUT. */
  errorPathPrefix: string
}

export interface ChangeResult {
  variants: Variant[]
  /** The stored revision after the change; undefined on a dry run. */
  revision: number | undefined
}

export const etagOf = (revision: number) => `"${revision}"`

/** RFC 9110 If-Match: `*` or a list of strong entity tags; weak tags never match. */
export function ifMatchSatisfied (header: string, revision: number): boolean {
  const current = etagOf(revision)
  return header.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t === current
  })
}

/**
 * The write path shared by PATCH and PUT, inside the caller's transaction: lock the row,
 * check If-Match, compute and validate the new variants, then write them and record the
 * event, unless nothing changed or it is a dry run.
 */
export async function changeVariants (
  trx: Transaction<DB>,
  ref: FeatureEnvironmentRef,
  compute: (current: Variant[]) => unknown,
  options: ChangeOptions
): Promise<ChangeResult> {
  const current = await readFeatureEnvironment(trx, ref, true)
  if (options.ifMatch !== undefined && !ifMatchSatisfied(options.ifMatch, current.revision)) {
    throw new ApiError(
      'PreconditionFailedError',
      `If-Match ${options.ifMatch} does not match the current ETag ${etagOf(current.revision)}`
    )
  }
  const next = validateVariants(
    compute(current.variants),
    options.maxVariants,
    options.errorPathPrefix
  )
  if (options.dryRun) return { variants: next, revision: undefined }
  if (sameVariants(next, current.variants)) return current
  const revision = await writeVariants(trx, ref, next)
  await recordEvent(trx, {
    type: 'feature-environment-variants-updated',
    createdBy: options.createdBy,
    project: ref.project,
    featureName: ref.feature,
    environment: ref.environment,
    data: { variants: next },
    preData: { variants: current.variants },
  })
  return { variants: next, revision }
}
