import type { Transaction } from 'kysely'
import type { DB } from '../db/types.js'
import { recordEvent } from '../events/events.store.js'
import {
  type Completion,
  deleteCompletion,
  type FeatureRef,
  lockFeature,
  readCompletion,
  writeCompletion,
} from './lifecycle.store.js'

const eventData = (c: Completion) => ({
  status: c.status,
  statusValue: c.statusValue,
  kept: c.status === 'kept',
})

/**
 * Marks the feature completed with these values, under the feature's row lock. The same
 * values again change nothing and record nothing; different values replace the old ones,
 * which the event carries as preData.
 */
export async function completeFeature (
  trx: Transaction<DB>,
  ref: FeatureRef,
  completion: Completion,
  createdBy: string
): Promise<void> {
  await lockFeature(trx, ref)
  const previous = await readCompletion(trx, ref.feature)
  if (previous?.status === completion.status && previous.statusValue === completion.statusValue) {
    return
  }
  await writeCompletion(trx, ref.feature, completion)
  await recordEvent(trx, {
    type: 'feature-completed',
    createdBy,
    project: ref.project,
    featureName: ref.feature,
    data: eventData(completion),
    ...(previous && { preData: eventData(previous) }),
  })
}

/** Leaves the completed stage; a feature that is not completed is left as it is, with no event. */
export async function uncompleteFeature (
  trx: Transaction<DB>,
  ref: FeatureRef,
  createdBy: string
): Promise<void> {
  await lockFeature(trx, ref)
  const previous = await readCompletion(trx, ref.feature)
  if (!previous || !(await deleteCompletion(trx, ref.feature))) return
  await recordEvent(trx, {
    type: 'feature-uncompleted',
    createdBy,
    project: ref.project,
    featureName: ref.feature,
    preData: eventData(previous),
  })
}
