import type { Database } from '../db/types.js'
import { toJsonText } from '../events/events.store.js'
import {
  type Completion,
  deleteCompletion,
  type FeatureRef,
  lockFeature,
  readCompletion,
  writeCompletion,
} from './lifecycle.store.js'

const eventData = (c: Completion) =>
  toJsonText({ status: c.status, statusValue: c.statusValue, kept: c.status === 'kept' })

/**
 * Marks the feature completed with these values. The owner of the transaction: the feature's
 * row lock is held from reading the current completion to the commit, so concurrent
 * completions serialise and each event's preData is what the one before it wrote. The same
 * values again change nothing and record nothing; different values replace the old ones,
 * which the event carries as preData.
 */
export function completeFeature (db: Database, ref: FeatureRef, completion: Completion, createdBy: string) {
  return db.transaction().execute(async (trx) => {
    await lockFeature(trx, ref)
    const previous = await readCompletion(trx, ref.feature)
    if (previous?.status === completion.status && previous.statusValue === completion.statusValue) return
    await writeCompletion(trx, ref.feature, completion, {
      type: 'feature-completed',
      createdBy,
      project: ref.project,
      featureName: ref.feature,
      data: eventData(completion),
      ...(previous && { preData: eventData(previous) }),
    })
  })
}

/**
 * Leaves the completed stage, under the same lock; a feature that is not completed is left
 * as it is, with no event.
 */
export function uncompleteFeature (db: Database, ref: FeatureRef, createdBy: string) {
  return db.transaction().execute(async (trx) => {
    await lockFeature(trx, ref)
    const previous = await readCompletion(trx, ref.feature)
    if (!previous) return
    await deleteCompletion(trx, ref.feature, {
      type: 'feature-uncompleted',
      createdBy,
      project: ref.project,
      featureName: ref.feature,
      preData: eventData(previous),
    })
  })
}
