/**
 * Favourites and the personal dashboard: a person's own, on a listening server (session cookie
 * and personal access token). Marked and unmarked with their events, shown in feature reads and
 * on the dashboard; an API token is refused with 403 naming the rule (Unleash answers 500).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { auth, createFeature, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { listen, signedIn } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint, eventsOf } from '../../helpers/state.js'

const t = useTestApp()
const { send } = requests(t)
const base = '/api/admin/projects/default/features'
let server = ''
beforeAll(async () => {
  server = await listen(t)
})

describe('favourites', () => {
  it('a person marks and unmarks a feature and a project; feature reads say favorite for them only; each change has its event', async () => {
    const { browser, id } = await signedIn(t, server, 'Viewer')
    const other = await signedIn(t, server, 'Viewer')
    const feature = await createFeature(t.app)
    expect((await browser.json('POST', `${base}/${feature}/favorites`)).status).toBe(200)
    // Again: nothing changes.
    const before = await databaseFingerprint(t.database.db)
    expect((await browser.json('POST', `${base}/${feature}/favorites`)).status).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)

    const favoriteIn = async (b: typeof browser) => ({
      details: (await (await b.fetch(`${base}/${feature}`)).json() as any).favorite,
      list: ((await (await b.fetch('/api/admin/projects/default/features')).json() as any).features.find((f: any) => f.name === feature)).favorite,
    })
    expect(await favoriteIn(browser)).toEqual({ details: true, list: true })
    expect(await favoriteIn(other.browser)).toEqual({ details: false, list: false })
    expect(json(await send('GET', `${base}/${feature}`)).favorite).toBe(false)

    expect((await browser.json('POST', '/api/admin/projects/default/favorites')).status).toBe(200)
    expect((await browser.json('DELETE', '/api/admin/projects/default/favorites')).status).toBe(200)
    expect((await browser.json('DELETE', `${base}/${feature}/favorites`)).status).toBe(200)
    expect(await favoriteIn(browser)).toEqual({ details: false, list: false })
    const events = (await eventsOf(t.database.db, feature)).filter((e) => e.type.includes('favorited'))
    expect(events.map((e) => [e.type, e.created_by_user_id, e.data])).toEqual([
      ['feature-favorited', id, { feature }],
      ['feature-unfavorited', id, { feature }],
    ])
    const projectEvents = await t.database.db.selectFrom('events').select(['type', 'project']).where('type', 'in', ['project-favorited', 'project-unfavorited']).where('created_by_user_id', '=', id).orderBy('id').execute()
    expect(projectEvents).toEqual([{ type: 'project-favorited', project: 'default' }, { type: 'project-unfavorited', project: 'default' }])
  })

  it('refuses an API token (403 naming the rule), a feature or project that is not there (404), a feature of another project: nothing changed', async () => {
    const { browser } = await signedIn(t, server, 'Editor')
    const feature = await createFeature(t.app)
    await send('POST', '/api/admin/projects', { id: 'fav-other', name: 'Other' })
    const before = await databaseFingerprint(t.database.db)
    for (const url of [`${base}/${feature}/favorites`, '/api/admin/projects/default/favorites', '/api/admin/personal-dashboard']) {
      const res = await t.app.inject({ method: url.endsWith('dashboard') ? 'GET' : 'POST', url, headers: auth() })
      expect(expectProblem(res, 403, 'PermissionError').message).toMatch(/is not a person: sign in, or use a personal access token/)
    }
    const problem = async (method: string, url: string) => ({ status: (await browser.json(method, url)).status })
    expect(await problem('POST', `${base}/ghost/favorites`)).toEqual({ status: 404 })
    expect(await problem('POST', '/api/admin/projects/ghost/favorites')).toEqual({ status: 404 })
    expect(await problem('DELETE', '/api/admin/projects/ghost/favorites')).toEqual({ status: 404 })
    const res = await browser.json('POST', `/api/admin/projects/fav-other/features/${feature}/favorites`)
    expect(res.status).toBe(404)
    expect(((await res.json()) as any).message).toBe(`Feature ${feature} does not exist in project fav-other`)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('the personal dashboard', () => {
  it('lists the favourite flags and those the person created, newest first, their projects (role or favourite), the Admins', async () => {
    const me = await signedIn(t, server, 'Editor')
    const project = uniqueName('dash')
    await send('POST', '/api/admin/projects', { id: project, name: `Dashboard ${project}` })
    const mine = uniqueName('mine')
    expect((await me.browser.json('POST', `/api/admin/projects/${project}/features`, { name: mine, type: 'experiment' })).status).toBe(201)
    const liked = await createFeature(t.app)
    await me.browser.json('POST', `${base}/${liked}/favorites`)
    await me.browser.json('POST', `/api/admin/projects/${project}/favorites`)
    const archived = uniqueName('gone')
    await me.browser.json('POST', `/api/admin/projects/${project}/features`, { name: archived })
    await me.browser.json('DELETE', `/api/admin/projects/${project}/features/${archived}`)

    const dashboard = (await (await me.browser.fetch('/api/admin/personal-dashboard')).json()) as any
    expect(dashboard.flags).toEqual([
      { name: liked, project: 'default', type: 'release' },
      { name: mine, project, type: 'experiment' },
    ])
    expect(dashboard.projects).toEqual([{ id: project, name: `Dashboard ${project}`, health: 100, technicalDebt: 0, memberCount: 0, featureCount: 1 }])
    expect(dashboard.projectOwners).toEqual([])
    const admin = await signedIn(t, server, 'Admin')
    expect(((await (await me.browser.fetch('/api/admin/personal-dashboard')).json()) as any).admins.map((a: any) => a.id)).toContain(admin.id)
  })

  it("one project: its latest events, onboarding, the person's roles there, the health of its flags; 404 for a project that is not there", async () => {
    const member = await signedIn(t, server, 'Viewer')
    const project = uniqueName('dash')
    await send('POST', '/api/admin/projects', { id: project, name: project })
    await send('POST', `/api/admin/projects/${project}/environments`, { environment: 'development' })
    const read = async () => (await (await member.browser.fetch(`/api/admin/personal-dashboard/${project}`)).json()) as any
    const empty = await read()
    expect(empty).toMatchObject({ onboardingStatus: { status: 'onboarding-started' }, owners: [{ ownerType: 'system' }], roles: [] })
    expect(empty.insights).toEqual({ avgHealthCurrentWindow: null, avgHealthPastWindow: null, totalFlags: 0, activeFlags: 0, staleFlags: 0, potentiallyStaleFlags: 0, health: 100, technicalDebt: 0 })

    await send('PUT', `/api/admin/projects/${project}/users/${member.id}/roles`, { roles: [5] })
    const [fresh, stale] = [await createFeature(t.app, project), await createFeature(t.app, project)]
    await send('PATCH', `/api/admin/projects/${project}/features/${stale}`, [{ op: 'replace', path: '/stale', value: true }])
    const details = await read()
    expect(details.onboardingStatus).toEqual({ status: 'first-flag-created', feature: fresh })
    expect(details.roles).toEqual([{ id: 5, name: 'Member', type: 'project' }])
    expect(details.insights).toMatchObject({ totalFlags: 2, activeFlags: 1, staleFlags: 1, potentiallyStaleFlags: 0, health: 50, technicalDebt: 50 })
    expect(details.latestEvents[0]).toEqual({ id: expect.any(Number), summary: null, createdBy: expect.any(String), createdByImageUrl: '', createdAt: expect.any(String) })
    expect(details.latestEvents.length).toBeLessThanOrEqual(10)

    const res = await member.browser.fetch('/api/admin/personal-dashboard/ghost')
    expect(res.status).toBe(404)
    expect(((await res.json()) as any).message).toBe('Project ghost does not exist')
  })
})
