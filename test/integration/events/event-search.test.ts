/**
 * The event log as Unleash's clients read it: `search/events` with Unleash's filters (and the
 * visibility of the events list), `event-creators`, a feature's events, and the events list in
 * Unleash's shape (`version`).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createFeature, createToken, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { listen, signedIn } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp()
const { admin, as } = requests(t)

type Found = { id: number, type: string, featureName: string | null, project: string | null, createdBy: string, createdByUserId: number | null, groupId: string, data: unknown }
const search = async (query: string, secret?: string) => {
  const res = await as(secret).get(`/api/admin/search/events?${query}`)
  expect(res.statusCode, res.body).toBe(200)
  return json(res) as { events: Found[], total: number }
}

let project = ''
let feature = ''
let editor: Awaited<ReturnType<typeof signedIn>>
beforeAll(async () => {
  project = uniqueName('log')
  await admin.post('/api/admin/projects', { id: project, name: 'Log' })
  await admin.post(`/api/admin/projects/${project}/environments`, { environment: 'development' })
  feature = await createFeature(t.app, project)
  await admin.post(`/api/admin/projects/${project}/features/${feature}/environments/development/strategies`, { name: 'default', title: '100% off the 50_50 plan' })
  // Switching on, then removing the last strategy: the removal switches it off in the same change.
  await admin.post(`/api/admin/projects/${project}/features/${feature}/environments/development/on`)
  editor = await signedIn(t, await listen(t), 'Editor')
  await editor.browser.json('POST', `/api/admin/projects/${project}/features`, { name: uniqueName('by-editor') })
})

describe('search/events', () => {
  it('finds by feature, type, project, environment and id, newest first, with the total and a page of it', async () => {
    const mine = await search(`feature=IS:${feature}`)
    expect(mine.events.map((e) => e.type)).toEqual(['feature-environment-enabled', 'feature-strategy-add', 'feature-created'])
    expect(mine.total).toBe(3)
    expect(mine.events.every((e) => e.featureName === feature)).toBe(true)
    const page = await search(`feature=IS:${feature}&limit=1&offset=1`)
    expect(page).toEqual({ events: [mine.events[1]], total: 3 })
    expect((await search(`feature=IS:${feature}&type=IS_ANY_OF:feature-created,feature-strategy-add`)).events.map((e) => e.type)).toEqual(['feature-strategy-add', 'feature-created'])
    expect((await search(`feature=IS:${feature}&type=IS_NOT:feature-created`)).total).toBe(2)
    expect((await search(`project=IS:${project}&environment=IS:development`)).events.map((e) => e.type)).toEqual(['feature-environment-enabled', 'feature-strategy-add', 'project-environment-added'])
    expect((await search(`id=IS_ANY_OF:${mine.events[0]!.id},${mine.events[2]!.id}`)).events.map((e) => e.id)).toEqual([mine.events[0]!.id, mine.events[2]!.id])
    expect((await search(`project=IS_NONE_OF:${project}&feature=IS:${feature}`)).total).toBe(0)
  })

  it('finds free text in the data (its % and _ taken literally), and the events of one change by groupId', async () => {
    expect((await search('query=50_50')).events.map((e) => e.featureName)).toEqual([feature])
    expect((await search('query=50%25_50')).total).toBe(0)
    const strategy = json(await admin.get(`/api/admin/projects/${project}/features/${feature}/environments/development/strategies`))[0]
    await admin.delete(`/api/admin/projects/${project}/features/${feature}/environments/development/strategies/${strategy.id}`)
    const [newest] = (await search(`feature=IS:${feature}&limit=1`)).events
    const change = await search(`groupId=IS:${newest!.groupId}`)
    expect(change.events.map((e) => e.type).sort()).toEqual(['feature-environment-disabled', 'feature-strategy-remove'])
  })

  it("finds by creator: a person's id, API tokens (-42), a token's name; and by day", async () => {
    const byEditor = await search(`createdBy=IS:${editor.id}&project=IS:${project}`)
    expect(byEditor.events.map((e) => [e.type, e.createdByUserId])).toEqual([['feature-created', editor.id]])
    const byTokens = await search(`createdBy=IS:-42&feature=IS:${feature}`)
    expect(byTokens.total).toBeGreaterThanOrEqual(3)
    expect(byTokens.events.every((e) => e.createdByUserId === null)).toBe(true)
    const tokenName = byTokens.events[0]!.createdBy
    expect((await search(`createdBy=IS:${tokenName}&feature=IS:${feature}`)).total).toBe(byTokens.total)
    const today = new Date().toISOString().slice(0, 10)
    expect((await search(`from=IS:${today}&to=IS:${today}&feature=IS:${feature}`)).total).toBe(byTokens.total)
    expect((await search(`to=IS:2000-01-01&feature=IS:${feature}`)).total).toBe(0)
  })

  it('sees what the events list shows: a token its projects, an Editor no event about tokens, people or webhooks', async () => {
    const scoped = await createToken(t.app, { projects: ['default'] })
    expect((await search(`feature=IS:${feature}`, scoped)).total).toBe(0)
    const all = await search('type=IS:api-token-created')
    expect(all.total).toBeGreaterThan(0)
    const asEditor = await (await editor.browser.json('GET', '/api/admin/search/events?type=IS:api-token-created')).json() as { total: number }
    expect(asEditor.total).toBe(0)
  })

  it('refuses filters not in Unleash\'s form with 400 naming them; nothing changed', async () => {
    const before = await databaseFingerprint(t.database.db)
    for (const [query, path] of [
      ['feature=my-flag', '/query/feature'],
      ['type=LIKE:feature', '/query/type'],
      ['id=IS:abc', '/query/id'],
      ['groupId=IS:-5', '/query/groupId'],
      ['from=2024-01-01', '/query/from'],
      ['to=IS:2024-02-30', '/query/to'],
      ['limit=1001', '/query/limit'],
      [`project=IS_ANY_OF:${Array.from({ length: 101 }, (_, i) => `p${i}`).join(',')}`, '/query/project'],
    ] as const) {
      const refused = expectProblem(await admin.get(`/api/admin/search/events?${query}`), 400, 'BadDataError')
      expect(refused.details[0].path, query).toBe(path)
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('event-creators, a feature\'s events, the events list', () => {
  it('lists each person by id and name, API tokens as -42 and the server as -1337, as Unleash', async () => {
    await t.database.db.insertInto('events').values({ type: 'user-created', created_by: 'system', data: '{}' }).execute()
    const creators = json(await admin.get('/api/admin/event-creators')) as { id: number, name: string }[]
    expect(creators).toContainEqual({ id: -42, name: 'API tokens' })
    expect(creators).toContainEqual({ id: -1337, name: 'Unleash System' })
    const person = creators.find((c) => c.id === editor.id)
    expect(person?.name).toBe(editor.login)
    expect(new Set(creators.map((c) => c.id)).size).toBe(creators.length)
  })

  it("answers a feature's newest 50 events with its name and total; none for one that never was", async () => {
    const res = await admin.get(`/api/admin/events/${feature}`)
    expect(res.statusCode).toBe(200)
    const body = json(res)
    expect(body).toMatchObject({ version: 1, toggleName: feature, totalEvents: body.events.length })
    expect(body.events[0]).not.toHaveProperty('groupId')
    expect(body.events.at(-1).type).toBe('feature-created')
    expect(json(await admin.get('/api/admin/events/never-was'))).toEqual({ version: 1, toggleName: 'never-was', events: [], totalEvents: 0 })
  })

  it('the events list answers version 1, as Unleash', async () => {
    expect(json(await admin.get('/api/admin/events?limit=1'))).toMatchObject({ version: 1, events: [expect.any(Object)] })
  })
})
