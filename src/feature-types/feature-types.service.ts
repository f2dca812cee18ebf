import type { Database } from '../db/types.js'
import { notFound } from '../errors.js'
import { withChange } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { FEATURE_TYPES } from '../vocabulary/flag-types.js'
import { listFeatureTypes, lockFeatureType, setLifetime } from './feature-types.store.js'

/** The feature types in Unleash's order (release, experiment, operational, kill-switch, permission, sunset). */
export async function featureTypes (db: Database) {
  const order = (id: string) => (FEATURE_TYPES as readonly string[]).indexOf(id)
  return (await listFeatureTypes(db)).sort((a, b) => order(a.id) - order(b.id))
}

/**
 * Sets how many days a feature of this type lives before it is potentially stale; 0 or null:
 * never (stored as null, as Unleash). Records feature-type-updated; the same lifetime again
 * changes nothing.
 */
export function changeLifetime (db: Database, id: string, lifetimeDays: number | null, createdBy: Author) {
  const lifetime = lifetimeDays === 0 ? null : lifetimeDays
  return withChange(db, async ({ trx, record }) => {
    const current = await lockFeatureType(trx, id.toLowerCase())
    if (!current) throw notFound(`The feature type you tried to update ("${id}") does not exist.`)
    const updated = { ...current, lifetimeDays: lifetime }
    if (current.lifetimeDays !== lifetime) {
      await setLifetime(trx, current.id, lifetime)
      record({ type: 'feature-type-updated', createdBy, data: toJsonText(updated), preData: toJsonText(current) })
    }
    return updated
  })
}
