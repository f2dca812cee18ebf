/**
 * Bad input to change requests: refused with 400 (413 for a body over the limit), with the
 * sentence the direct write would give, placed at the change; nothing is stored.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { json, uniqueName, useTestApp } from '../../helpers/app.js'
import { listen } from '../../helpers/people.js'
import { databaseFingerprint } from '../../helpers/state.js'
import { addUrl, call, changeRequestKit, crUrl, type Person, refused } from './helpers.js'
import { checkUnleashShapesAfterAll } from './unleash-shapes.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })
checkUnleashShapesAfterAll(t, 2)
const kit = changeRequestKit(t)
const { admin } = kit
let base = ''
let alice: Person
let bob: Person
beforeAll(async () => {
  base = await listen(t)
  alice = await kit.person(base, 'Editor')
  bob = await kit.person(base, 'Editor')
})

describe('refused, nothing stored', () => {
  it('an unknown action, a missing feature or payload, another feature\'s strategy, an empty list, more changes than the cap (10,000), a body over the limit', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const g = await kit.feature(p)
    const theirs = json(await admin.post(`/api/admin/projects/${p}/features/${g}/environments/production/strategies`, { name: 'default' })).id
    const segment = json(await admin.post('/api/admin/segments', { name: uniqueName('seg'), constraints: [] })).id
    const many = Array.from({ length: 10_000 }, () => ({ feature: f, action: 'updateEnabled', payload: { enabled: true } }))
    const cases: [unknown, string, RegExp][] = [
      [{ feature: f, action: 'launchRocket', payload: {} }, '/body/action', /must be one of: updateEnabled/],
      [[{ feature: f, action: 'updateEnabled', payload: { enabled: true } }, { feature: f, action: 'toggle' }], '/body/1/action', /must be one of/],
      [{ action: 'updateEnabled', payload: { enabled: true } }, '/body/feature', /is required: updateEnabled changes a feature/],
      [{ feature: f, action: 'updateEnabled' }, '/body/payload', /is required by updateEnabled/],
      [{ feature: f, action: 'updateEnabled', payload: { enabled: 'yes' } }, '/body/payload/enabled', /must be boolean/],
      [{ feature: f, action: 'deleteStrategy', payload: { id: theirs } }, '/body/payload', /Strategy .* does not exist for feature .* in environment production/],
      [{ feature: f, action: 'updateStrategy', payload: { id: theirs, name: 'default' } }, '/body/payload', /does not exist for feature/],
      [{ feature: 'ghost', action: 'updateEnabled', payload: { enabled: true } }, '/body/feature', /Feature ghost does not exist in project/],
      [{ feature: f, action: 'archiveFeature', payload: { now: true } }, '/body/payload', /is not taken by archiveFeature/],
      [{ feature: f, action: 'updateSegment', payload: { id: segment, name: 'x', constraints: [] } }, '/body/feature', /is not taken by updateSegment/],
      [{ action: 'updateSegment', payload: { id: segment, name: 'x', constraints: [] } }, '/body/payload/id', /belongs to no project/],
      [{ action: 'deleteSegment', payload: { id: 999999 } }, '/body/payload/id', /names no segment: 999999/],
      [[], '/body', /must NOT have fewer than 1 items/],
      [many, '/body', /must NOT have more than 1000 items/],
    ]
    const before = await databaseFingerprint(t.database.db)
    for (const [body, path, message] of cases) {
      const res = refused(await call(alice, 'POST', addUrl(p), body), 400, 'BadDataError')
      expect(res.details[0].path, JSON.stringify(res)).toBe(path)
      expect(res.detail).toMatch(message)
    }
    const huge = { feature: f, action: 'updateEnabled', payload: { enabled: true, note: 'x'.repeat(1_100_000) } }
    refused(await call(alice, 'POST', addUrl(p), huge), 413, 'PayloadTooLargeError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('a payload is refused with the direct write\'s own sentence, at the change\'s payload', async () => {
    const p = await kit.project(1, ['production'])
    const f = await kit.feature(p)
    const parent = await kit.feature(p)
    const direct = (method: string, path: string, body: unknown) => admin.send(method as never, `/api/admin/projects/${p}/features/${f}${path}`, body)
    const pairs: [{ action: string; payload: unknown }, string, string, unknown][] = [
      [{ action: 'addStrategy', payload: { name: 'nope' } }, 'POST', '/environments/development/strategies', { name: 'nope' }],
      [{ action: 'addStrategy', payload: { name: 'flexibleRollout', parameters: { rollout: '150' } } }, 'POST', '/environments/development/strategies', { name: 'flexibleRollout', parameters: { rollout: '150' } }],
      [{ action: 'addStrategy', payload: { name: 'default', constraints: [{ contextName: 'userId', operator: 'LIKE', values: [] }] } }, 'POST', '/environments/development/strategies', { name: 'default', constraints: [{ contextName: 'userId', operator: 'LIKE', values: [] }] }],
      [{ action: 'patchVariant', payload: { variants: [{ name: 'a', weight: 500, weightType: 'fix' }] } }, 'PUT', '/environments/development/variants', [{ name: 'a', weight: 500, weightType: 'fix' }]],
      [{ action: 'patchVariant', payload: { variants: [{ name: 'a b', weight: 0 }] } }, 'PUT', '/environments/development/variants', [{ name: 'a b', weight: 0 }]],
      [{ action: 'addDependency', payload: { feature: f } }, 'POST', '/dependencies', { feature: f }],
    ]
    const before = await databaseFingerprint(t.database.db)
    for (const [change, method, path, body] of pairs) {
      const theirs = json(await direct(method, path, body))
      const ours = refused(await call(alice, 'POST', addUrl(p), { feature: f, ...change }), 400, 'BadDataError')
      expect(theirs.status, JSON.stringify(theirs)).toBe(400)
      const rerooted = (text: string) => text.replaceAll('/body/payload', '/body').replace('/body/variants', '/body')
      expect(rerooted(ours.detail), `${change.action}: ${ours.detail} / ${theirs.detail}`).toBe(theirs.detail)
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    // The good ones go through.
    expect((await call(alice, 'POST', addUrl(p), { feature: f, action: 'addDependency', payload: { feature: parent } })).status).toBe(200)
  })

  it('scheduledAt in the past, or not a date: 400, nothing stored', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const id = (await call(alice, 'POST', addUrl(p), { feature: f, action: 'updateEnabled', payload: { enabled: true } })).body.id
    await call(alice, 'PUT', crUrl(p, `/${id}/state`), { state: 'In review' })
    await call(bob, 'PUT', crUrl(p, `/${id}/state`), { state: 'Approved' })
    const before = await databaseFingerprint(t.database.db)
    for (const [scheduledAt, path] of [[new Date(Date.now() - 60_000).toISOString(), '/body/scheduledAt'], ['next monday', '/body/scheduledAt'], ['2030-02-30T09:00:00Z', '/body/scheduledAt'], [undefined, '/body/scheduledAt']] as const) {
      const res = refused(await call(alice, 'PUT', crUrl(p, `/${id}/state`), { state: 'Scheduled', ...(scheduledAt !== undefined && { scheduledAt }) }), 400, 'BadDataError')
      expect(res.details[0].path).toBe(path)
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})
