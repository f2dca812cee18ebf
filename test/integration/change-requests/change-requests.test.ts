/**
 * Change requests through Unleash Enterprise's paths, bodies and states: the policy, drafts,
 * who may do what (two people signed in, a Viewer, an admin token), every state change with
 * its event, and the reads; every answer also has Unleash 7.4.1's shape.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { Browser, listen } from '../../helpers/people.js'
import { databaseFingerprint } from '../../helpers/state.js'
import { addUrl, call, changeRequestKit, crUrl, type Person, refused } from './helpers.js'
import { checkUnleashShapesAfterAll } from './unleash-shapes.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })
checkUnleashShapesAfterAll(t, 30)
const kit = changeRequestKit(t)
const { admin } = kit
let base = ''
let alice: Person
let bob: Person
let carol: Person
let viewer: Person
let boss: Person
beforeAll(async () => {
  base = await listen(t)
  alice = await kit.person(base, 'Editor')
  bob = await kit.person(base, 'Editor')
  carol = await kit.person(base, 'Editor')
  viewer = await kit.person(base, 'Viewer')
  boss = await kit.person(base, 'Admin')
})

const on = (feature: string) => ({ feature, action: 'updateEnabled', payload: { enabled: true } })
const state = (who: Person, project: string, id: number, body: object) => call(who, 'PUT', crUrl(project, `/${id}/state`), body)
const eventTypes = async (project: string) =>
  (json(await admin.get(`/api/admin/events?project=${project}&limit=100`)).events as { type: string }[]).map((e) => e.type).reverse()

/** A request of alice's with one change, sent to review. */
async function inReview (project: string, feature: string) {
  const added = await call(alice, 'POST', addUrl(project), on(feature))
  expect(added.status).toBe(200)
  const sent = await state(alice, project, added.body.id, { state: 'In review' })
  expect(sent.status).toBe(200)
  return added.body.id as number
}

describe('the policy: PUT …/environments/{e}/change-requests/config, GET …/change-requests/config', () => {
  it('lists every environment of the project with its setting; Admins (and admin tokens) change it, every role reads; approvals taken into 1–10', async () => {
    const p = await kit.project(1, [])
    expect(json(await admin.get(crUrl(p, '/config')))).toEqual([
      { environment: 'development', type: 'development', changeRequestEnabled: false, requiredApprovals: 1 },
      { environment: 'production', type: 'production', changeRequestEnabled: false, requiredApprovals: 1 },
    ])
    const url = `/api/admin/projects/${p}/environments/production/change-requests/config`
    const before = await databaseFingerprint(t.database.db)
    for (const who of [alice, viewer]) expect((await call(who, 'PUT', url, { changeRequestsEnabled: true })).status).toBe(403)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect((await call(viewer, 'GET', crUrl(p, '/config'))).status).toBe(200)
    expect((await call(boss, 'PUT', url, { changeRequestsEnabled: true, requiredApprovals: 15 })).status).toBe(200)
    expect(json(await admin.get(crUrl(p, '/config')))[1]).toEqual({ environment: 'production', type: 'production', changeRequestEnabled: true, requiredApprovals: 10 })
    expect((await admin.put(url, { changeRequestsEnabled: true, requiredApprovals: 0 })).statusCode).toBe(200)
    expect(json(await admin.get(crUrl(p, '/config')))[1].requiredApprovals).toBe(1)
    // The same setting again records nothing.
    expect((await admin.put(url, { changeRequestsEnabled: true, requiredApprovals: 1 })).statusCode).toBe(200)
    expect((await eventTypes(p)).filter((e) => e === 'change-request-configuration-updated')).toHaveLength(2)
    expectProblem(await admin.put(url, { changeRequestsEnabled: 'yes' }), 400, 'BadDataError')
    expectProblem(await admin.put(url, { changeRequestsEnabled: true, requiredApprovals: -1 }), 400, 'BadDataError')
    expectProblem(await admin.put(`/api/admin/projects/${p}/environments/nowhere/change-requests/config`, { changeRequestsEnabled: true }), 404, 'NotFoundError')
    expectProblem(await admin.get(crUrl('no-such-project', '/config')), 404, 'NotFoundError')
  })
})

describe('drafts: POST …/environments/{e}/change-requests', () => {
  it("adds one change or several to the caller's open request (one per author and environment); the same switch replaces the earlier; events with data.changeRequestId", async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const g = await kit.feature(p)
    const first = await call(alice, 'POST', addUrl(p), on(f))
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ state: 'Draft', project: p, environment: 'production', minApprovals: 1, features: [{ name: f, changes: [{ action: 'updateEnabled', payload: { enabled: true } }] }] })
    expect(first.body.title).toBeUndefined()
    expect(first.body.schedule).toBeUndefined()
    const second = await call(alice, 'POST', addUrl(p), [{ feature: f, action: 'updateEnabled', payload: { enabled: false } }, { feature: g, action: 'addStrategy', payload: { name: 'default' } }])
    expect(second.body.id).toBe(first.body.id)
    expect(second.body.features.map((x: any) => [x.name, x.changes.map((c: any) => [c.action, c.payload])])).toEqual([
      [f, [['updateEnabled', { enabled: false }]]],
      [g, [['addStrategy', { name: 'default' }]]],
    ])
    // Another person gets a request of their own.
    const bobs = await call(bob, 'POST', addUrl(p), on(g))
    expect(bobs.body.id).not.toBe(first.body.id)
    const events = json(await admin.get(`/api/admin/events?project=${p}&type=change-added`)).events
    expect(events).toHaveLength(4)
    expect(events.every((e: any) => typeof e.data.changeRequestId === 'number' && e.environment === 'production')).toBe(true)
    expect((await eventTypes(p)).filter((e) => e === 'change-request-created')).toHaveLength(2)
    // Nothing reached the features.
    expect(json(await admin.get(`/api/admin/projects/${p}/features/${f}`)).environments[1]).toMatchObject({ name: 'production', enabled: false, strategies: [] })
  })

  it('refuses an environment without change requests (400), a Viewer (403), an API token (403): nothing stored', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const before = await databaseFingerprint(t.database.db)
    expect(refused(await call(alice, 'POST', addUrl(p, 'development'), on(f)), 400, 'BadDataError').detail).toMatch(/not enabled in environment development/)
    refused(await call(viewer, 'POST', addUrl(p), on(f)), 403, 'PermissionError')
    expectProblem(await admin.post(addUrl(p), on(f)), 403, 'PermissionError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('only the author edits (PUT) or discards (DELETE) a change, or deletes the draft; others 403, another project\'s path 404', async () => {
    const p = await kit.project()
    const other = await kit.project()
    const f = await kit.feature(p)
    const draft = (await call(alice, 'POST', addUrl(p), [on(f), { feature: f, action: 'addStrategy', payload: { name: 'default' } }])).body
    const [switchId, strategyId] = draft.features[0].changes.map((c: any) => c.id)
    const changeUrl = (project: string, changeId: number) => `/api/admin/projects/${project}/change-requests/${draft.id}/changes/${changeId}`
    const before = await databaseFingerprint(t.database.db)
    expect((await call(bob, 'PUT', changeUrl(p, switchId), { feature: f, action: 'updateEnabled', payload: { enabled: false } })).status).toBe(403)
    expect((await call(bob, 'DELETE', changeUrl(p, switchId))).status).toBe(403)
    expect((await call(bob, 'DELETE', crUrl(p, `/${draft.id}`))).status).toBe(403)
    expect((await call(bob, 'PUT', crUrl(p, `/${draft.id}/title`), { title: 'mine' })).status).toBe(403)
    expect((await call(alice, 'PUT', changeUrl(other, switchId), { feature: f, action: 'updateEnabled', payload: { enabled: false } })).status).toBe(404)
    expect((await call(alice, 'GET', crUrl(other, `/${draft.id}`))).status).toBe(404)
    expect((await call(alice, 'DELETE', changeUrl(p, 99999))).status).toBe(404)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    const edited = await call(alice, 'PUT', changeUrl(p, switchId), { feature: f, action: 'updateEnabled', payload: { enabled: false } })
    expect(edited.status).toBe(200)
    const ids = edited.body.features[0].changes.map((c: any) => c.id)
    expect(ids).toContain(strategyId)
    expect(ids).not.toContain(switchId)
    expect((await call(alice, 'DELETE', changeUrl(p, strategyId))).status).toBe(200)
    expect((await call(alice, 'PUT', crUrl(p, `/${draft.id}/title`), { title: 'Switch it off' })).status).toBe(204)
    expect(json(await admin.get(crUrl(p, `/${draft.id}`))).title).toBe('Switch it off')
    expect((await call(alice, 'DELETE', crUrl(p, `/${draft.id}`))).status).toBe(200)
    expectProblem(await admin.get(crUrl(p, `/${draft.id}`)), 404, 'NotFoundError')
    expect(await eventTypes(p)).toEqual(expect.arrayContaining(['change-edited', 'change-discarded', 'change-request-title-updated', 'change-request-discarded']))
  })
})

describe('states: PUT …/{id}/state', () => {
  it('Draft → In review → Approved → Applied, each with its event; the author may apply', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const id = await inReview(p, f)
    const approved = await state(bob, p, id, { state: 'Approved', comment: 'Looks right' })
    expect(approved.body).toMatchObject({ state: 'Approved', approvals: [{ createdBy: { id: bob.id, username: bob.login } }], comments: [{ text: 'Looks right' }] })
    const applied = await state(alice, p, id, { state: 'Applied' })
    expect(applied.status).toBe(200)
    expect(applied.body.state).toBe('Applied')
    expect(Object.keys(applied.body.stateTimestamps)).toEqual(['Draft', 'In review', 'Approved', 'Applied'])
    expect(await eventTypes(p)).toEqual(expect.arrayContaining(['change-request-created', 'change-added', 'change-request-sent-to-review', 'change-request-approved', 'change-request-applied']))
    // Closed: it moves no more.
    refused(await state(alice, p, id, { state: 'Cancelled' }), 409, 'ChangeRequestStateError')
  })

  it('the author approving gets 403, a Viewer 403, an API token 403; two approvals when two are required; an edit clears them', async () => {
    const p = await kit.project(2)
    const f = await kit.feature(p)
    const id = await inReview(p, f)
    const before = await databaseFingerprint(t.database.db)
    expect((await state(alice, p, id, { state: 'Approved' })).status).toBe(403)
    expect((await state(viewer, p, id, { state: 'Approved' })).status).toBe(403)
    expectProblem(await admin.put(crUrl(p, `/${id}/state`), { state: 'Approved' }), 403, 'PermissionError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect((await state(bob, p, id, { state: 'Approved' })).body).toMatchObject({ state: 'In review', minApprovals: 2 })
    expect((await state(bob, p, id, { state: 'Approved' })).body.approvals).toHaveLength(1)
    expect((await state(carol, p, id, { state: 'Approved' })).body.state).toBe('Approved')
    // An edit of an Approved request returns it to In review and clears its approvals.
    const edited = await call(alice, 'POST', addUrl(p), { feature: f, action: 'updateEnabled', payload: { enabled: false } })
    expect(edited.body).toMatchObject({ id, state: 'In review', approvals: [] })
    expect((await state(alice, p, id, { state: 'Applied' })).status).toBe(409)
    const types = await eventTypes(p)
    expect(types.filter((e) => e === 'change-request-approval-added')).toHaveLength(1)
    expect(types.filter((e) => e === 'change-request-approved')).toHaveLength(1)
  })

  it('rejected by another person (the author cancels instead: 403); cancelled by the author or an Admin; a Draft is not rejected', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const id = await inReview(p, f)
    expect((await state(alice, p, id, { state: 'Rejected' })).status).toBe(403)
    const rejected = await state(bob, p, id, { state: 'Rejected', comment: 'Not now' })
    expect(rejected.body).toMatchObject({ state: 'Rejected', rejections: [{ createdBy: { id: bob.id } }] })
    const second = (await call(alice, 'POST', addUrl(p), on(f))).body.id
    expect(second).not.toBe(id)
    expect((await state(bob, p, second, { state: 'Rejected' })).status).toBe(409)
    expect((await state(bob, p, second, { state: 'Cancelled' })).status).toBe(403)
    expect((await state(boss, p, second, { state: 'Cancelled' })).body.state).toBe('Cancelled')
    const third = (await call(alice, 'POST', addUrl(p), on(f))).body.id
    expect((await state(alice, p, third, { state: 'Cancelled' })).body.state).toBe('Cancelled')
    expect(await eventTypes(p)).toEqual(expect.arrayContaining(['change-request-rejected', 'change-request-cancelled']))
  })

  it('an empty draft is not sent to review; nothing goes back to Draft; an unknown state is a 400', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const draft = (await call(alice, 'POST', addUrl(p), on(f))).body
    await call(alice, 'DELETE', `/api/admin/projects/${p}/change-requests/${draft.id}/changes/${draft.features[0].changes[0].id}`)
    expect((await state(alice, p, draft.id, { state: 'In review' })).status).toBe(409)
    await call(alice, 'POST', addUrl(p), on(f))
    expect((await state(alice, p, draft.id, { state: 'In review' })).status).toBe(200)
    expect((await state(alice, p, draft.id, { state: 'Draft' })).status).toBe(409)
    expect((await state(alice, p, draft.id, { state: 'Merged' })).status).toBe(400)
    expect((await state(alice, p, draft.id, { state: 'In review', scheduledAt: new Date().toISOString() })).status).toBe(400)
  })
})

describe('reads', () => {
  it('one request, the project list (others\' Drafts left out, no stateTimestamps), pending and open (own), per feature, count, actionable, scheduled', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const g = await kit.feature(p)
    const mine = await inReview(p, f)
    const draft = (await call(bob, 'POST', addUrl(p), on(g))).body.id
    const list = (await call(alice, 'GET', crUrl(p))).body
    expect(list.map((r: any) => r.id)).toEqual([mine])
    expect(list[0].stateTimestamps).toBeUndefined()
    expect(list[0].features).toEqual([{ name: f, changes: [] }])
    expect((await call(bob, 'GET', crUrl(p))).body.map((r: any) => r.id)).toEqual([draft, mine])
    for (const path of ['/pending', '/open']) {
      const pending = (await call(bob, 'GET', crUrl(p, path))).body
      expect(pending.map((r: any) => [r.id, r.state])).toEqual([[draft, 'Draft']])
      expect(pending[0].features[0].changes).toHaveLength(1)
    }
    expect(json(await admin.get(crUrl(p, '/pending')))).toEqual([])
    expect((await call(alice, 'GET', crUrl(p, `/pending/${f}`))).body.map((r: any) => r.id)).toEqual([mine])
    expect((await call(alice, 'GET', crUrl(p, `/pending/${g}`))).body).toEqual([])
    expect(json(await admin.get(crUrl(p, '/count')))).toEqual({ total: 1, applied: 0, rejected: 0, reviewRequired: 1, approved: 0, scheduled: 0 })
    expect((await call(bob, 'GET', crUrl(p, '/actionable'))).body).toEqual({ total: 1 })
    expect((await call(alice, 'GET', crUrl(p, '/actionable'))).body).toEqual({ total: 0 })
    expect((await call(viewer, 'GET', crUrl(p, '/actionable'))).body).toEqual({ total: 0 })
    expect(json(await admin.get(crUrl(p, '/scheduled')))).toEqual([])
    await state(bob, p, mine, { state: 'Approved' })
    const at = new Date(Date.now() + 3_600_000).toISOString()
    const scheduled = await state(alice, p, mine, { state: 'Scheduled', scheduledAt: at })
    expect(scheduled.body).toMatchObject({ state: 'Scheduled', schedule: { scheduledAt: at, status: 'pending' } })
    expect(json(await admin.get(crUrl(p, `/scheduled?feature=${f}`)))).toEqual([{ id: mine, environment: 'production' }])
    expect(json(await admin.get(crUrl(p, `/scheduled?feature=${g}&variantForFlag=${g}`)))).toEqual([])
    expect(json(await admin.get(crUrl(p, '/count'))).scheduled).toBe(1)
    expect((await call(alice, 'GET', crUrl(p, '/pending'))).body.map((r: any) => r.state)).toEqual(['Scheduled'])
    // Scheduled: rescheduled, not edited; a new change starts a new draft beside it.
    const later = new Date(Date.now() + 7_200_000).toISOString()
    expect((await state(bob, p, mine, { state: 'Scheduled', scheduledAt: later })).body.schedule).toEqual({ scheduledAt: later, status: 'pending' })
    const beside = (await call(alice, 'POST', addUrl(p), on(g))).body
    expect(beside.id).not.toBe(mine)
    expect((await state(bob, p, mine, { state: 'Rejected' })).body).toMatchObject({ state: 'Rejected' })
    expect((await state(bob, p, mine, { state: 'Rejected' })).body.schedule).toBeUndefined()
  })

  it('reviewers: available ones (not Viewers), asked ones (author only, people who may approve, not the author), comments by anyone who may write', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const id = await inReview(p, f)
    const available = json(await admin.get(crUrl(p, '/available-reviewers/production'))).reviewers.map((r: any) => r.id)
    expect(available).toEqual(expect.arrayContaining([alice.id, bob.id, boss.id]))
    expect(available).not.toContain(viewer.id)
    const before = await databaseFingerprint(t.database.db)
    for (const [reviewers, at] of [[[viewer.id], 0], [[999999], 0], [[bob.id, alice.id], 1]] as const) {
      const res = await call(alice, 'PUT', crUrl(p, `/${id}/approvers`), { reviewers })
      expect(res.status).toBe(400)
      expect(res.body.details[0].path).toBe(`/body/reviewers/${at}`)
    }
    expect((await call(bob, 'PUT', crUrl(p, `/${id}/approvers`), { reviewers: [carol.id] })).status).toBe(403)
    expect((await call(viewer, 'POST', crUrl(p, `/${id}/comments`), { text: 'hi' })).status).toBe(403)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect((await call(alice, 'PUT', crUrl(p, `/${id}/approvers`), { reviewers: [bob.id, carol.id] })).status).toBe(204)
    expect(json(await admin.get(crUrl(p, `/${id}/approvers`))).reviewers.map((r: any) => r.id)).toEqual([bob.id, carol.id])
    expect((await call(bob, 'POST', crUrl(p, `/${id}/comments`), { text: 'Why production?' })).status).toBe(204)
    expect(json(await admin.get(crUrl(p, `/${id}`))).comments).toMatchObject([{ text: 'Why production?', createdBy: { id: bob.id } }])
    expect(await eventTypes(p)).toEqual(expect.arrayContaining(['change-request-requested-approvers-updated', 'change-request-comment-added']))
  })

  it('an API token reads change requests but writes none (they are people\'s); a personal access token is a person', async () => {
    const p = await kit.project()
    const f = await kit.feature(p)
    const id = await inReview(p, f)
    expect((await admin.get(crUrl(p, `/${id}`))).statusCode).toBe(200)
    expectProblem(await admin.post(addUrl(p), on(f)), 403, 'PermissionError')
    const pat = (await call(bob, 'POST', '/api/admin/user/tokens', { description: uniqueName('pat'), expiresAt: new Date(Date.now() + 3_600_000).toISOString() })).body.secret
    const res = await new Browser(base).fetch(crUrl(p, `/${id}/state`), { method: 'PUT', headers: { authorization: pat, 'content-type': 'application/json' }, body: JSON.stringify({ state: 'Approved' }) })
    expect(res.status).toBe(200)
    expect(((await res.json()) as any).state).toBe('Approved')
  })
})
