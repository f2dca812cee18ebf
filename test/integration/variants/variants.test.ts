import { beforeEach, describe, expect, it } from 'vitest'
import {
  auth,
  buildTestApp,
  useTestApp,
  createFeature,
  createToken,
  expectProblem,
  json,
  uniqueName,
} from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { eventsOf, featureState } from '../../helpers/state.js'

const t = useTestApp({ MAX_PATCH_OPERATIONS: '20', MAX_VARIANTS: '60', BODY_LIMIT: '65536' })

let feature: string
beforeEach(async () => {
  feature = await createFeature(t.app)
})

const url = (f = feature, env = 'development', project = 'default') =>
  `/api/admin/projects/${project}/features/${f}/environments/${env}/variants`

const { admin } = requests(t)
const patch = (ops: unknown, headers: Record<string, string> = {}, target = url()) => admin.patch(target, ops, headers)
const put = (variants: unknown, headers: Record<string, string> = {}, target = url()) => admin.put(target, variants, headers)

const add = (value: unknown) => ({ op: 'add', path: '/-', value })

const weightsOf = (res: { json(): unknown }) =>
  (json(res as never).variants as { weight: number }[]).map((v) => v.weight)

describe('PATCH variants: success', () => {
  it('applies the patch, answers 200 with defaults, an ETag, stores it and records the event', async () => {
    const res = await patch([
      add({ name: 'blue', weight: 0 }),
      add({ name: 'green', weight: 200, weightType: 'fix', payload: { type: 'json', value: '{"a":1}' } }),
    ])
    expect(res.statusCode).toBe(200)
    const expected = [
      { name: 'blue', weight: 800, weightType: 'variable', stickiness: 'default' },
      { name: 'green', weight: 200, weightType: 'fix', stickiness: 'default', payload: { type: 'json', value: '{"a":1}' } },
    ]
    expect(json(res)).toEqual({ version: 1, variants: expected })
    expect(res.headers.etag).toBe('"2"')

    const state = await featureState(t.database.db, feature)
    const dev = state.environments.find((e) => e.environment_name === 'development')
    expect(dev).toMatchObject({ revision: 2, variants: expected })
    const prod = state.environments.find((e) => e.environment_name === 'production')
    expect(prod).toMatchObject({ revision: 1, variants: [] })

    const events = await eventsOf(t.database.db, feature)
    expect(events.at(-1)).toMatchObject({
      type: 'feature-environment-variants-updated',
      created_by: expect.stringMatching(/^init-admin-/),
      project: 'default',
      feature_name: feature,
      environment: 'development',
      data: { variants: expected },
      pre_data: { variants: [] },
    })

    const got = await t.app.inject({ method: 'GET', url: url(), headers: auth() })
    expect(json(got)).toEqual({ version: 1, variants: expected })
    expect(got.headers.etag).toBe('"2"')
  })

  it.each([
    ['three variable → 334/333/333', [{ name: 'a', weight: 1 }, { name: 'b', weight: 1 }, { name: 'c', weight: 1 }], [334, 333, 333]],
    [
      'fixed 900 + six variable → 17,17,17,17,16,16',
      [{ name: 'fixed', weight: 900, weightType: 'fix' }, ...'abcdef'.split('').map((name) => ({ name, weight: 0 }))],
      [900, 17, 17, 17, 17, 16, 16],
    ],
    [
      'fixed 600 + 350 + one variable → 50',
      [{ name: 'x', weight: 600, weightType: 'fix' }, { name: 'y', weight: 350, weightType: 'fix' }, { name: 'z', weight: 0 }],
      [600, 350, 50],
    ],
    ['fixed sum 1000 is allowed; variable get 0', [{ name: 'x', weight: 1000, weightType: 'fix' }, { name: 'z', weight: 9 }], [1000, 0]],
  ])('%s', async (_label, variants, weights) => {
    const res = await patch([{ op: 'replace', path: '', value: variants }])
    expect(res.statusCode).toBe(200)
    expect(weightsOf(res)).toEqual(weights)
  })

  it('keeps the order the patch produced, so the next patch indexes what the client saw', async () => {
    await patch([add({ name: 'zulu', weight: 0 }), add({ name: 'alpha', weight: 0 })])
    const res = await patch([{ op: 'replace', path: '/0/stickiness', value: 'userId' }])
    expect(json(res).variants.map((v: { name: string; stickiness: string }) => [v.name, v.stickiness])).toEqual([
      ['zulu', 'userId'],
      ['alpha', 'default'],
    ])
  })

  it('a patch whose result equals the stored variants writes nothing and records no event', async () => {
    await patch([add({ name: 'a', weight: 0 })])
    const before = await featureState(t.database.db, feature)
    const res = await patch([{ op: 'replace', path: '/0/weight', value: 1000 }])
    expect(res.statusCode).toBe(200)
    expect(res.headers.etag).toBe('"2"')
    expect(await featureState(t.database.db, feature)).toEqual(before)
  })

  it('dryRun=true returns the would-be result, no ETag, and writes nothing', async () => {
    const before = await featureState(t.database.db, feature)
    const res = await patch([add({ name: 'a', weight: 0 })], {}, `${url()}?dryRun=true`)
    expect(res.statusCode).toBe(200)
    expect(json(res).variants).toEqual([{ name: 'a', weight: 1000, weightType: 'variable', stickiness: 'default' }])
    expect(res.headers.etag).toBeUndefined()
    expect(await featureState(t.database.db, feature)).toEqual(before)
  })

  it('dryRun still refuses what the real request would refuse', async () => {
    const res = await patch([{ op: 'remove', path: '/0' }], {}, `${url()}?dryRun=true`)
    expectProblem(res, 400, 'BadDataError')
  })

  it('If-Match with the current ETag (or *) writes; a stale one is 412 and writes nothing', async () => {
    const first = await patch([add({ name: 'a', weight: 0 })])
    const etag = first.headers.etag as string
    expect((await patch([add({ name: 'b', weight: 0 })], { 'if-match': etag })).statusCode).toBe(200)
    const before = await featureState(t.database.db, feature)
    const stale = await patch([add({ name: 'c', weight: 0 })], { 'if-match': etag })
    expect(expectProblem(stale, 412, 'PreconditionFailedError').message).toContain('"3"')
    expect(await featureState(t.database.db, feature)).toEqual(before)
    expect((await patch([add({ name: 'c', weight: 0 })], { 'if-match': '*' })).statusCode).toBe(200)
    expect((await patch([add({ name: 'd', weight: 0 })], { 'if-match': '"1", "4"' })).statusCode).toBe(200)
    expectProblem(await patch([add({ name: 'e', weight: 0 })], { 'if-match': 'W/"5"' }), 412, 'PreconditionFailedError')
  })
})

describe('PATCH variants: refusals leave everything as it was', () => {
  let before: Awaited<ReturnType<typeof featureState>>
  beforeEach(async () => {
    await patch([add({ name: 'keep', weight: 0 })])
    before = await featureState(t.database.db, feature)
  })
  const unchanged = async () => expect(await featureState(t.database.db, feature)).toEqual(before)

  it.each([
    ['body not an array', { op: 'add' }, '/body'],
    ['element not an object', ['add'], '/body/0'],
    ['op missing', [{ path: '/-', value: 1 }], '/body/0/op'],
    ['op test (refused: only add, remove, replace, copy, move)', [{ op: 'test', path: '/0', value: 1 }], '/body/0/op'],
    ['op unknown', [{ op: 'merge', path: '/0' }], '/body/0/op'],
    ['path missing', [{ op: 'remove' }], '/body/0/path'],
    ['path not a JSON Pointer', [{ op: 'remove', path: '0' }], '/body/0/path'],
    ['path with a bad escape', [{ op: 'remove', path: '/a~2' }], '/body/0/path'],
    ['path not a string', [{ op: 'remove', path: 0 }], '/body/0/path'],
    ['from missing on move', [{ op: 'move', path: '/0' }], '/body/0/from'],
    ['from missing on copy', [{ op: 'copy', path: '/0' }], '/body/0/from'],
    ['value missing on add', [{ op: 'add', path: '/-' }], '/body/0/value'],
    ['value missing on replace', [{ op: 'replace', path: '/0/weight' }], '/body/0/value'],
    ['too many operations', Array.from({ length: 21 }, () => ({ op: 'remove', path: '/0' })), '/body'],
    ['the third element bad', [{ op: 'remove', path: '/0' }, { op: 'remove', path: '/0' }, { op: 'nope', path: '' }], '/body/2/op'],
  ])('400 for %s at %s', async (_label, body, path) => {
    const res = await patch(body)
    expect(expectProblem(res, 400, 'BadDataError').details[0].path).toBe(path)
    await unchanged()
  })

  it.each([
    ['remove of a missing index', [{ op: 'remove', path: '/5' }], 0],
    ['replace of a missing member', [{ op: 'add', path: '/-', value: { name: 'b', weight: 0 } }, { op: 'replace', path: '/1/payload/value', value: 'x' }], 1],
    ['add beyond the end', [{ op: 'add', path: '/3', value: { name: 'b', weight: 0 } }], 0],
    ['move into its own child', [{ op: 'move', from: '/0', path: '/0/overrides/0' }], 0],
  ])('400 naming the failing operation: %s', async (_label, ops, index) => {
    const body = expectProblem(await patch(ops), 400, 'BadDataError')
    expect(body.message).toMatch(new RegExp(`^Operation ${index} `))
    expect(body.details[0].path).toBe(`/body/${index}`)
    await unchanged()
  })

  it.each([
    ['a weight as a string', [{ op: 'replace', path: '/0/weight', value: '10' }], '/variants/0/weight'],
    ['a duplicate name', [add({ name: 'keep', weight: 0 })], '/variants/1/name'],
    ['an unknown property', [{ op: 'add', path: '/0/color', value: 'red' }], '/variants/0/color'],
    ['a number payload "abc"', [{ op: 'add', path: '/0/payload', value: { type: 'number', value: 'abc' } }], '/variants/0/payload/value'],
    ['a payload type outside json|csv|string|number', [{ op: 'add', path: '/0/payload', value: { type: 'yaml', value: 'a: 1' } }], '/variants/0/payload/type'],
    ['a result that is not an array', [{ op: 'replace', path: '', value: {} }], '/variants'],
  ])('400 for %s, pointing into the resulting variants', async (_label, ops, path) => {
    const body = expectProblem(await patch(ops), 400, 'BadDataError')
    expect(body.details.map((d: { path: string }) => d.path)).toContain(path)
    await unchanged()
  })

  it('400 for no variable variant and for fixed weights over 1000: one detail each, as Unleash', async () => {
    const none = await patch([{ op: 'replace', path: '/0/weightType', value: 'fix' }])
    expect(expectProblem(none, 400, 'BadDataError').details).toEqual([{ path: '/variants', message: 'There must be at least one "variable" variant' }])
    const over = await patch([add({ name: 'f1', weight: 600, weightType: 'fix' }), add({ name: 'f2', weight: 401, weightType: 'fix' })])
    expect(expectProblem(over, 400, 'BadDataError').details).toEqual([{ path: '/variants', message: 'The traffic distribution total must equal 100%' }])
    await unchanged()
  })

  it('400 above the variants limit', async () => {
    const many = Array.from({ length: 61 }, (_, i) => ({ name: `v${i}`, weight: 0 }))
    expectProblem(await patch([{ op: 'replace', path: '', value: many }]), 400, 'BadDataError')
    await unchanged()
  })

  it('404 naming what is missing: project, feature in project, environment, environment not enabled', async () => {
    const project = uniqueName('p')
    await t.app.inject({ method: 'POST', url: '/api/admin/projects', headers: auth(), payload: { id: project, name: 'P' } })
    const env = uniqueName('env')
    await t.app.inject({ method: 'POST', url: '/api/admin/environments', headers: auth(), payload: { name: env, type: 't' } })
    const cases = [
      [url(feature, 'development', 'nope'), 'Project nope does not exist'],
      [url('nope'), 'Feature nope does not exist in project default'],
      [url(feature, 'development', project), `Feature ${feature} does not exist in project ${project}`],
      [url(feature, 'nope'), 'Environment nope does not exist'],
      [url(feature, env), `Environment ${env} is not enabled in project default`],
    ]
    for (const [target, message] of cases) {
      const res = await patch([add({ name: 'x', weight: 0 })], {}, target)
      expect(expectProblem(res, 404, 'NotFoundError').message).toBe(message)
    }
    await unchanged()
  })

  it('checks in the spec order: body shape (400) before existence (404), 404 before If-Match (412), 412 before the patch (400)', async () => {
    expectProblem(await patch([{ op: 'test', path: '' }], {}, url('nope')), 400, 'BadDataError')
    expectProblem(await patch([add({ name: 'x', weight: 0 })], { 'if-match': '"99"' }, url('nope')), 404, 'NotFoundError')
    expectProblem(await patch([{ op: 'remove', path: '/9' }], { 'if-match': '"99"' }), 412, 'PreconditionFailedError')
    await unchanged()
  })

  it('401, 403, 415 and 413 before anything else', async () => {
    expectProblem(
      await t.app.inject({ method: 'PATCH', url: url(), payload: [add({ name: 'x', weight: 0 })] }),
      401,
      'AuthenticationRequired'
    )
    const devOnly = await createToken(t.app, { projects: ['default'], environments: ['production'] })
    expectProblem(await patch([add({ name: 'x', weight: 0 })], auth(devOnly)), 403, 'PermissionError')
    const otherProject = await createToken(t.app, { projects: ['elsewhere'] })
    expectProblem(await patch([add({ name: 'x', weight: 0 })], auth(otherProject)), 403, 'PermissionError')
    const text = await t.app.inject({
      method: 'PATCH',
      url: url(),
      headers: { ...auth(), 'content-type': 'text/plain' },
      payload: 'add x',
    })
    expectProblem(text, 415, 'ContentTypeError')
    const huge = [add({ name: 'x', weight: 0, payload: { type: 'string', value: 'y'.repeat(70_000) } })]
    expectProblem(await patch(huge), 413, 'PayloadTooLargeError')
    const malformed = await t.app.inject({
      method: 'PATCH',
      url: url(),
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: '[{"op":',
    })
    expectProblem(malformed, 400, 'BadDataError')
    await unchanged()
  })
})

describe('values that need escaping', () => {
  it('stores quotes, backslashes and SQL-looking text exactly, on a feature named with a quote', async () => {
    const name = `it's-${uniqueName()}`
    await createFeature(t.app, 'default', name)
    const value = "'; DROP TABLE events; -- \\ \\' $$ $tag$ E'\\x00' \u00e9\u{1F600}"
    const res = await patch(
      [add({ name: "o'k", weight: 0, payload: { type: 'string', value }, overrides: [{ contextName: "user's", values: ["a'b", '\\'] }] })],
      {},
      url(encodeURIComponent(name))
    )
    expect(res.statusCode).toBe(200)
    const expected = [{
      name: "o'k",
      weight: 1000,
      weightType: 'variable',
      stickiness: 'default',
      payload: { type: 'string', value },
      overrides: [{ contextName: "user's", values: ["a'b", '\\'] }],
    }]
    expect(json(res).variants).toEqual(expected)
    const state = await featureState(t.database.db, name)
    expect(state.environments.find((e) => e.environment_name === 'development')?.variants).toEqual(expected)
    expect((await eventsOf(t.database.db, name)).at(-1)?.data).toEqual({ variants: expected })
    const completed = await t.app.inject({
      method: 'POST',
      url: `/api/admin/projects/default/features/${encodeURIComponent(name)}/lifecycle/complete`,
      headers: auth(),
      payload: { status: 'kept', statusValue: value },
    })
    expect(completed.statusCode).toBe(200)
    const stage = await t.database.db.selectFrom('feature_lifecycles').select('status_value')
      .where('feature_name', '=', name).where('stage', '=', 'completed').executeTakeFirstOrThrow()
    expect(stage.status_value).toBe(value)
  })
})

describe('values that need escaping, large', () => {
  it('a 50 kB payload full of quotes, backslashes and $$ (this file\'s body limit is 64 kB) is stored and recorded exactly, in data and preData', async () => {
    const name = uniqueName()
    await createFeature(t.app, 'default', name)
    const value = '\'"\\$$'.repeat(8_000)
    const first = await patch([add({ name: 'big', weight: 0, payload: { type: 'string', value } })], {}, url(name))
    expect(first.statusCode).toBe(200)
    const second = await patch([{ op: 'replace', path: '/0/name', value: 'big2' }], {}, url(name))
    expect(second.statusCode).toBe(200)
    const state = await featureState(t.database.db, name)
    expect(state.environments.find((e) => e.environment_name === 'development')?.variants[0]).toMatchObject({ name: 'big2', payload: { value } })
    const last = (await eventsOf(t.database.db, name)).at(-1)
    expect(last?.pre_data.variants[0].payload.value).toBe(value)
    expect(last?.data.variants[0].payload.value).toBe(value)
  })
})

describe('PUT variants', () => {
  it('replaces the whole array under the same rules, with an event', async () => {
    await patch([add({ name: 'old', weight: 0 })])
    const res = await put([{ name: 'n1', weight: 100, weightType: 'fix' }, { name: 'n2', weight: 0, stickiness: 'userId' }])
    expect(res.statusCode).toBe(200)
    expect(res.headers.etag).toBe('"3"')
    expect(json(res).variants).toEqual([
      { name: 'n1', weight: 100, weightType: 'fix', stickiness: 'default' },
      { name: 'n2', weight: 900, weightType: 'variable', stickiness: 'userId' },
    ])
    const events = await eventsOf(t.database.db, feature)
    expect(events.at(-1)).toMatchObject({
      type: 'feature-environment-variants-updated',
      pre_data: { variants: [{ name: 'old', weight: 1000, weightType: 'variable', stickiness: 'default' }] },
    })
  })

  it('refuses invalid variants with paths into the body, writing nothing', async () => {
    const before = await featureState(t.database.db, feature)
    const res = await put([{ name: 'a', weight: 1 }, { name: 'a', weight: 1 }])
    expect(expectProblem(res, 400, 'BadDataError').details[0].path).toBe('/body/1/name')
    const coerced = await put([{ name: 'a', weight: '1' }])
    expect(expectProblem(coerced, 400, 'BadDataError').details[0].path).toBe('/body/0/weight')
    expectProblem(await put([{ name: 'a', weight: 1 }], { 'if-match': '"7"' }), 412, 'PreconditionFailedError')
    expect(await featureState(t.database.db, feature)).toEqual(before)
  })

  it('empties the variants with []', async () => {
    await patch([add({ name: 'a', weight: 0 })])
    const res = await put([])
    expect(json(res).variants).toEqual([])
    expect(res.headers.etag).toBe('"3"')
  })
})

describe('concurrency', () => {
  it('50 concurrent PATCHes each adding a variant: all 200, all 50 stored, weights sum to 1000', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => patch([add({ name: `v${i}`, weight: 0 })]))
    )
    expect(responses.map((r) => r.statusCode)).toEqual(Array(50).fill(200))
    const state = await featureState(t.database.db, feature)
    const dev = state.environments.find((e) => e.environment_name === 'development')
    const variants = dev?.variants as { name: string; weight: number }[]
    expect(variants).toHaveLength(50)
    expect(new Set(variants.map((v) => v.name)).size).toBe(50)
    expect(variants.reduce((s, v) => s + v.weight, 0)).toBe(1000)
    expect(dev?.revision).toBe(51)
    const etags = new Set(responses.map((r) => r.headers.etag))
    expect(etags.size).toBe(50)
    const events = await eventsOf(t.database.db, feature)
    expect(events.filter((e) => e.type === 'feature-environment-variants-updated')).toHaveLength(50)
  })
})

describe('the limits agree with each other', () => {
  it('with the default limits, a PATCH body of exactly BODY_LIMIT bytes that adds one variant is stored', async () => {
    const defaults = await buildTestApp()
    try {
      const name = await createFeature(defaults.app)
      const limit = defaults.config.bodyLimit
      const body = (n: number) => JSON.stringify([add({ name: 'big', weight: 0, payload: { type: 'string', value: 'x'.repeat(n) } })])
      const text = body(limit - body(0).length)
      expect(Buffer.byteLength(text)).toBe(limit)
      const res = await defaults.app.inject({ method: 'PATCH', url: url(name), headers: { ...auth(), 'content-type': 'application/json' }, payload: text })
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
      // Stored with its defaults filled in, so larger than the body that carried it.
      const stored = (await featureState(defaults.database.db, name)).environments.find((e) => e.environment_name === 'development')!
      expect(Buffer.byteLength(stored.json)).toBeGreaterThan(limit)
      expect(stored.variants[0]).toMatchObject({ name: 'big', weight: 1000 })
    } finally {
      await defaults.close()
    }
  })
})
