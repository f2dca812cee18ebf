import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_SECRET, auth, buildTestApp, createFeature, createToken, type TestApp } from '../helpers/app.js'
import { fuzzRuns, fuzzTimeout, patchBody } from '../helpers/arbitraries.js'
import { featureState } from '../helpers/state.js'

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
})
