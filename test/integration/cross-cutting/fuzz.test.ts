import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_SECRET, auth, buildTestApp, createFeature, createToken, type TestApp } from '../../helpers/app.js'
import { fuzzRuns, fuzzTimeout, patchBody } from '../../helpers/arbitraries.js'
import { rawRequest } from '../../helpers/raw-http.js'
import { databaseFingerprint, featureState } from '../../helpers/state.js'

let t: TestApp
let feature: string
let scopedSecret: string
beforeAll(async () => {
  t = await buildTestApp({ BODY_LIMIT: '16384' })
  feature = await createFeature(t.app)
  scopedSecret = await createToken(t.app, { projects: ['default'], environments: ['development'] })
  await t.app.inject({
    method: 'PUT',
    url: `/api/admin/projects/default/features/${feature}/environments/development/variants`,
    headers: auth(),
    payload: [{ name: 'a', weight: 0 }, { name: 'b', weight: 100, weightType: 'fix' }],
  })
})
afterAll(() => t.close())

const PROBLEM_MEMBERS = ['type', 'title', 'status', 'detail', 'id', 'name', 'message', 'details']

/** Every answer is below 500; every error has the common body. */
function expectSane (res: LightMyRequestResponse) {
  expect(res.statusCode, res.body).toBeLessThan(500)
  if (res.statusCode >= 400) {
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    const body = res.json()
    for (const member of PROBLEM_MEMBERS) expect(body, res.body).toHaveProperty(member)
    expect(body.status).toBe(res.statusCode)
  }
}

const segment = fc.oneof(
  fc.constantFrom('default', 'development', 'production', 'nope', '..', '.', '%2F', 'a b', "it's", '~*()!'),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 })
)
const headerSets = fc.record(
  {
    authorization: fc.constantFrom(ADMIN_SECRET, `Bearer ${ADMIN_SECRET}`, 'nope', '', 'Bearer ', 'scoped'),
    'content-type': fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'application/json-patch+json',
      'text/plain',
      'application/xml',
      'multipart/form-data'
    ),
    'if-match': fc.constantFrom('*', '"1"', '"999"', 'W/"2"', 'garbage', ''),
  },
  { requiredKeys: [] }
)

describe('fuzzing through the real app', () => {
  it('random patch lists and headers on a real feature: never 5xx, state unchanged after every 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(patchBody, headerSets, fc.boolean(), async (body, headers, dryRun) => {
        const before = await featureState(t.database.db, feature)
        const res = await t.app.inject({
          method: 'PATCH',
          url: `/api/admin/projects/default/features/${feature}/environments/development/variants${dryRun ? '?dryRun=true' : ''}`,
          headers: { ...headers, ...(headers.authorization === 'scoped' && { authorization: scopedSecret }) },
          payload: JSON.stringify(body),
        })
        expectSane(res)
        if (res.statusCode >= 400 || dryRun) {
          expect(await featureState(t.database.db, feature)).toEqual(before)
        } else {
          const stored = (await featureState(t.database.db, feature)).environments.find(
            (e) => e.environment_name === 'development'
          )
          expect(stored?.variants).toEqual(res.json().variants)
        }
      }),
      { numRuns: fuzzRuns(150) }
    )
  }, fuzzTimeout)

  it('random completion bodies and headers: never 5xx, nothing completed after a 4xx', async () => {
    const completion = fc.oneof(
      fc.record({ status: fc.constantFrom('kept', 'discarded', 'Kept', ''), statusValue: fc.oneof(fc.string(), fc.anything()) }, { requiredKeys: [] }),
      fc.jsonValue()
    )
    await fc.assert(
      fc.asyncProperty(completion, headerSets, async (body, headers) => {
        const before = await featureState(t.database.db, feature)
        const res = await t.app.inject({
          method: 'POST',
          url: `/api/admin/projects/default/features/${feature}/lifecycle/complete`,
          headers: { ...headers, ...(headers.authorization === 'scoped' && { authorization: scopedSecret }) },
          payload: JSON.stringify(body),
        })
        expectSane(res)
        if (res.statusCode >= 400) expect(await featureState(t.database.db, feature)).toEqual(before)
      }),
      { numRuns: fuzzRuns(150) }
    )
  }, fuzzTimeout)

  it('random path parameters on both operations: never 5xx, the common error body', async () => {
    await fc.assert(
      fc.asyncProperty(segment, segment, segment, fc.boolean(), async (project, name, env, encode) => {
        const e = (s: string) => (encode ? encodeURIComponent(s) : s)
        for (const [method, url, payload] of [
          ['PATCH', `/api/admin/projects/${e(project)}/features/${e(name)}/environments/${e(env)}/variants`, '[]'],
          ['POST', `/api/admin/projects/${e(project)}/features/${e(name)}/lifecycle/complete`, '{"status":"kept"}'],
        ] as const) {
          const res = await t.app.inject({
            method,
            url,
            headers: { ...auth(), 'content-type': 'application/json' },
            payload,
          })
          expectSane(res)
        }
      }),
      { numRuns: fuzzRuns(100) }
    )
  }, fuzzTimeout)

  it('raw byte bodies: never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (raw) => {
        const res = await t.app.inject({
          method: 'PATCH',
          url: `/api/admin/projects/default/features/${feature}/environments/development/variants`,
          headers: { ...auth(), 'content-type': 'application/json' },
          payload: raw,
        })
        expectSane(res)
      }),
      { numRuns: fuzzRuns(100) }
    )
  }, fuzzTimeout)

  /** Strings with NUL characters or lone surrogates somewhere in them. */
  const unstorable = fc
    .tuple(fc.string({ maxLength: 8 }), fc.constantFrom('\u0000', '\ud800', '\udfff', '\ud83d', 'x\u0000y'), fc.string({ maxLength: 8 }))
    .map(([a, bad, b]) => a + bad + b)

  it('NUL and lone surrogates in any variant field: always 400 naming a body path, nothing stored', async () => {
    const url = `/api/admin/projects/default/features/${feature}/environments/development/variants`
    const variant = fc.record({
      name: fc.oneof(fc.constant('ok'), unstorable),
      weight: fc.constant(0),
      stickiness: fc.oneof(fc.constant('default'), unstorable),
      payload: fc.record({ type: fc.constant('string'), value: fc.oneof(fc.constant('v'), unstorable) }),
      overrides: fc.array(fc.record({ contextName: fc.oneof(fc.constant('userId'), unstorable), values: fc.array(fc.oneof(fc.string(), unstorable), { maxLength: 3 }) }), { maxLength: 2 }),
    }).filter((v) => JSON.stringify(v).match(/\\u0000|\\ud[89a-f]/i) !== null)
    const before = await featureState(t.database.db, feature)
    await fc.assert(
      fc.asyncProperty(variant, fc.boolean(), fc.boolean(), async (v, patch, dryRun) => {
        const res = await t.app.inject({
          method: patch ? 'PATCH' : 'PUT',
          url: `${url}${dryRun ? '?dryRun=true' : ''}`,
          headers: { ...auth(), 'content-type': 'application/json' },
          payload: JSON.stringify(patch ? [{ op: 'add', path: '/-', value: v }] : [v]),
        })
        expectSane(res)
        expect(res.statusCode, res.body).toBe(400)
        expect(res.json().details[0].path).toMatch(/^\/body\//)
      }),
      { numRuns: fuzzRuns(100) }
    )
    expect(await featureState(t.database.db, feature)).toEqual(before)
  }, fuzzTimeout)

  it('random disguises of request targets on a real socket, without a valid token: always 401 or 400, nothing written', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const port = (t.app.server.address() as { port: number }).port
    const before = await databaseFingerprint(t.database.db)
    const paths = [
      '/api/admin/projects',
      '/api/admin/api-tokens',
      `/api/admin/projects/default/features/${feature}/environments/development/variants`,
      `/api/admin/projects/default/features/${feature}/lifecycle/complete`,
    ]
    const disguise = fc.record({
      path: fc.constantFrom(...paths),
      encodeAt: fc.nat(),
      prefix: fc.constantFrom('', '/', '/.', '/x/..', 'http://evil.example', `http://127.0.0.1:${port}`),
      suffix: fc.constantFrom('', '/', '?', '?a=%00', '#x', ';a', '%00', '%2F'),
      upper: fc.boolean(),
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'),
      override: fc.constantFrom(undefined, 'GET', 'POST', 'DELETE'),
      token: fc.constantFrom(undefined, 'nope', 'Bearer nope', scopedSecret.slice(0, -1)),
    })
    await fc.assert(
      fc.asyncProperty(disguise, async (d) => {
        // percent-encode one letter of the path
        const letters = [...d.path].map((c, i) => ({ c, i })).filter(({ c }) => /[a-z]/.test(c))
        const at = letters[d.encodeAt % letters.length]!.i
        const hex = d.path.charCodeAt(at).toString(16)
        const target = `${d.prefix}${d.path.slice(0, at)}%${d.upper ? hex.toUpperCase() : hex}${d.path.slice(at + 1)}${d.suffix}`
        const res = await rawRequest(port, {
          method: d.method,
          target,
          headers: {
            ...(d.token ? { authorization: d.token } : {}),
            ...(d.override ? { 'x-http-method-override': d.override } : {}),
          },
          body: d.method === 'HEAD' || d.method === 'GET' ? undefined : '{"name":"pwned","status":"kept"}',
        })
        expect([400, 401], `${d.method} ${target} → ${res.status} ${res.body}`).toContain(res.status)
      }),
      { numRuns: fuzzRuns(300) }
    )
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  }, fuzzTimeout)
})
