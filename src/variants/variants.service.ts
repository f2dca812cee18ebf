import { type ScriptedTransaction, scriptedTransaction } from '../db/scripted-transaction.js'
import type { Database } from '../db/types.js'
import { ApiError } from '../errors.js'
import { sameVariants, type Variant, validateVariants } from './variants.js'
import { type FeatureEnvironmentRef, lockFeatureEnvironment, writeVariants } from './variants.store.js'

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
 * The write path shared by PATCH and PUT, as one transaction: lock the row, check If-Match,
 * compute and validate the new variants, then write them and record the event, unless
 * nothing changed or it is a dry run.
 */
export function changeVariants (
  db: Database,
  ref: FeatureEnvironmentRef,
  compute: (current: Variant[]) => unknown,
  options: ChangeOptions
): Promise<ChangeResult> {
  return scriptedTransaction(db, (tx) => applyChange(tx, ref, compute, options))
}

async function applyChange (
  tx: ScriptedTransaction,
  ref: FeatureEnvironmentRef,
  compute: (current: Variant[]) => unknown,
  options: ChangeOptions
): Promise<ChangeResult> {
  const current = await lockFeatureEnvironment(tx, ref)
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
  await writeVariants(tx, ref, next, {
    type: 'feature-environment-variants-updated',
    createdBy: options.createdBy,
    project: ref.project,
    featureName: ref.feature,
    environment: ref.environment,
    data: { variants: next },
    preData: { variants: current.variants },
  })
  return { variants: next, revision: current.revision + 1 }
}
