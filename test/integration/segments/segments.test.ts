/**
 * Segments, strategy variants, dependent flags and impressionData through Unleash's admin API
 * paths and bodies, and how the client API serves them.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { auth, createFeature, createToken, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { databaseFingerprint, eventsOf } from '../../helpers/state.js'

const t = useTestApp({ MAX_SEGMENTS_PER_STRATEGY: '2', MAX_SEGMENT_VALUES: '5', CLIENT_STATE_CACHE_MS: '0' })

const base = '/api/admin/projects/default/features'
const strategiesUrl = (feature: string) => `${base}/${feature}/environments/development/strategies`
const post = (url: string, payload?: unknown, secret?: string) =>
  t.app.inject({ method: 'POST', url, headers: auth(secret), ...(payload === undefined ? {} : { payload: payload as object }) })
const send = (method: 'GET' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, secret?: string) =>
  t.app.inject({ method, url, headers: auth(secret), ...(payload === undefined ? {} : { payload: payload as object }) })

const inVersion = { contextName: 'appVersion', operator: 'SEMVER_GTE', value: '2.0.0' }

async function createSegment (body: object = {}) {
  const res = await post('/api/admin/segments', { name: uniqueName('segment'), constraints: [inVersion], ...body })
  expect(res.statusCode, res.body).toBe(201)
  return json(res)
}

async function clientSecret () {
  const res = await post('/api/admin/api-tokens', { tokenName: uniqueName('sdk'), type: 'client', environment: 'development' })
  return json(res).secret as string
}

const poll = (secret: string, feature: string, spec?: string) =>
  t.app.inject({
    method: 'GET',
    url: `/api/client/features?namePrefix=${feature}`,
    headers: { ...auth(secret), ...(spec === undefined ? {} : { 'unleash-client-spec': spec }) },
  })

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
    const secret = await clientSecret()
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

describe('strategy variants', () => {
  it('follow the environment variants\' rules, take the strategy\'s stickiness, are reached by PATCH and served as stored', async () => {
    const feature = await createFeature(t.app)
    const res = await post(strategiesUrl(feature), {
      name: 'flexibleRollout',
      parameters: { stickiness: 'sessionId' },
      variants: [{ name: 'blue', weight: 0, payload: { type: 'json', value: '{"a":1}' } }, { name: 'red', weight: 200, weightType: 'fix', stickiness: 'userId' }],
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(json(res).variants).toEqual([
      { name: 'blue', weight: 800, weightType: 'variable', stickiness: 'sessionId', payload: { type: 'json', value: '{"a":1}' } },
      { name: 'red', weight: 200, weightType: 'fix', stickiness: 'userId' },
    ])
    const url = `${strategiesUrl(feature)}/${json(res).id}`
    const patched = await send('PATCH', url, [{ op: 'add', path: '/variants/-', value: { name: 'green', weight: 0 } }])
    expect(json(patched).variants.map((v: { weight: number }) => v.weight)).toEqual([400, 200, 400])
    for (const [operations, path] of [
      [[{ op: 'replace', path: '/variants/0/weightType', value: 'fix' }, { op: 'replace', path: '/variants/2/weightType', value: 'fix' }], '/strategy/variants'],
      [[{ op: 'replace', path: '/variants/0/payload', value: { type: 'json', value: 'not json' } }], '/strategy/variants/0/payload/value'],
      [[{ op: 'replace', path: '/variants/1/name', value: 'blue' }], '/strategy/variants/1/name'],
    ] as const) {
      expect(expectProblem(await send('PATCH', url, operations), 400, 'BadDataError').details[0].path, JSON.stringify(operations)).toBe(path)
    }
    await post(`${base}/${feature}/environments/development/on`)
    const served = json(await poll(await clientSecret(), feature, '5.2.0')).features[0].strategies[0].variants
    expect(served).toEqual(json(patched).variants)
  })
})

describe('dependent flags', () => {
  it('add (200), several parents, update, remove one, remove all, each with its event; served to SDKs as Unleash serves them', async () => {
    const child = await createFeature(t.app)
    const a = await createFeature(t.app)
    const b = await createFeature(t.app)
    expect((await post(`${base}/${child}/dependencies`, { feature: a })).statusCode).toBe(200)
    expect((await post(`${base}/${child}/dependencies`, { feature: b, enabled: false })).statusCode).toBe(200)
    expect((await post(`${base}/${child}/dependencies`, { feature: a, variants: ['x'] })).statusCode).toBe(200)
    const details = json(await send('GET', `${base}/${child}`))
    expect(details.dependencies).toEqual([{ feature: a, enabled: true, variants: ['x'] }, { feature: b, enabled: false, variants: [] }])
    expect(json(await send('GET', `${base}/${a}`)).children).toEqual([child])
    await post(`${base}/${child}/environments/development/on`)
    const served = json(await poll(await clientSecret(), child)).features.find((f: { name: string }) => f.name === child)
    expect(served.dependencies).toEqual([{ feature: a, enabled: true, variants: ['x'] }, { feature: b, enabled: false }])
    expect((await send('DELETE', `${base}/${child}/dependencies/${b}`)).statusCode).toBe(200)
    expect((await send('DELETE', `${base}/${child}/dependencies`)).statusCode).toBe(200)
    expect(json(await send('GET', `${base}/${child}`)).dependencies).toEqual([])
    const types = (await eventsOf(t.database.db, child)).map((e) => e.type).filter((x) => x.includes('dependenc'))
    expect(types).toEqual(['feature-dependency-added', 'feature-dependency-added', 'feature-dependency-added', 'feature-dependency-removed', 'feature-dependencies-removed'])
  })

  it('refuses self, chains, cycles, missing, archived and other projects\' parents with a 400 naming the rule; nothing stored', async () => {
    await post('/api/admin/projects', { id: 'dep-other', name: 'Other' })
    const parent = await createFeature(t.app)
    const child = await createFeature(t.app)
    const grandchild = await createFeature(t.app)
    const archived = await createFeature(t.app)
    const elsewhere = await createFeature(t.app, 'dep-other')
    await send('DELETE', `${base}/${archived}`)
    await post(`${base}/${child}/dependencies`, { feature: parent })
    const before = await databaseFingerprint(t.database.db)
    const cases: [string, string, RegExp][] = [
      [child, child, /cannot depend on itself/],
      [grandchild, child, /a parent cannot have parents/],
      [parent, child, /a parent cannot have parents/],
      [parent, grandchild, /a feature others depend on cannot depend on another/],
      [child, 'ghost', /names ghost, which is not a feature of project default/],
      [child, elsewhere, /must exist in the child's project/],
      [grandchild, archived, /archived/],
    ]
    for (const [from, to, rule] of cases) {
      const problem = expectProblem(await post(`${base}/${from}/dependencies`, { feature: to }), 400, 'BadDataError')
      expect(problem.details[0].path).toBe('/body/feature')
      expect(problem.message, `${from} → ${to}`).toMatch(rule)
    }
    expectProblem(await post(`${base}/ghost/dependencies`, { feature: parent }), 404, 'NotFoundError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('a parent with live children cannot be archived (409 naming them); once the child is archived it can', async () => {
    const parent = await createFeature(t.app)
    const child = await createFeature(t.app)
    await post(`${base}/${child}/dependencies`, { feature: parent })
    const refused = expectProblem(await send('DELETE', `${base}/${parent}`), 409, 'InUseError')
    expect(refused.message).toContain(child)
    expect((await send('DELETE', `${base}/${child}`)).statusCode).toBe(202)
    expect((await send('DELETE', `${base}/${parent}`)).statusCode).toBe(202)
  })

  it('random dependency graphs, written concurrently, never give a 5xx and never store a cycle or a chain', async () => {
    const nodes = await Promise.all(Array.from({ length: 6 }, () => createFeature(t.app)))
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(5), fc.nat(5), fc.boolean()), { minLength: 1, maxLength: 12 }), async (edges) => {
        const results = await Promise.all(edges.map(([from, to, remove]) =>
          remove
            ? send('DELETE', `${base}/${nodes[from]}/dependencies/${nodes[to]}`)
            : post(`${base}/${nodes[from]}/dependencies`, { feature: nodes[to] })
        ))
        for (const r of results) expect(r.statusCode, r.body).toBeLessThan(500)
        const stored = await t.database.db.selectFrom('feature_dependencies').select(['child', 'parent']).where('child', 'in', nodes).execute()
        const parents = new Set(stored.map((d) => d.parent))
        const children = new Set(stored.map((d) => d.child))
        // No chain (so no cycle): nothing is both a parent and a child.
        expect([...parents].filter((p) => children.has(p))).toEqual([])
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 40) }
    )
  })
})

describe('impressionData', () => {
  it('is set on create and by PUT (feature-metadata-updated), a rename is refused, and SDKs get it', async () => {
    const name = uniqueName('impress')
    const created = await post(base, { name, impressionData: true })
    expect(json(created).impressionData).toBe(true)
    const updated = await send('PUT', `${base}/${name}`, { impressionData: false, description: 'now quiet' })
    expect(updated.statusCode).toBe(200)
    expect(json(updated)).toMatchObject({ name, impressionData: false, description: 'now quiet', type: 'release' })
    expect(expectProblem(await send('PUT', `${base}/${name}`, { name: 'renamed' }), 400, 'BadDataError').details[0].path).toBe('/body/name')
    const [event] = (await eventsOf(t.database.db, name)).filter((e) => e.type === 'feature-metadata-updated')
    expect(event).toMatchObject({ data: { impressionData: false, description: 'now quiet' }, pre_data: { impressionData: true, description: null } })
    await send('PUT', `${base}/${name}`, { impressionData: true })
    expect(json(await poll(await clientSecret(), name)).features[0].impressionData).toBe(true)
  })
})
