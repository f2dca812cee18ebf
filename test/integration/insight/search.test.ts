/**
 * Feature search as Unleash 8.2 answers it: the grammar's filters, the orders and their ties,
 * pages, what each feature's environments say, the token's scope, and the refusals.
 */
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createToken, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'

const t = useTestApp()
const { admin, send, clientToken } = requests(t)

/** A project of its own, with development and production, and features created one after another in this order. */
async function project (...features: (string | { name: string; type?: string; description?: string })[]) {
  const id = uniqueName('s')
  expect((await admin.post('/api/admin/projects', { id, name: id })).statusCode).toBe(201)
  for (const environment of ['development', 'production']) await admin.post(`/api/admin/projects/${id}/environments`, { environment })
  for (const f of features) {
    const body = typeof f === 'string' ? { name: f } : f
    expect((await admin.post(`/api/admin/projects/${id}/features`, body)).statusCode).toBe(201)
  }
  return id
}

const search = async (query: string, secret?: string) => {
  const res = await send('GET', `/api/admin/search/features?${query}`, undefined, secret)
  expect(res.statusCode, res.body).toBe(200)
  return json(res) as { features: any[]; total: number }
}
const names = async (query: string, secret?: string) => (await search(query, secret)).features.map((f) => f.name)
const on = (p: string, f: string, env: string) => admin.post(`/api/admin/projects/${p}/features/${f}/environments/${env}/on`)
const at = (iso: string) => new Date(iso)
/** Sets when a feature was created (what orders and ages it). */
const createdAt = (feature: string, when: Date) => t.database.db.updateTable('features').set({ created_at: when } as never).where('name', '=', feature).execute()

describe('filters', () => {
  it('query: comma-separated parts, any of them, a case-insensitive substring of the name or description; % and _ are literal', async () => {
    const a = uniqueName('Alpha')
    const b = uniqueName('beta')
    const c = uniqueName('gamma')
    const d = uniqueName('x_y')
    const p = await project(a, { name: b, description: 'About the CHECKOUT page' }, c, d)
    expect(await names(`project=IS:${p}&query=alpha`)).toEqual([a])
    expect(await names(`project=IS:${p}&query=${encodeURIComponent(' checkout , GAMMA ')}`)).toEqual([b, c])
    expect(await names(`project=IS:${p}&query=x_y`)).toEqual([d])
    expect(await names(`project=IS:${p}&query=x%25y`)).toEqual([])
    expect(await names(`project=IS:${p}&query=${encodeURIComponent(' , ')}`)).toEqual([a, b, c, d])
  })

  it('project, type: IS, IS_NOT, IS_ANY_OF, IS_NONE_OF', async () => {
    const [r, e, k] = [uniqueName('r'), uniqueName('e'), uniqueName('k')]
    const p = await project({ name: r, type: 'release' }, { name: e, type: 'experiment' }, { name: k, type: 'kill-switch' })
    expect(await names(`project=IS:${p}&type=IS:experiment`)).toEqual([e])
    expect(await names(`project=IS:${p}&type=IS_NOT:experiment`)).toEqual([r, k])
    expect(await names(`project=IS:${p}&type=IS_ANY_OF:release,kill-switch`)).toEqual([r, k])
    expect(await names(`project=IS:${p}&type=IS_NONE_OF:release,kill-switch`)).toEqual([e])
    expect(await names(`project=IS_ANY_OF:${p},nowhere&type=IS:release`)).toEqual([r])
    expect((await search(`project=IS_NONE_OF:${p}`)).features.some((f) => f.project === p)).toBe(false)
  })

  it('status: repeated values are OR\'ed, and the environments shown are those that pass (as Unleash)', async () => {
    const [x, y, z] = [uniqueName('x'), uniqueName('y'), uniqueName('z')]
    const p = await project(x, y, z)
    await on(p, x, 'production')
    await on(p, y, 'development')
    await on(p, y, 'production')
    const found = await search(`project=IS:${p}&status=production:enabled&status=development:disabled`)
    expect(found.features.map((f) => [f.name, f.environments.map((e: any) => `${e.name}:${e.enabled}`)])).toEqual([
      [x, ['development:false', 'production:true']],
      [y, ['production:true']],
      [z, ['development:false']],
    ])
    expect(await names(`project=IS:${p}&status=production:enabled`)).toEqual([x, y])
    // Values other than environment:enabled|disabled are ignored.
    expect(await names(`project=IS:${p}&status=production:maybe`)).toEqual([x, y, z])
  })

  it('state: active is not stale; stale; potentially stale is not stale and past its type\'s lifetime', async () => {
    const [fresh, old, marked] = [uniqueName('fresh'), uniqueName('old'), uniqueName('marked')]
    const p = await project(fresh, { name: old, type: 'experiment' }, marked)
    await createdAt(old, new Date(Date.now() - 41 * 24 * 3_600_000))
    expect((await admin.post(`/api/admin/projects/${p}/stale`, { features: [marked], stale: true })).statusCode).toBe(202)
    const q = `project=IS:${p}&sortBy=name`
    const sorted = [fresh, old, marked].sort()
    expect(await names(`${q}&state=IS:active`)).toEqual([fresh, old].sort())
    expect(await names(`${q}&state=IS:stale`)).toEqual([marked])
    expect(await names(`${q}&state=IS_NOT:stale`)).toEqual([fresh, old].sort())
    expect(await names(`${q}&state=IS:potentially-stale`)).toEqual([old])
    expect(await names(`${q}&state=IS_NOT:potentially-stale`)).toEqual([fresh, marked].sort())
    expect(await names(`${q}&state=IS_ANY_OF:stale,potentially-stale`)).toEqual([old, marked].sort())
    expect(await names(`${q}&state=IS_NONE_OF:stale,potentially-stale`)).toEqual([fresh])
    expect(await names(`${q}&state=IS_ANY_OF:active,potentially-stale`)).toEqual([fresh, old].sort())
    expect(await names(`${q}&state=IS_ANY_OF:active,stale,potentially-stale`)).toEqual(sorted)
    expect(await names(`${q}&state=IS_NONE_OF:active,stale,potentially-stale`)).toEqual([])
    const listed = (await search(`${q}`)).features
    expect(listed.find((f) => f.name === marked).stale).toBe(true)
  })

  it('lifecycle and archived: stages of flags not archived; the stage archived stands for archived flags', async () => {
    const [a, b, gone] = [uniqueName('a'), uniqueName('b'), uniqueName('gone')]
    const p = await project(a, b, gone)
    await admin.post(`/api/admin/projects/${p}/features/${b}/lifecycle/complete`, { status: 'kept' })
    await admin.delete(`/api/admin/projects/${p}/features/${gone}`)
    const q = `project=IS:${p}`
    expect(await names(q)).toEqual([a, b])
    expect(await names(`${q}&archived=IS:true`)).toEqual([gone])
    expect(await names(`${q}&lifecycle=IS:completed`)).toEqual([b])
    expect(await names(`${q}&lifecycle=IS_NOT:completed`)).toEqual([a])
    expect(await names(`${q}&lifecycle=IS_ANY_OF:initial,archived`)).toEqual([a, gone])
    expect(await names(`${q}&lifecycle=IS:archived`)).toEqual([gone])
    expect(await names(`${q}&lifecycle=IS:initial&archived=IS:true`)).toEqual([])
    expect(await names(`${q}&lifecycle=IS_NOT:initial&archived=IS:true`)).toEqual([gone])
    const archived = (await search(`${q}&archived=IS:true`)).features[0]
    expect(archived.archivedAt).not.toBeNull()
    expect(archived.lifecycle.stage).toBe('archived')
  })

  it('tag: any of them (only those tags shown, as Unleash), none, all, not all', async () => {
    const [both, red, none] = [uniqueName('both'), uniqueName('red'), uniqueName('none')]
    const p = await project(both, red, none)
    for (const [f, value] of [[both, 'red'], [both, 'blue'], [red, 'red']] as const) {
      expect((await admin.post(`/api/admin/features/${f}/tags`, { type: 'simple', value })).statusCode).toBe(201)
    }
    const q = `project=IS:${p}`
    const any = await search(`${q}&tag=INCLUDE_ANY_OF:simple:red`)
    expect(any.features.map((f) => [f.name, f.tags.map((x: any) => x.value)])).toEqual([[both, ['red']], [red, ['red']]])
    expect(await names(`${q}&tag=INCLUDE:simple:blue`)).toEqual([both])
    expect(await names(`${q}&tag=DO_NOT_INCLUDE:simple:red`)).toEqual([none])
    expect(await names(`${q}&tag=EXCLUDE_IF_ANY_OF:simple:red,simple:blue`)).toEqual([none])
    const all = await search(`${q}&tag=INCLUDE_ALL_OF:simple:red,simple:blue`)
    expect(all.features.map((f) => [f.name, f.tags.map((x: any) => x.value).sort()])).toEqual([[both, ['blue', 'red']]])
    expect(await names(`${q}&tag=EXCLUDE_ALL:simple:red,simple:blue`)).toEqual([red, none])
  })

  it('segment: features whose strategies use them; the segments each uses are listed', async () => {
    const [used, plain] = [uniqueName('used'), uniqueName('plain')]
    const p = await project(used, plain)
    const segment = json(await admin.post('/api/admin/segments', { name: uniqueName('seg'), constraints: [] }))
    const res = await admin.post(`/api/admin/projects/${p}/features/${used}/environments/development/strategies`, { name: 'default', segments: [segment.id] })
    expect(res.statusCode, res.body).toBe(200)
    const q = `project=IS:${p}`
    const found = await search(`${q}&segment=INCLUDE:${segment.name}`)
    expect(found.features.map((f) => [f.name, f.segments])).toEqual([[used, [segment.name]]])
    expect(await names(`${q}&segment=DO_NOT_INCLUDE:${segment.name}`)).toEqual([plain])
    expect(await names(`${q}&segment=INCLUDE_ALL_OF:${segment.name},other`)).toEqual([])
  })

  it('createdAt and createdBy: a day before or on and after; -42 for flags an API token created', async () => {
    const [early, late] = [uniqueName('early'), uniqueName('late')]
    const p = await project(early, late)
    await createdAt(early, at('2024-03-01T12:00:00Z'))
    await createdAt(late, at('2024-03-02T00:00:00Z'))
    const q = `project=IS:${p}`
    expect(await names(`${q}&createdAt=IS_BEFORE:2024-03-02`)).toEqual([early])
    expect(await names(`${q}&createdAt=IS_ON_OR_AFTER:2024-03-02`)).toEqual([late])
    expect(await names(`${q}&createdBy=IS:-42`)).toEqual([early, late])
    expect(await names(`${q}&createdBy=IS_NOT:-42`)).toEqual([])
    const feature = (await search(q)).features[0]
    expect(feature.createdBy).toEqual({ id: -42, name: 'Unleash Admin Token User', imageUrl: expect.stringMatching(/^https:\/\/gravatar\.com\/avatar\/[0-9a-f]{64}\?s=42&d=retro&r=g$/) })
  })
})

describe('order and pages', () => {
  it('without sortBy: createdAt ascending; desc; ties by createdAt, then name', async () => {
    const [c, a, b] = [uniqueName('oc'), uniqueName('oa'), uniqueName('ob')]
    const p = await project(c, a, b)
    const same = at('2025-01-01T00:00:00Z')
    await createdAt(a, same)
    await createdAt(b, same)
    await createdAt(c, at('2024-01-01T00:00:00Z'))
    const [first, second] = [a, b].sort() as [string, string]
    expect(await names(`project=IS:${p}`)).toEqual([c, first, second])
    expect(await names(`project=IS:${p}&sortOrder=desc`)).toEqual([first, second, c])
    expect(await names(`project=IS:${p}&sortBy=type&sortOrder=desc`)).toEqual([c, first, second])
    expect(await names(`project=IS:${p}&sortBy=name&sortOrder=desc`)).toEqual([c, a, b].sort().reverse())
  })

  it('environment:<name> sorts by enabled there, features without it last; lastSeenAt puts never seen last', async () => {
    const [off, onn, seen] = [uniqueName('off'), uniqueName('on'), uniqueName('seen')]
    const p = await project(off, onn, seen)
    await on(p, onn, 'production')
    const q = `project=IS:${p}`
    expect(await names(`${q}&sortBy=environment:production`)).toEqual([off, seen, onn])
    expect(await names(`${q}&sortBy=environment:production&sortOrder=desc`)).toEqual([onn, off, seen])
    expect(await names(`${q}&sortBy=environment:nowhere&sortOrder=desc`)).toEqual([off, onn, seen])
    const secret = await clientToken('production')
    const now = new Date().toISOString()
    expect((await send('POST', '/api/client/metrics', { appName: 'sorting', instanceId: 'i', bucket: { start: now, stop: now, toggles: { [seen]: { yes: 3, no: 1 } } } }, secret)).statusCode).toBe(202)
    await t.app.usage.flush()
    expect(await names(`${q}&sortBy=lastSeenAt`)).toEqual([seen, off, onn])
    expect(await names(`${q}&sortBy=lastSeenAt&sortOrder=desc`)).toEqual([seen, off, onn])
    const found = (await search(`${q}&query=${seen}`)).features[0]
    const production = found.environments.find((e: any) => e.name === 'production')
    expect(production).toMatchObject({ yes: 3, no: 1, type: 'production', sortOrder: 3 })
    expect(Date.parse(production.lastSeenAt)).toBeGreaterThan(Date.now() - 60_000)
    expect(found.environments.find((e: any) => e.name === 'development')).toMatchObject({ yes: 0, no: 0, lastSeenAt: null, sortOrder: 2 })
    expect(await names(`${q}&lastSeenAt=IS_ON_OR_AFTER:2020-01-01`)).toEqual([seen])
    expect(await names(`${q}&lastSeenAt=IS_BEFORE:2020-01-01`)).toEqual([])
  })

  it('offset and limit: 50 by default, at most 100 (anything else is 50); total counts them all', async () => {
    const many = Array.from({ length: 60 }, (_, i) => `page-${String(i).padStart(2, '0')}-${uniqueName('x')}`)
    const p = await project()
    const values = many.map((name) => ({ name, project_id: p, type: 'release' }))
    await t.database.db.insertInto('features').values(values).execute()
    const q = `project=IS:${p}&sortBy=name`
    const first = await search(q)
    expect(first.total).toBe(60)
    expect(first.features.map((f) => f.name)).toEqual(many.slice(0, 50))
    expect(await names(`${q}&offset=55`)).toEqual(many.slice(55))
    expect(await names(`${q}&limit=5&offset=10`)).toEqual(many.slice(10, 15))
    expect((await search(`${q}&limit=101`)).features).toHaveLength(50)
    expect((await search(`${q}&limit=abc&offset=-3`)).features).toHaveLength(50)
  })

  it('environment summaries: type, strategies, variants; the order Unleash gives its environments', async () => {
    const f = uniqueName('sum')
    const p = await project(f)
    await admin.post(`/api/admin/projects/${p}/features/${f}/environments/production/strategies`, { name: 'default', disabled: true })
    await admin.put(`/api/admin/projects/${p}/features/${f}/environments/development/variants`, [{ name: 'a', weight: 500, weightType: 'variable', stickiness: 'default' }, { name: 'b', weight: 500, weightType: 'variable', stickiness: 'default' }])
    const [feature] = (await search(`project=IS:${p}`)).features
    expect(feature).toMatchObject({ name: f, project: p, stale: false, favorite: false, impressionData: false, dependencyType: null, archivedAt: null, segments: [], lifecycle: { stage: 'initial' } })
    expect(feature.environments.map((e: any) => [e.name, e.variantCount, e.hasStrategies, e.hasEnabledStrategies])).toEqual([
      ['development', 2, false, false],
      ['production', 0, true, false],
    ])
  })
})

describe('scope and refusals', () => {
  it('a token limited to a project and environment finds only those', async () => {
    const [mine, theirs] = [uniqueName('mine'), uniqueName('theirs')]
    const p = await project(mine)
    await project(theirs)
    const scoped = await createToken(t.app, { type: 'admin', projects: [p], environments: ['production'] })
    const found = await search('', scoped)
    expect(found.features.map((f) => f.name)).toEqual([mine])
    expect(found.features[0].environments.map((e: any) => e.name)).toEqual(['production'])
  })

  it('operators a parameter does not accept, dates that are no days, an unknown sort order and a user id that is not a number are 400', async () => {
    for (const query of ['type=IS_BEFORE:x', 'project=INCLUDE:default', 'tag=IS:simple:a', 'tag=INCLUDE:nocolon', 'createdAt=IS:2024-01-01', 'createdAt=IS_BEFORE:2024-13-40', 'lastSeenAt=IS_BEFORE:yesterday', 'archived=true', 'favorite=IS:maybe', 'sortOrder=up', 'createdBy=IS:alice']) {
      const res = await admin.get(`/api/admin/search/features?${query}`)
      expectProblem(res, 400, 'BadDataError')
    }
  })

  it('favourites are not kept: favorite=IS:true finds nothing, IS:false everything', async () => {
    const f = uniqueName('fav')
    const p = await project(f)
    expect(await names(`project=IS:${p}&favorite=IS:true`)).toEqual([])
    expect(await names(`project=IS:${p}&favorite=IS:false&favoritesFirst=true`)).toEqual([f])
  })

  it('reads nothing it should not: the search is one read, whatever the filters', async () => {
    const before = await sql<{ n: string }>`select count(*) as n from events`.execute(t.database.db)
    await search('query=a&state=IS:stale&tag=INCLUDE:simple:x&segment=EXCLUDE_ALL:a,b&status=development:enabled&sortBy=lastSeenAt')
    const after = await sql<{ n: string }>`select count(*) as n from events`.execute(t.database.db)
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n)
  })
})
