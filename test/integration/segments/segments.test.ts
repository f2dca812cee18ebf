/**
 * Segments through Unleash's admin API paths and bodies: their writes, limits and refusals,
 * strategies that use them, and how the client API serves them.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { auth, createFeature, createToken, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { listen, signedIn } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp({ MAX_SEGMENTS_PER_STRATEGY: '2', MAX_SEGMENT_VALUES: '5', CLIENT_STATE_CACHE_MS: '0' })

const base = '/api/admin/projects/default/features'
const strategiesUrl = (feature: string) => `${base}/${feature}/environments/development/strategies`
const { as, clientToken, send } = requests(t)
const post = (url: string, payload?: unknown, secret?: string) => send('POST', url, payload, secret)

const inVersion = { contextName: 'appVersion', operator: 'SEMVER_GTE', value: '2.0.0' }

async function createSegment (body: object = {}) {
  const res = await post('/api/admin/segments', { name: uniqueName('segment'), constraints: [inVersion], ...body })
  expect(res.statusCode, res.body).toBe(201)
  return json(res)
}

const poll = (secret: string, feature: string, spec?: string) =>
  as(secret).get(`/api/client/features?namePrefix=${feature}`, spec === undefined ? {} : { 'unleash-client-spec': spec })

describe('segments', () => {
  it('create (201, Location), read, list with usage, replace (204), validate, delete (204), each write with its event', async () => {
    const name = uniqueName('beta')
    const created = await post('/api/admin/segments', { name, description: 'beta users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['a', 'b'] }] })
    expect(created.statusCode).toBe(201)
    const segment = json(created)
    expect(created.headers.location).toBe(`segments/${segment.id}`)
    expect(segment).toEqual({ id: expect.any(Number), name, description: 'beta users', project: null, constraints: [{ contextName: 'userId', operator: 'IN', values: ['a', 'b'] }], createdBy: expect.stringMatching(/^init-admin-/), createdAt: expect.any(String) })
    expect(json(await send('GET', `/api/admin/segments/${segment.id}`))).toEqual(segment)
    expectProblem(await post('/api/admin/segments/validate', { name }), 409, 'NameExistsError')
    expect((await post('/api/admin/segments/validate', { name: uniqueName('free') })).statusCode).toBe(204)
    const replaced = await send('PUT', `/api/admin/segments/${segment.id}`, { name, constraints: [inVersion] })
    expect(replaced.statusCode).toBe(204)
    expect(json(await send('GET', `/api/admin/segments/${segment.id}`)).constraints).toEqual([inVersion])
    const listed = json(await send('GET', '/api/admin/segments')).segments.find((s: { id: number }) => s.id === segment.id)
    expect(listed).toMatchObject({ usedInFeatures: 0, usedInProjects: 0 })
    expect((await send('DELETE', `/api/admin/segments/${segment.id}`)).statusCode).toBe(204)
    expectProblem(await send('GET', `/api/admin/segments/${segment.id}`), 404, 'NotFoundError')
    const events = await t.database.db.selectFrom('events').select(['type', 'data', 'pre_data']).where('type', 'like', 'segment-%').orderBy('id', 'desc').limit(3).execute()
    expect(events.map((e) => e.type).reverse()).toEqual(['segment-created', 'segment-updated', 'segment-deleted'])
  })

  it('strategies use segments by id; a segment in use cannot be deleted (409 naming where); its strategies are listed', async () => {
    const feature = await createFeature(t.app)
    const segment = await createSegment()
    const strategy = json(await post(strategiesUrl(feature), { name: 'default', segments: [segment.id] }))
    expect(strategy.segments).toEqual([segment.id])
    const uses = json(await send('GET', `/api/admin/segments/${segment.id}/strategies`))
    expect(uses).toEqual({ strategies: [{ id: strategy.id, projectId: 'default', featureName: feature, strategyName: 'default', environment: 'development' }], changeRequestStrategies: [] })
    const before = await databaseFingerprint(t.database.db)
    const refused = expectProblem(await send('DELETE', `/api/admin/segments/${segment.id}`), 409, 'InUseError')
    expect(refused.message).toContain(feature)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('refuses: unknown segment ids (400 naming them), too many segments per strategy, another project\'s segment, too many values, invalid constraints; nothing stored', async () => {
    await post('/api/admin/projects', { id: 'seg-elsewhere', name: 'Elsewhere' })
    const feature = await createFeature(t.app)
    const a = await createSegment()
    const b = await createSegment()
    const c = await createSegment()
    const foreign = await createSegment({ project: 'seg-elsewhere' })
    const before = await databaseFingerprint(t.database.db)
    const cases: [string, unknown, string, RegExp][] = [
      [strategiesUrl(feature), { name: 'default', segments: [a.id, 999_999] }, '/body/segments/1', /names no segment: 999999/],
      [strategiesUrl(feature), { name: 'default', segments: [a.id, b.id, c.id] }, '/body/segments', /must NOT have more than 2 items/],
      [strategiesUrl(feature), { name: 'default', segments: [foreign.id] }, '/body/segments/0', /of project seg-elsewhere/],
      [strategiesUrl(feature), { name: 'default', segments: [a.id, a.id] }, '/body/segments', /duplicate items/],
      ['/api/admin/segments', { name: 'many', constraints: [{ contextName: 'x', operator: 'IN', values: ['1', '2', '3'] }, { contextName: 'y', operator: 'IN', values: ['1', '2', '3'] }] }, '/body/constraints', /MAX_SEGMENT_VALUES/],
      ['/api/admin/segments', { name: 'bad', constraints: [{ contextName: 'x', operator: 'REGEX', value: '(' }] }, '/body/constraints/0/value', /RE2/],
      ['/api/admin/segments', { name: a.name, constraints: [] }, '', /already exists/],
    ]
    for (const [url, body, path, rule] of cases) {
      const res = await post(url, body)
      const problem = json(res)
      expect([400, 409], res.body).toContain(res.statusCode)
      if (path) expect(problem.details[0].path, JSON.stringify(body)).toBe(path)
      expect(problem.message).toMatch(rule)
    }
    // Moving a segment in use to another project would exclude its strategies.
    await post(strategiesUrl(feature), { name: 'default', segments: [b.id] })
    const moved = await send('PUT', `/api/admin/segments/${b.id}`, { name: b.name, project: 'seg-elsewhere', constraints: [] })
    expect(expectProblem(moved, 400, 'BadDataError').details[0].path).toBe('/body/project')
    const stored = await databaseFingerprint(t.database.db)
    expect(stored.segments).toEqual(before.segments)
  })

  it('a scoped token sees only global segments and its projects\' ones, and cannot manage segments (403)', async () => {
    await post('/api/admin/projects', { id: 'seg-hidden', name: 'Hidden' })
    const hidden = await createSegment({ project: 'seg-hidden' })
    const scoped = await createToken(t.app, { projects: ['default'] })
    const seen = json(await send('GET', '/api/admin/segments', undefined, scoped)).segments.map((s: { id: number }) => s.id)
    expect(seen).not.toContain(hidden.id)
    expectProblem(await send('GET', `/api/admin/segments/${hidden.id}`, undefined, scoped), 404, 'NotFoundError')
    expectProblem(await post('/api/admin/segments', { name: 'x', constraints: [] }, scoped), 403, 'PermissionError')
  })

  it('the client API: top-level segments for Unleash-Client-Spec >= 4.2.0, constraints inlined for older SDKs; the ETag covers the choice; a segment change moves it', async () => {
    const feature = await createFeature(t.app)
    const segment = await createSegment()
    await post(strategiesUrl(feature), { name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u'] }], segments: [segment.id] })
    await post(`${base}/${feature}/environments/development/on`)
    const secret = await clientToken()
    const modern = await poll(secret, feature, '5.2.0')
    expect(json(modern).segments).toEqual([{ id: segment.id, name: segment.name, constraints: [inVersion] }])
    expect(json(modern).features[0].strategies).toEqual([{ name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u'] }], parameters: {}, variants: [], segments: [segment.id] }])
    expect(json(modern).query.inlineSegmentConstraints).toBe(false)
    const old = await poll(secret, feature)
    expect(json(old).segments).toBeUndefined()
    expect(json(old).features[0].strategies).toEqual([{ name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u'] }, inVersion], parameters: {}, variants: [] }])
    expect(json(old).query.inlineSegmentConstraints).toBe(true)
    expect(old.headers.etag).not.toBe(modern.headers.etag)
    expect((await poll(secret, feature, '4.1.9')).headers.etag).toBe(old.headers.etag)
    expectProblem(await poll(secret, feature, 'v5'), 400, 'BadDataError')
    await send('PUT', `/api/admin/segments/${segment.id}`, { name: segment.name, constraints: [] })
    const after = await t.app.inject({ method: 'GET', url: `/api/client/features?namePrefix=${feature}`, headers: { ...auth(secret), 'unleash-client-spec': '5.2.0', 'if-none-match': modern.headers.etag as string } })
    expect(after.statusCode).toBe(200)
    expect(json(after).segments[0].constraints).toEqual([])
  })
})

describe("a strategy's segments by the strategy's id (Unleash's /api/admin/segments/strategies)", () => {
  const setSegments = (body: object, secret?: string) => post('/api/admin/segments/strategies', body, secret)
  beforeAll(async () => {
    await send('POST', '/api/admin/projects', { id: 'seg-elsewhere', name: 'Elsewhere' })
    await send('POST', '/api/admin/projects/seg-elsewhere/environments', { environment: 'development' })
  })

  it('reads them, and sets exactly the ones sent (201 with the body and Location; feature-strategy-update with before and after)', async () => {
    const [a, b, c] = [await createSegment(), await createSegment(), await createSegment()]
    const feature = await createFeature(t.app)
    const strategy = json(await post(strategiesUrl(feature), { name: 'default', segments: [a.id] }))
    const read = await send('GET', `/api/admin/segments/strategies/${strategy.id}`)
    expect(read.statusCode).toBe(200)
    expect(json(read)).toEqual({ segments: [a] })
    const body = { projectId: 'default', environmentId: 'development', strategyId: strategy.id, segmentIds: [c.id, b.id] }
    const set = await setSegments(body)
    expect(set.statusCode, set.body).toBe(201)
    expect(json(set)).toEqual(body)
    expect(set.headers.location).toBe(`strategies/${strategy.id}`)
    expect(json(await send('GET', `/api/admin/segments/strategies/${strategy.id}`)).segments.map((s: { id: number }) => s.id)).toEqual([b.id, c.id])
    const [event] = await t.database.db.selectFrom('events').selectAll().where('feature_name', '=', feature).orderBy('id', 'desc').limit(1).execute()
    expect(event).toMatchObject({ type: 'feature-strategy-update', project: 'default', environment: 'development' })
    expect(JSON.parse(event!.data!).segments).toEqual([b.id, c.id])
    expect(JSON.parse(event!.pre_data!).segments).toEqual([a.id])
    // The same again: nothing changes, nothing is recorded.
    const before = await databaseFingerprint(t.database.db)
    expect((await setSegments(body)).statusCode).toBe(201)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    // None: removed from all.
    expect((await setSegments({ ...body, segmentIds: [] })).statusCode).toBe(201)
    expect(json(await send('GET', `/api/admin/segments/strategies/${strategy.id}`))).toEqual({ segments: [] })
  })

  it('an unknown strategy has none (200), as Unleash; one outside the token\'s scope too', async () => {
    expect(json(await send('GET', '/api/admin/segments/strategies/no-such-strategy'))).toEqual({ segments: [] })
    const feature = await createFeature(t.app, 'seg-elsewhere')
    const segment = await createSegment()
    const strategy = json(await post(`/api/admin/projects/seg-elsewhere/features/${feature}/environments/development/strategies`, { name: 'default', segments: [segment.id] }))
    const scoped = await createToken(t.app, { projects: ['default'] })
    expect(json(await as(scoped).get(`/api/admin/segments/strategies/${strategy.id}`))).toEqual({ segments: [] })
    expect(json(await send('GET', `/api/admin/segments/strategies/${strategy.id}`)).segments).toHaveLength(1)
  })

  it('refuses, changing nothing: a strategy of another project or environment than named (404), unknown or foreign segments and too many (400), no right on the named project (403)', async () => {
    const segment = await createSegment()
    const foreignSegment = await createSegment({ project: 'seg-elsewhere' })
    const feature = await createFeature(t.app)
    const strategy = json(await post(strategiesUrl(feature), { name: 'default' }))
    const other = await createFeature(t.app, 'seg-elsewhere')
    const elsewhere = json(await post(`/api/admin/projects/seg-elsewhere/features/${other}/environments/development/strategies`, { name: 'default' }))
    const scoped = await createToken(t.app, { projects: ['default'], environments: ['development'] })
    const body = { projectId: 'default', environmentId: 'development', strategyId: strategy.id, segmentIds: [segment.id] }
    const before = await databaseFingerprint(t.database.db)
    const wrongProject = expectProblem(await setSegments({ ...body, strategyId: elsewhere.id }), 404, 'NotFoundError')
    expect(wrongProject.detail).toBe(`Strategy ${elsewhere.id} does not exist in environment development of project default`)
    expectProblem(await setSegments({ ...body, environmentId: 'production' }), 404, 'NotFoundError')
    expectProblem(await setSegments({ ...body, strategyId: 'no-such-strategy' }), 404, 'NotFoundError')
    expect(expectProblem(await setSegments({ ...body, segmentIds: [segment.id, 999999] }), 400, 'BadDataError').details[0].path).toBe('/body/segmentIds/1')
    expect(expectProblem(await setSegments({ ...body, segmentIds: [foreignSegment.id] }), 400, 'BadDataError').details[0].path).toBe('/body/segmentIds/0')
    const three = [segment.id, (await createSegment()).id, (await createSegment()).id]
    const beforeLimit = await databaseFingerprint(t.database.db)
    expect(expectProblem(await setSegments({ ...body, segmentIds: three }), 400, 'BadDataError').details[0].path).toBe('/body/segmentIds')
    // A token of the project in the body may; the project it does not cover is 403, whatever the strategy.
    expect((await setSegments(body, scoped)).statusCode).toBe(201)
    const afterScoped = await databaseFingerprint(t.database.db)
    expectProblem(await setSegments({ ...body, projectId: 'seg-elsewhere', strategyId: elsewhere.id }, scoped), 403, 'PermissionError')
    expectProblem(await setSegments({ ...body, environmentId: 'production' }, scoped), 403, 'PermissionError')
    expect(await databaseFingerprint(t.database.db)).toEqual(afterScoped)
    expect(before).not.toEqual(beforeLimit)
  })

  it("a project's Member sets the segments of that project's strategies only", async () => {
    const base = await listen(t)
    const member = await signedIn(t, base, 'Viewer')
    expect((await send('PUT', `/api/admin/projects/default/users/${member.id}/roles`, { roles: [5] })).statusCode).toBe(200)
    const segment = await createSegment()
    const feature = await createFeature(t.app)
    const strategy = json(await post(strategiesUrl(feature), { name: 'default' }))
    const other = await createFeature(t.app, 'seg-elsewhere')
    const elsewhere = json(await post(`/api/admin/projects/seg-elsewhere/features/${other}/environments/development/strategies`, { name: 'default' }))
    const body = { projectId: 'default', environmentId: 'development', strategyId: strategy.id, segmentIds: [segment.id] }
    expect((await member.browser.json('POST', '/api/admin/segments/strategies', body)).status).toBe(201)
    const before = await databaseFingerprint(t.database.db)
    // Naming its own project for another project's strategy finds nothing; naming the other project is refused.
    expect((await member.browser.json('POST', '/api/admin/segments/strategies', { ...body, strategyId: elsewhere.id })).status).toBe(404)
    expect((await member.browser.json('POST', '/api/admin/segments/strategies', { ...body, projectId: 'seg-elsewhere', strategyId: elsewhere.id })).status).toBe(403)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})
