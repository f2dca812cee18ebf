/**
 * Dependent flags through Unleash's admin API paths and bodies: their writes and refusals,
 * random graphs written concurrently, and how the client API serves them.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createFeature, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint, eventsOf } from '../../helpers/state.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })

const base = '/api/admin/projects/default/features'
const { as, clientToken, send } = requests(t)
const post = (url: string, payload?: unknown, secret?: string) => send('POST', url, payload, secret)

const poll = (secret: string, feature: string, spec?: string) =>
  as(secret).get(`/api/client/features?namePrefix=${feature}`, spec === undefined ? {} : { 'unleash-client-spec': spec })

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
    const served = json(await poll(await clientToken(), child)).features.find((f: { name: string }) => f.name === child)
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

describe('parent options', () => {
  it('lists the features a feature may depend on (same project, not itself, not archived, no parents of their own), and the variants a parent offers', async () => {
    const project = uniqueName('parents')
    await post('/api/admin/projects', { id: project, name: project })
    await post(`/api/admin/projects/${project}/environments`, { environment: 'development' })
    const pbase = `/api/admin/projects/${project}/features`
    const [child, parent, other, archived, dependent] = await Promise.all(['c', 'p', 'o', 'a', 'd'].map((p) => createFeature(t.app, project, uniqueName(p))))
    await post(`${pbase}/${dependent}/dependencies`, { feature: parent })
    await send('DELETE', `${pbase}/${archived}`)
    const options = json(await send('GET', `${pbase}/${child}/parents`))
    expect(options).toEqual([other, parent].sort())
    expect(json(await send('GET', `${pbase}/ghost/parents`))).toEqual([])
    expectProblem(await send('GET', `/api/admin/projects/ghost/features/${child}/parents`), 404, 'NotFoundError')

    await send('PUT', `${pbase}/${parent}/environments/development/variants`, [{ name: 'zeta', weight: 500 }, { name: 'alpha', weight: 500 }])
    await post(`${pbase}/${parent}/environments/development/strategies`, { name: 'flexibleRollout', variants: [{ name: 'mid', weight: 1000, weightType: 'variable', stickiness: 'default' }, { name: 'alpha', weight: 0, weightType: 'fix', stickiness: 'default' }] })
    expect(json(await send('GET', `${pbase}/${parent}/parent-variants`))).toEqual(['alpha', 'mid', 'zeta'])
    expect(json(await send('GET', `${pbase}/ghost/parent-variants`))).toEqual([])
  })
})
