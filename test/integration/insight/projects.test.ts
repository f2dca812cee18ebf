/**
 * Stale flags and a project's health as Unleash 8.2 answers them: marked stale by people
 * (events, all or nothing), potentially stale when older than their type's lifetime, the health
 * report, insights and lead time.
 */
import { describe, expect, it } from 'vitest'
import { writeChange } from '../../../src/events/events.service.js'
import { setStale } from '../../../src/insight/projects.service.js'
import { expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { databaseFingerprint } from '../../helpers/state.js'
import { requests } from '../../helpers/requests.js'

const t = useTestApp()
const { admin } = requests(t)
const DAY = 24 * 3_600_000

async function project (...features: { name: string; type?: string }[]) {
  const id = uniqueName('h')
  expect((await admin.post('/api/admin/projects', { id, name: `Project ${id}` })).statusCode).toBe(201)
  for (const environment of ['development', 'production']) await admin.post(`/api/admin/projects/${id}/environments`, { environment })
  for (const f of features) expect((await admin.post(`/api/admin/projects/${id}/features`, f)).statusCode).toBe(201)
  return id
}
const age = (feature: string, days: number) =>
  t.database.db.updateTable('features').set({ created_at: new Date(Date.now() - days * DAY) } as never).where('name', '=', feature).execute()
const eventsOf = (feature: string) =>
  t.database.db.selectFrom('events').select(['type', 'project', 'created_by']).where('feature_name', '=', feature).where('type', 'like', 'feature-stale-%').orderBy('id').execute()

describe('POST /api/admin/projects/{p}/stale', () => {
  it('marks features stale and back, one event per feature whose mark changes', async () => {
    const [a, b] = [uniqueName('a'), uniqueName('b')]
    const p = await project({ name: a }, { name: b })
    const res = await admin.post(`/api/admin/projects/${p}/stale`, { features: [a, b], stale: true })
    expect(res.statusCode).toBe(202)
    expect(res.body).toBe('')
    expect(json(await admin.get(`/api/admin/projects/${p}/features/${a}`)).stale).toBe(true)
    expect(await eventsOf(a)).toEqual([{ type: 'feature-stale-on', project: p, created_by: expect.stringMatching(/^init-admin-/) }])
    // Already stale: left alone.
    await admin.post(`/api/admin/projects/${p}/stale`, { features: [a], stale: true })
    expect(await eventsOf(a)).toHaveLength(1)
    await admin.post(`/api/admin/projects/${p}/stale`, { features: [b], stale: false })
    expect((await eventsOf(b)).map((e) => e.type)).toEqual(['feature-stale-on', 'feature-stale-off'])
    expect(json(await admin.get(`/api/admin/projects/${p}/features/${b}`)).stale).toBe(false)
  })

  it('a feature not in the project is 404 naming it, and nothing changes; bodies are checked', async () => {
    const a = uniqueName('a')
    const p = await project({ name: a })
    const elsewhere = await project({ name: uniqueName('x') })
    const before = await databaseFingerprint(t.database.db)
    const res = expectProblem(await admin.post(`/api/admin/projects/${p}/stale`, { features: [a, 'ghost'], stale: true }), 404, 'NotFoundError')
    expect(res.message).toContain('ghost')
    expectProblem(await admin.post(`/api/admin/projects/${elsewhere}/stale`, { features: [a], stale: true }), 404, 'NotFoundError')
    expectProblem(await admin.post(`/api/admin/projects/${p}/stale`, { features: [a], stale: 'yes' }), 400, 'BadDataError')
    expectProblem(await admin.post(`/api/admin/projects/${p}/stale`, { features: [], stale: true }), 400, 'BadDataError')
    expectProblem(await admin.post(`/api/admin/projects/${p}/stale`, { features: [a, a], stale: true }), 400, 'BadDataError')
    expectProblem(await admin.post('/api/admin/projects/nowhere/stale', { features: [a], stale: true }), 404, 'NotFoundError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('setStale composes: inside a caller\'s change, it commits with the caller\'s other writes or not at all', async () => {
    const a = uniqueName('a')
    const p = await project({ name: a })
    await expect(writeChange(t.database.db, async (change) => {
      await setStale(change, p, [a], true, { name: 'composer' })
      throw new Error('the caller gives up')
    })).rejects.toThrow('the caller gives up')
    expect(json(await admin.get(`/api/admin/projects/${p}/features/${a}`)).stale).toBe(false)
    await writeChange(t.database.db, (change) => setStale(change, p, [a], true, { name: 'composer' }))
    expect(await eventsOf(a)).toEqual([{ type: 'feature-stale-on', project: p, created_by: 'composer' }])
  })
})

describe('health report, insights and lead time', () => {
  it('counts stale and potentially stale flags; health is the share of neither', async () => {
    const [fresh, old, marked, gone] = [uniqueName('fresh'), uniqueName('old'), uniqueName('marked'), uniqueName('gone')]
    const p = await project({ name: fresh }, { name: old, type: 'experiment' }, { name: marked }, { name: gone })
    await age(old, 41)
    await admin.post(`/api/admin/projects/${p}/stale`, { features: [marked], stale: true })
    await admin.delete(`/api/admin/projects/${p}/features/${gone}`)
    await admin.post(`/api/admin/features/${fresh}/tags`, { type: 'simple', value: 'kept' })
    const report = json(await admin.get(`/api/admin/projects/${p}/health-report`))
    expect(report).toMatchObject({
      version: 1,
      name: `Project ${p}`,
      mode: 'open',
      defaultStickiness: 'default',
      favorite: false,
      members: 0,
      health: 33,
      technicalDebt: 67,
      potentiallyStaleCount: 1,
      activeCount: 2,
      staleCount: 1,
      environments: [{ environment: 'development' }, { environment: 'production' }],
    })
    expect(report.features.map((f: any) => f.name)).toEqual([fresh, old, marked].sort())
    const freshOne = report.features.find((f: any) => f.name === fresh)
    expect(freshOne).toMatchObject({ type: 'release', stale: false, tags: [{ type: 'simple', value: 'kept' }] })
    expect(freshOne.environments.map((e: any) => [e.name, e.sortOrder, e.lastSeenAt])).toEqual([['development', 2, null], ['production', 3, null]])
    // A lifetime of none: nothing is potentially stale.
    await admin.put('/api/admin/feature-types/experiment/lifetime', { lifetimeDays: 0 })
    try {
      expect(json(await admin.get(`/api/admin/projects/${p}/health-report`))).toMatchObject({ health: 67, potentiallyStaleCount: 0 })
    } finally {
      await admin.put('/api/admin/feature-types/experiment/lifetime', { lifetimeDays: 40 })
    }
    const insights = json(await admin.get(`/api/admin/projects/${p}/insights`))
    expect(insights).toMatchObject({
      health: { rating: 33, activeCount: 2, potentiallyStaleCount: 1, staleCount: 1 },
      technicalDebt: { rating: 67, activeCount: 2, potentiallyStaleCount: 1, staleCount: 1 },
      featureTypeCounts: [{ type: 'experiment', count: 1 }, { type: 'release', count: 2 }],
      members: { currentMembers: 0, change: 0 },
      stats: { createdCurrentWindow: 2, createdPastWindow: 1, archivedCurrentWindow: 1, archivedPastWindow: 0 },
    })
    expect(insights.stats.projectActivityCurrentWindow).toBeGreaterThan(5)
  })

  it('lead time: whole days from creation to the first switch-on in production, release flags only', async () => {
    const [quick, slow, experiment, never] = [uniqueName('quick'), uniqueName('slow'), uniqueName('exp'), uniqueName('never')]
    const p = await project({ name: quick }, { name: slow }, { name: experiment, type: 'experiment' }, { name: never })
    await age(slow, 3.5)
    for (const f of [quick, slow, experiment]) await admin.post(`/api/admin/projects/${p}/features/${f}/environments/production/on`)
    await admin.post(`/api/admin/projects/${p}/features/${never}/environments/development/on`)
    const dora = json(await admin.get(`/api/admin/projects/${p}/dora`))
    expect(dora.features.sort((a: any, b: any) => a.name.localeCompare(b.name))).toEqual([{ name: quick, timeToProduction: 0 }, { name: slow, timeToProduction: 3 }].sort((a, b) => a.name.localeCompare(b.name)))
    expect(dora.projectAverage).toBe(1.5)
    expect(json(await admin.get(`/api/admin/projects/${p}/insights`)).leadTime).toEqual(dora)
  })

  it('an empty project is healthy; an unknown one is 404 (Unleash answers zeros)', async () => {
    const p = await project()
    expect(json(await admin.get(`/api/admin/projects/${p}/health-report`))).toMatchObject({ health: 100, technicalDebt: 0, features: [], activeCount: 0 })
    expect(json(await admin.get(`/api/admin/projects/${p}/dora`))).toEqual({ features: [], projectAverage: 0 })
    for (const path of ['health-report', 'insights', 'dora', 'sdks/outdated']) expectProblem(await admin.get(`/api/admin/projects/nowhere/${path}`), 404, 'NotFoundError')
  })
})
