import type { Static } from '@sinclair/typebox'
import { withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { deleteApplication, lockApplication, saveApplication } from './applications.store.js'
import type { NewApplication } from './metrics.schemas.js'

/**
 * Says what an application is (description, url, color, icon, strategies), creating it when
 * neither SDKs nor people named it before: application-created (as Unleash), or
 * application-updated with what it was; the same again changes nothing. Members left out keep
 * their value, as in Unleash.
 */
export function describeApplication (writer: Writer, appName: string, body: Static<typeof NewApplication>, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const before = await lockApplication(trx, appName)
    const described = {
      description: body.description ?? before?.description ?? null,
      url: body.url ?? before?.url ?? null,
      color: body.color ?? before?.color ?? null,
      icon: body.icon ?? before?.icon ?? null,
      strategies: body.strategies ? JSON.stringify(body.strategies) : before?.strategies ?? '[]',
    }
    const data = (d: typeof described) => toJsonText({ appName, description: d.description, url: d.url, color: d.color, icon: d.icon, strategies: JSON.parse(d.strategies) })
    if (before && data(before) === data(described)) return
    await saveApplication(trx, appName, described, createdBy.name)
    record(before
      ? { type: 'application-updated', createdBy, data: data(described), preData: data(before) }
      : { type: 'application-created', createdBy, data: data(described) })
  })
}

/**
 * Forgets an application: what people said of it and what its SDKs reported (registrations,
 * instances, counts and unknown flags), recording application-deleted; an application nobody
 * knows is left alone (200, no event), as Unleash answers.
 */
export function forgetApplication (writer: Writer, appName: string, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const deleted = await deleteApplication(trx, appName)
    if (deleted.described + deleted.reported > 0) record({ type: 'application-deleted', createdBy, data: toJsonText({ appName }) })
  })
}
