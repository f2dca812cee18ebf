/**
 * A change request's preview (POST /api/admin/playground/change-request/{id}): the advanced
 * playground's answer on the state the request would make, the same as the playground answers
 * once it is applied for real; nothing of it is kept (no row, no event, the request's state
 * unchanged); the refusals (unknown, another project's, a closed request, a conflict, a
 * refused body) change nothing either.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createToken, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { listen } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'
import { addUrl, call, changeRequestKit, crUrl, type Person, refused } from './helpers.js'
import { checkUnleashShapesAfterAll, unleashSchema } from './unleash-shapes.js'

const t = useTestApp()
checkUnleashShapesAfterAll(t, 3)
const kit = changeRequestKit(t)
const { admin } = kit
const { as } = requests(t)
let base = ''
let alice: Person
let bob: Person
let viewer: Person
beforeAll(async () => {
  base = await listen(t)
  alice = await kit.person(base, 'Editor')
  bob = await kit.person(base, 'Editor')
  viewer = await kit.person(base, 'Viewer')
})

const featureUrl = (p: string, f: string) => `/api/admin/projects/${p}/features/${f}`
const strategiesUrl = (p: string, f: string) => `${featureUrl(p, f)}/environments/production/strategies`
const previewUrl = (id: number | string) => `/api/admin/playground/change-request/${id}`
const state = (who: Person, project: string, id: number, body: object) => call(who, 'PUT', crUrl(project, `/${id}/state`), body)
const context = { appName: 'shop', userId: 'u1,u2,u3', properties: { tier: 'gold,free' } }

/** Alice proposes the changes and sends them to review; with `approve`, Bob approves. The request's id. */
async function proposed (project: string, changes: object | object[], approve = true) {
  const added = await call(alice, 'POST', addUrl(project), changes)
  if (added.status !== 200) throw new Error(`changes refused: ${JSON.stringify(added.body)}`)
  expect((await state(alice, project, added.body.id, { state: 'In review' })).status).toBe(200)
  if (approve) expect((await state(bob, project, added.body.id, { state: 'Approved' })).body.state).toBe('Approved')
  return added.body.id as number
}

/**
 * The answer with each strategy's id (and its edit link) replaced by its place: a strategy the
 * request adds (or a flag's default strategy, when it is switched on without one) gets a new id
 * each time it is written.
 */
const withoutStrategyIds = (answer: any) =>
  JSON.parse(JSON.stringify(answer), (key, value) => {
    if (key === 'data' && Array.isArray(value)) return value.map((s: any, i: number) => (typeof s === 'object' && s !== null && 'id' in s ? { ...s, id: i, links: undefined } : s))
    return value
  })

/**
 * What an answer has beyond Unleash Enterprise 7.4.1's advancedPlaygroundResponseSchema: only
 * the members Unleash 8.2's playground added since (which this server's playground answers
 * with, as 8.2), nothing missing or of another type.
 */
function beyond741 (answer: unknown) {
  const validate = unleashSchema('advancedPlaygroundResponseSchema')
  if (validate(answer)) return []
  const errors = validate.errors ?? []
  const other = errors.filter((e) => e.keyword !== 'additionalProperties')
  expect(other).toEqual([])
  return [...new Set(errors.map((e) => (e.params as { additionalProperty: string }).additionalProperty))].sort()
}

/** A project with flags in production, a segment and a request that changes them all; Approved. */
async function scene () {
  const p = await kit.project()
  const [f, g, parent, gone] = [await kit.feature(p), await kit.feature(p), await kit.feature(p), await kit.feature(p)]
  const segment = json(await admin.post('/api/admin/segments', { name: uniqueName('seg'), project: p, constraints: [{ contextName: 'tier', operator: 'IN', values: ['gold'] }] })).id
  const rollout = json(await admin.post(strategiesUrl(p, f), { name: 'flexibleRollout', parameters: { rollout: '0', stickiness: 'userId', groupId: f } })).id
  expect((await admin.post(strategiesUrl(p, g), { name: 'default', segments: [segment] })).statusCode).toBe(200)
  for (const name of [g, parent, gone]) expect((await admin.post(`${featureUrl(p, name)}/environments/production/on`)).statusCode).toBe(200)
  const id = await proposed(p, [
    { feature: f, action: 'updateEnabled', payload: { enabled: true } },
    { feature: f, action: 'updateStrategy', payload: { id: rollout, name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'userId', groupId: f } } },
    { feature: f, action: 'addStrategy', payload: { name: 'userWithId', parameters: { userIds: 'u2' }, constraints: [{ contextName: 'tier', operator: 'IN', values: ['free'] }] } },
    { feature: f, action: 'patchVariant', payload: { variants: [{ name: 'blue', weight: 0, stickiness: 'userId' }, { name: 'red', weight: 0, stickiness: 'userId' }] } },
    { feature: g, action: 'addDependency', payload: { feature: parent } },
    { feature: parent, action: 'updateEnabled', payload: { enabled: false } },
    { feature: gone, action: 'archiveFeature' },
    { action: 'updateSegment', payload: { id: segment, name: uniqueName('seg'), project: p, constraints: [{ contextName: 'tier', operator: 'IN', values: ['free'] }] } },
  ])
  return { p, f, g, parent, gone, id }
}

describe('preview', () => {
  it('answers what the playground answers once the request is applied for real, and keeps nothing: no row, no event, the request Approved', async () => {
    const { p, f, gone, id } = await scene()
    const playgroundNow = json(await admin.post('/api/admin/playground/advanced', { environments: ['production'], projects: [p], context }))
    const before = await databaseFingerprint(t.database.db)
    const preview = await call(bob, 'POST', previewUrl(id), { context })
    expect(preview.status, JSON.stringify(preview.body)).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect(json(await admin.get(crUrl(p, `/${id}`))).state).toBe('Approved')
    expect(preview.body.input).toEqual({ environments: ['production'], projects: [p], context })
    expect(beyond741(preview.body)).toEqual(['featureEnabled', 'hasUnsatisfiedDependency'])
    expect(unleashSchema('changeRequestPlaygroundRequestSchema')({ context })).toBe(true)
    // The preview is not the current state: the flag is on there, the archived flag gone.
    const names = (answer: any) => answer.features.map((x: any) => x.name)
    expect(names(playgroundNow)).toContain(gone)
    expect(names(preview.body)).not.toContain(gone)
    const onFor = (answer: any, flag: string) => answer.features.find((x: any) => x.name === flag).environments.production.map((e: any) => [e.context.userId, e.context.tier, e.isEnabled, e.variant.name])
    expect(onFor(playgroundNow, f).every(([, , on]: [string, string, boolean]) => !on)).toBe(true)
    expect(onFor(preview.body, f).every(([, , on]: [string, string, boolean]) => on)).toBe(true)

    // The same request applied for real: the playground then answers exactly what the preview did.
    expect((await state(bob, p, id, { state: 'Applied' })).body.state).toBe('Applied')
    const playgroundAfter = json(await admin.post('/api/admin/playground/advanced', { environments: ['production'], projects: [p], context }))
    expect(withoutStrategyIds(preview.body)).toEqual(withoutStrategyIds(playgroundAfter))
    expect(preview.body).not.toEqual(playgroundNow)
  })

  it('whoever may read the request may preview it: a Viewer, an admin token of its project; a Draft too', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const draft = await call(alice, 'POST', addUrl(p), { feature: f, action: 'updateEnabled', payload: { enabled: true } })
    const id = draft.body.id as number
    expect(draft.body.state).toBe('Draft')
    const byViewer = await call(viewer, 'POST', previewUrl(id), { context: { appName: 'a' } })
    expect(byViewer.status).toBe(200)
    expect(byViewer.body.features.find((x: any) => x.name === f).environments.production[0].isEnabled).toBe(true)
    const token = await createToken(t.app, { projects: [p], environments: ['production'] })
    const byToken = await as(token).post(previewUrl(id), { context: { appName: 'a' } })
    expect(byToken.statusCode, byToken.body).toBe(200)
    expect(withoutStrategyIds(json(byToken))).toEqual(withoutStrategyIds(byViewer.body))
    expect(json(await admin.get(crUrl(p, `/${id}`))).state).toBe('Draft')
    // With its one change discarded, the Draft changes nothing: the preview is the state as it is.
    const changeId = draft.body.features[0].changes[0].id
    expect((await call(alice, 'DELETE', crUrl(p, `/${id}/changes/${changeId}`))).status).toBe(200)
    const empty = await call(viewer, 'POST', previewUrl(id), { context: { appName: 'a' } })
    expect(empty.status).toBe(200)
    const now = json(await admin.post('/api/admin/playground/advanced', { environments: ['production'], projects: [p], context: { appName: 'a' } }))
    expect(empty.body).toEqual(now)
    expect(empty.body.features.find((x: any) => x.name === f).environments.production[0].isEnabled).toBe(false)
  })

  it('refusals change nothing: 404 unknown or another project\'s (a token of another project), 403 its environment outside the token\'s, 400 a refused body, 409 closed', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const id = await proposed(p, { feature: f, action: 'updateEnabled', payload: { enabled: true } })
    const other = await kit.project()
    const otherProject = await createToken(t.app, { projects: [other], environments: ['*'] })
    const developmentOnly = await createToken(t.app, { projects: [p], environments: ['development'] })
    const before = await databaseFingerprint(t.database.db)
    const body = { context: { appName: 'a' } }

    const unknown = await call(bob, 'POST', previewUrl(2_000_000_000), body)
    expect(refused(unknown, 404, 'NotFoundError').detail).toBe('Change request 2000000000 does not exist')
    const elsewhere = await as(otherProject).post(previewUrl(id), body)
    expect(elsewhere.statusCode).toBe(404)
    expect(json(elsewhere).detail).toBe(`Change request ${id} does not exist`)
    const outside = await as(developmentOnly).post(previewUrl(id), body)
    expect(outside.statusCode).toBe(403)
    expect(json(outside).detail).toMatch(/no access to environment production/)

    for (const bad of [{}, { context: {} }, { context: { appName: '' } }, { context: { appName: 'a' }, environments: ['production'] }, { context: { appName: 'a', properties: { x: 1 } } }]) {
      const res = await call(bob, 'POST', previewUrl(id), bad)
      expect(res.status, JSON.stringify(bad)).toBe(400)
      expect(res.body.name).toBe('BadDataError')
    }
    expect((await call(bob, 'POST', previewUrl('x'), body)).status).toBe(400)
    // More evaluations than the playground's limit: refused before any is made.
    const many = { appName: 'a', userId: Array.from({ length: 200 }, (_, i) => `u${i}`).join(','), sessionId: Array.from({ length: 100 }, (_, i) => `s${i}`).join(',') }
    const tooMany = refused(await call(bob, 'POST', previewUrl(id), { context: many }), 400, 'BadDataError')
    expect(tooMany.detail).toMatch(/exceeding 15000 limit/)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)

    expect((await state(bob, p, id, { state: 'Applied' })).body.state).toBe('Applied')
    const afterApply = await databaseFingerprint(t.database.db)
    const closed = refused(await call(bob, 'POST', previewUrl(id), body), 409, 'ChangeRequestStateError')
    expect(closed.detail).toBe(`Change request ${id} is Applied: only an open request (Draft, In review, Approved, Scheduled) is previewed`)
    expect(await databaseFingerprint(t.database.db)).toEqual(afterApply)
  })

  it('a conflict is a 409 as applying says it (the strategy edited directly since), nothing kept; the request stays Approved', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const s = json(await admin.post(strategiesUrl(p, f), { name: 'flexibleRollout', parameters: { rollout: '10' } })).id
    const id = await proposed(p, [{ feature: f, action: 'updateStrategy', payload: { id: s, name: 'flexibleRollout', parameters: { rollout: '50' } } }])
    expect((await admin.put(`${strategiesUrl(p, f)}/${s}`, { name: 'flexibleRollout', parameters: { rollout: '30' } })).statusCode).toBe(200)
    const before = await databaseFingerprint(t.database.db)
    const previewed = refused(await call(bob, 'POST', previewUrl(id), { context: { appName: 'a' } }), 409, 'ChangeRequestConflictError')
    const applied = refused(await state(bob, p, id, { state: 'Applied' }), 409, 'ChangeRequestConflictError')
    expect(previewed.detail).toBe(applied.detail)
    expect(previewed.detail).toMatch(/updateStrategy of/)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect(json(await admin.get(crUrl(p, `/${id}`))).state).toBe('Approved')
  })
})
