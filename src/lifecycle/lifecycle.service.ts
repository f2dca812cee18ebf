import { scriptedTransaction } from '../db/scripted-transaction.js'
import type { Database } from '../db/types.js'
import {
  type Completion,
  deleteCompletion,
  type FeatureRef,
  lockFeature,
  writeCompletion,
} from './lifecycle.store.js'

const eventData = (c: Completion) => ({
  status: c.status,
  statusValue: c.statusValue,
  kept: c.status === 'kept',
})

/**
 * Marks the feature completed with these values, in one transaction under the feature's
 * row lock. The same values again change nothing and record nothing; different values
 * replace the old ones, which the event carries as preData.
 */
export function completeFeature (
  db: Database,
  ref: FeatureRef,
  completion: Completion,
  createdBy: string
): Promise<void> {
  return scriptedTransaction(db, async (tx) => {
    const previous = await lockFeature(tx, ref)
    if (previous?.status === completion.status && previous.statusValue === completion.statusValue) {
      return
    }
    await writeCompletion(tx, ref.feature, completion, {
      type: 'feature-completed',
      createdBy,
      project: ref.project,
      featureName: ref.feature,
      data: eventData(completion),
      ...(previous && { preData: eventData(previous) }),
    })
  })
}

/** Leaves the completed stage; a feature that is not completed is left as it is, with no event. */
export function uncompleteFeature (db: Database, ref: FeatureRef, createdBy: string): Promise<void> {
  return scriptedTransaction(db, async (tx) => {
    const previous = await lockFeature(tx, ref)
    if (!previous) return
    await deleteCompletion(tx, ref.feature, {
      type: 'feature-uncompleted',
      createdBy,
      project: ref.project,
      featureName: ref.feature,
      preData: eventData(previous),
    })
  })
}
