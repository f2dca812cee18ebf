/**
 * Feature types through Unleash's admin API paths: the list with lifetimes, a lifetime changed
 * with its event, and a feature's type checked against the list.
 */
import { describe, expect, it } from 'vitest'
import { createToken, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp()

const { send } = requests(t)

const eventsSince = async (id: number | string) =>
  t.database.db.selectFrom('events').select(['type', 'data', 'pre_data', 'feature_name', 'project']).where('id', '>', id).orderBy('id').execute()
const lastEventId = async () => (await t.database.db.selectFrom('events').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst())?.id ?? 0

/** A refused request changes nothing anywhere. */
async function expectRefusal (request: () => ReturnType<typeof send>, status: number, name: string) {
  const before = await databaseFingerprint(t.database.db)
  const body = expectProblem(await request(), status, name)
  expect(await databaseFingerprint(t.database.db)).toEqual(before)
  return body
}

describe('feature types', () => {
  it("lists Unleash's types with their lifetimes; a lifetime can change; a feature's type must be one of them", async () => {
    const res = json(await send('GET', '/api/admin/feature-types'))
    expect(res.version).toBe(1)
    expect(res.types.map((ft: any) => [ft.id, ft.lifetimeDays])).toEqual([
      ['release', 40],
      ['experiment', 40],
      ['operational', 7],
      ['kill-switch', null],
      ['permission', null],
      ['sunset', 90],
    ])
    const start = await lastEventId()
    const changed = await send('PUT', '/api/admin/feature-types/Operational/lifetime', { lifetimeDays: 14 })
    expect(changed.statusCode).toBe(200)
    expect(json(changed)).toEqual({ id: 'operational', name: 'Operational', description: expect.any(String), lifetimeDays: 14 })
    expect(json(await send('PUT', '/api/admin/feature-types/operational/lifetime', { lifetimeDays: 0 })).lifetimeDays).toBeNull()
    expect(json(await send('PUT', '/api/admin/feature-types/operational/lifetime', { lifetimeDays: null })).lifetimeDays).toBeNull()
    expect((await eventsSince(start)).map((e) => e.type)).toEqual(['feature-type-updated', 'feature-type-updated'])
    await expectRefusal(() => send('PUT', '/api/admin/feature-types/ghost/lifetime', { lifetimeDays: 3 }), 404, 'NotFoundError')
    await expectRefusal(() => send('PUT', '/api/admin/feature-types/release/lifetime', { lifetimeDays: -1 }), 400, 'BadDataError')
    const scoped = await createToken(t.app, { projects: ['default'] })
    await expectRefusal(() => send('PUT', '/api/admin/feature-types/release/lifetime', { lifetimeDays: 3 }, scoped), 403, 'PermissionError')

    const sunset = await send('POST', '/api/admin/projects/default/features', { name: uniqueName('old'), type: 'sunset' })
    expect(json(sunset).type).toBe('sunset')
    await expectRefusal(() => send('POST', '/api/admin/projects/default/features', { name: uniqueName('bad'), type: 'nonsense' }), 400, 'BadDataError')
  })
})
