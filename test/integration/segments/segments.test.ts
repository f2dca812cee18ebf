/**
 * Segments through Unleash's admin API paths and bodies: their writes, limits and refusals,
 * strategies that use them, and how the client API serves them.
 */
import { describe, expect, it } from 'vitest'
import { auth, createFeature, createToken, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
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
