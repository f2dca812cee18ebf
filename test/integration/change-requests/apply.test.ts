/**
 * Applying a change request: every action through the same single write the API uses, in one
 * transaction, the events naming the request, its author and who applied it; all or nothing;
 * a target that moved since a change was added is a conflict (409, told on the change, nothing
 * applied, the request stays Approved) until the change is edited; the official Node SDK sees
 * nothing before the apply and the change right after it.
 */
import { InMemStorageProvider, Unleash } from 'unleash-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { json, uniqueName, useTestApp } from '../../helpers/app.js'
import { listen } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'
import { addUrl, call, changeRequestKit, crUrl, type Person, refused } from './helpers.js'
import { checkUnleashShapesAfterAll } from './unleash-shapes.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })
checkUnleashShapesAfterAll(t, 10)
const kit = changeRequestKit(t)
const { admin } = kit
const { clientToken } = requests(t)
let base = ''
let alice: Person
let bob: Person
const sdks: Unleash[] = []
beforeAll(async () => {
  base = await listen(t)
  alice = await kit.person(base, 'Editor')
  bob = await kit.person(base, 'Editor')
})
afterAll(() => {
  for (const sdk of sdks) sdk.destroy()
})

const featureUrl = (p: string, f: string) => `/api/admin/projects/${p}/features/${f}`
const strategiesUrl = (p: string, f: string) => `${featureUrl(p, f)}/environments/production/strategies`
const state = (who: Person, project: string, id: number, body: object) => call(who, 'PUT', crUrl(project, `/${id}/state`), body)

/** Alice proposes the changes, Bob approves them; the request's id. */
async function approved (project: string, changes: object | object[]) {
  const added = await call(alice, 'POST', addUrl(project), changes)
  if (added.status !== 200) throw new Error(`changes refused: ${JSON.stringify(added.body)}`)
  expect((await state(alice, project, added.body.id, { state: 'In review' })).status).toBe(200)
  expect((await state(bob, project, added.body.id, { state: 'Approved' })).body.state).toBe('Approved')
  return added.body.id as number
}

const production = async (p: string, f: string) => json(await admin.get(featureUrl(p, f))).environments.find((e: any) => e.name === 'production')

describe('apply', () => {
  it('every action, through the single writes, in one transaction; each event names the request, its author and who applied it', async () => {
    const p = await kit.project()
    const [f, parent, child, gone, loose] = [await kit.feature(p), await kit.feature(p), await kit.feature(p), await kit.feature(p), await kit.feature(p)]
    const s1 = json(await admin.post(strategiesUrl(p, f), { name: 'flexibleRollout', parameters: { rollout: '10' } })).id
    const s2 = json(await admin.post(strategiesUrl(p, f), { name: 'default' })).id
    await admin.post(`${featureUrl(p, loose)}/dependencies`, { feature: parent })
    const segment = json(await admin.post('/api/admin/segments', { name: uniqueName('seg'), project: p, constraints: [] })).id
    const doomed = json(await admin.post('/api/admin/segments', { name: uniqueName('seg'), project: p, constraints: [] })).id
    const variants = [{ name: 'blue', weight: 0 }, { name: 'red', weight: 0 }]
    const id = await approved(p, [
      { feature: f, action: 'updateEnabled', payload: { enabled: true } },
      { feature: f, action: 'addStrategy', payload: { name: 'userWithId', parameters: { userIds: 'a,b' } } },
      { feature: f, action: 'updateStrategy', payload: { id: s1, name: 'flexibleRollout', parameters: { rollout: '50' } } },
      { feature: f, action: 'deleteStrategy', payload: { id: s2 } },
      { feature: f, action: 'reorderStrategy', payload: [{ id: s1, sortOrder: 9 }] },
      { feature: f, action: 'patchVariant', payload: { variants } },
      { feature: child, action: 'addDependency', payload: { feature: parent } },
      { feature: loose, action: 'deleteDependency' },
      { feature: gone, action: 'archiveFeature' },
      { action: 'updateSegment', payload: { id: segment, name: uniqueName('renamed'), project: p, constraints: [{ contextName: 'userId', operator: 'IN', values: ['x'] }] } },
      { action: 'deleteSegment', payload: { id: doomed } },
    ])
    const newest = json(await admin.get('/api/admin/events?limit=1')).events[0].id
    const applied = await state(bob, p, id, { state: 'Applied' })
    expect(applied.status).toBe(200)
    expect(applied.body.state).toBe('Applied')
    const env = await production(p, f)
    expect(env.enabled).toBe(true)
    expect(env.strategies.map((s: any) => [s.name, s.parameters.rollout ?? s.parameters.userIds, s.sortOrder])).toEqual([['userWithId', 'a,b', 2], ['flexibleRollout', '50', 9]])
    expect(env.variants.map((v: any) => [v.name, v.weight])).toEqual([['blue', 500], ['red', 500]])
    expect(json(await admin.get(featureUrl(p, child))).dependencies.map((d: any) => d.feature)).toEqual([parent])
    expect(json(await admin.get(featureUrl(p, loose))).dependencies).toEqual([])
    expect(json(await admin.get(`/api/admin/projects/${p}/features`)).features.map((x: any) => x.name)).not.toContain(gone)
    expect(json(await admin.get(`/api/admin/segments/${segment}`)).constraints).toHaveLength(1)
    expect((await admin.get(`/api/admin/segments/${doomed}`)).statusCode).toBe(404)
    const events = (json(await admin.get('/api/admin/events?limit=100')).events as any[]).filter((e) => e.id > newest).reverse()
    const writes = events.filter((e) => !e.type.startsWith('change-request'))
    expect(writes.map((e) => e.type)).toEqual([
      'feature-environment-enabled',
      'feature-strategy-add',
      'feature-strategy-update',
      'feature-strategy-remove',
      'strategy-order-changed',
      'feature-environment-variants-updated',
      'feature-dependency-added',
      'feature-dependencies-removed',
      'feature-archived',
      'segment-updated',
      'segment-deleted',
    ])
    for (const e of writes) expect(e.changeRequest, e.type).toEqual({ id, createdBy: alice.login, appliedBy: bob.login })
    expect(writes.every((e) => e.createdBy === bob.login && e.createdByUserId === bob.id)).toBe(true)
    expect(events.at(-1)).toMatchObject({ type: 'change-request-applied', project: p, environment: 'production', data: { changeRequestId: id } })
    // The writes of updateEnabled: the default strategy would have come first had there been no active strategy.
    expect(events.filter((e) => e.type === 'feature-strategy-add')).toHaveLength(1)
  })

  it('all or nothing: a write refused at apply (a segment gone since) applies nothing, and the request stays Approved', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const segment = json(await admin.post('/api/admin/segments', { name: uniqueName('seg'), project: p, constraints: [] })).id
    const id = await approved(p, [{ feature: f, action: 'updateEnabled', payload: { enabled: true } }, { feature: f, action: 'addStrategy', payload: { name: 'default', segments: [segment] } }])
    expect((await admin.delete(`/api/admin/segments/${segment}`)).statusCode).toBe(204)
    const before = await databaseFingerprint(t.database.db)
    const res = refused(await state(bob, p, id, { state: 'Applied' }), 409, 'ChangeRequestConflictError')
    expect(res.detail).toMatch(/addStrategy of .*names no segment/)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect(json(await admin.get(crUrl(p, `/${id}`))).state).toBe('Approved')
    expect((await production(p, f)).enabled).toBe(false)
  })

  it('conflicts: a strategy updated, the variants or a segment changed, the flag archived since: 409, told on the change in reads, nothing applied; editing the change takes a new snapshot', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const archived = await kit.feature(p)
    const s1 = json(await admin.post(strategiesUrl(p, f), { name: 'flexibleRollout' })).id
    const segment = json(await admin.post('/api/admin/segments', { name: uniqueName('seg'), project: p, constraints: [] })).id
    const id = await approved(p, [
      { feature: f, action: 'updateStrategy', payload: { id: s1, parameters: { rollout: '20' } } },
      { feature: f, action: 'patchVariant', payload: { variants: [{ name: 'a', weight: 0 }] } },
      { feature: archived, action: 'updateEnabled', payload: { enabled: true } },
      { action: 'updateSegment', payload: { id: segment, name: uniqueName('seg'), project: p, constraints: [] } },
    ])
    // An admin token writes directly meanwhile (automation is not guarded).
    expect((await admin.put(`${strategiesUrl(p, f)}/${s1}`, { parameters: { rollout: '30' } })).statusCode).toBe(200)
    expect((await admin.put(`${featureUrl(p, f)}/environments/production/variants`, [{ name: 'z', weight: 0 }])).statusCode).toBe(200)
    expect((await admin.delete(featureUrl(p, archived))).statusCode).toBe(202)
    expect((await admin.put(`/api/admin/segments/${segment}`, { name: uniqueName('seg'), project: p, constraints: [] })).statusCode).toBe(204)
    const read = json(await admin.get(crUrl(p, `/${id}`)))
    const byFeature = Object.fromEntries(read.features.map((x: any) => [x.name, x]))
    expect(byFeature[f].changes.map((c: any) => c.conflict)).toEqual(['Strategy has been updated since this change was added', 'Variants have been updated since this change was added'])
    expect(byFeature[f].conflict).toBeUndefined()
    expect(byFeature[archived].conflict).toBe('Feature has been archived')
    expect(byFeature[archived].changes[0].conflict).toBe('Feature has been archived')
    expect(read.segments[0].conflict).toBe('Segment has been updated since this change was added')
    const before = await databaseFingerprint(t.database.db)
    const res = refused(await state(alice, p, id, { state: 'Applied' }), 409, 'ChangeRequestConflictError')
    expect(res.details).toHaveLength(4)
    expect(res.detail).toMatch(/Strategy has been updated since this change was added.*\(and 3 more\)/)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect(json(await admin.get(crUrl(p, `/${id}`))).state).toBe('Approved')
    // Editing the changes takes new snapshots (and the request needs a review again).
    const changes = Object.fromEntries([...read.features.flatMap((x: any) => x.changes), ...read.segments].map((c: any) => [c.action, c.id]))
    const edit = (changeId: number, body: object) => call(alice, 'PUT', `/api/admin/projects/${p}/change-requests/${id}/changes/${changeId}`, body)
    expect((await edit(changes.updateStrategy, { feature: f, action: 'updateStrategy', payload: { id: s1, parameters: { rollout: '20' } } })).body.state).toBe('In review')
    await edit(changes.patchVariant, { feature: f, action: 'patchVariant', payload: { variants: [{ name: 'a', weight: 0 }] } })
    await edit(changes.updateSegment, { action: 'updateSegment', payload: { id: segment, name: uniqueName('seg'), project: p, constraints: [] } })
    await call(alice, 'DELETE', `/api/admin/projects/${p}/change-requests/${id}/changes/${changes.updateEnabled}`)
    expect((await state(bob, p, id, { state: 'Approved' })).body.state).toBe('Approved')
    expect((await state(alice, p, id, { state: 'Applied' })).body.state).toBe('Applied')
    expect((await production(p, f)).strategies[0].parameters.rollout).toBe('20')
  })

  it('the official Node SDK sees nothing before the apply, and the change right after it (streaming)', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const sdk = new Unleash({
      url: `${base}/api/`,
      appName: uniqueName('cr-sdk'),
      customHeaders: { Authorization: await clientToken('production', [p]) },
      refreshInterval: 60_000,
      disableMetrics: true,
      skipInstanceCountWarning: true,
      storageProvider: new InMemStorageProvider(),
      experimentalMode: { type: 'streaming' },
    })
    sdk.on('error', () => {})
    sdk.on('warn', () => {})
    sdks.push(sdk)
    await new Promise((resolve) => sdk.once('synchronized', resolve))
    const id = await approved(p, { feature: f, action: 'updateEnabled', payload: { enabled: true } })
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(sdk.isEnabled(f)).toBe(false)
    const changed = new Promise<number>((resolve) => {
      const listener = () => {
        if (!sdk.isEnabled(f)) return
        sdk.off('changed', listener)
        resolve(Date.now())
      }
      sdk.on('changed', listener)
    })
    const started = Date.now()
    expect((await state(alice, p, id, { state: 'Applied' })).status).toBe(200)
    const seenAfter = (await changed) - started
    expect(seenAfter).toBeLessThan(2000)
    expect(sdk.isEnabled(f)).toBe(true)
  })
})
