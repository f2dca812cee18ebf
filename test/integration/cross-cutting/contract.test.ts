/**
 * The OpenAPI document is the behaviour: checked as a whole here, and response by response
 * for every integration test (test/helpers/contract.ts, run when each test app closes).
 */
import { Validator } from '@seriousme/openapi-schema-validator'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  auth,
  createFeature,
  createToken,
  expectProblem,
  json,
  useTestApp,
} from '../../helpers/app.js'
import { eventsOf, featureState } from '../../helpers/state.js'

const t = useTestApp()
let doc: any

beforeAll(async () => {
  doc = json(await t.app.inject({ method: 'GET', url: '/docs/json' }))
})

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method, op }))
  )
const op = (path: string, method: string) => doc.paths[path][method]
const VARIANTS = '/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants'

describe('the document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(doc.openapi).toBe('3.1.0')
  })

  it('names every operation, uniquely, with Unleash names for Unleash operations', () => {
    const ids = operations().map((o) => o.op.operationId)
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual(
      expect.arrayContaining([
        'getEnvironmentFeatureVariants',
        'patchEnvironmentsFeatureVariants',
        'overwriteEnvironmentFeatureVariants',
        'overwriteFeatureVariantsOnEnvironments',
        'complete',
        'uncomplete',
        'getFeatureLifecycle',
      ])
    )
  })

  it('has servers and a license', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })])
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' })
  })

  it('dryRun and limit are optional', () => {
    for (const method of ['patch', 'put']) {
      expect(op(VARIANTS, method).parameters.find((p: any) => p.name === 'dryRun')).toMatchObject({ in: 'query', required: false })
    }
    expect(op('/api/admin/events', 'get').parameters.find((p: any) => p.name === 'limit')).toMatchObject({ required: false })
  })

  it('needs no token for /health, /ready and /metrics, and describes /metrics as text', () => {
    for (const path of ['/health', '/ready', '/metrics']) expect(op(path, 'get').security).toEqual([])
    expect(op('/api/admin/projects', 'get').security).toBeUndefined()
    expect(doc.security).toEqual([{ apiToken: [] }, { sessionCookie: [] }])
    for (const path of ['/api/client/features', '/api/frontend']) expect(op(path, 'get').security).toEqual([{ apiToken: [] }])
    expect(op('/auth/simple/login', 'post').security).toEqual([])
    expect(Object.keys(op('/metrics', 'get').responses['200'].content)).toEqual(['text/plain'])
  })

  it('documents empty 200s without content, and the ETag of a read as always present', () => {
    const empty = [
      ['/api/admin/projects/{projectId}/environments', 'post'],
      ['/api/admin/projects/{projectId}/features/{featureName}/lifecycle/complete', 'post'],
      ['/api/admin/projects/{projectId}/features/{featureName}/lifecycle/uncomplete', 'post'],
      ['/api/admin/api-tokens/{token}', 'delete'],
    ]
    for (const [path, method] of empty) expect(op(path!, method!).responses['200'].content).toBeUndefined()
    expect(op(VARIANTS, 'get').responses['200'].headers.etag.required).toBe(true)
    expect(op(VARIANTS, 'patch').responses['200'].headers.etag.required).toBeUndefined()
  })
})

describe('what the document says, the service does', () => {
  it('an empty 200 has no body and no Content-Type', async () => {
    const feature = await createFeature(t.app)
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/admin/projects/default/features/${feature}/lifecycle/complete`,
      headers: auth(),
      payload: { status: 'kept' },
    })
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
    expect(res.headers['content-type']).toBeUndefined()
  })

  it('routes without a body still answer 415 and 413 as documented', async () => {
    const feature = await createFeature(t.app)
    const token = `tok-${feature}`
    await createToken(t.app, {}, token)
    const targets = [
      { method: 'POST' as const, url: `/api/admin/projects/default/features/${feature}/lifecycle/uncomplete` },
      { method: 'DELETE' as const, url: `/api/admin/api-tokens/${token}` },
    ]
    for (const target of targets) {
      // what `curl -d ''` sends
      const form = await t.app.inject({ ...target, headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' }, payload: 'a=1' })
      expectProblem(form, 415, 'ContentTypeError')
      const huge = await t.app.inject({ ...target, headers: { ...auth(), 'content-type': 'application/json' }, payload: `"${'x'.repeat(t.config.bodyLimit)}"` })
      expectProblem(huge, 413, 'PayloadTooLargeError')
      const path = target.url.startsWith('/api/admin/api-tokens') ? '/api/admin/api-tokens/{token}' : '/api/admin/projects/{projectId}/features/{featureName}/lifecycle/uncomplete'
      expect(Object.keys(op(path, target.method.toLowerCase()).responses)).toEqual(expect.arrayContaining(['413', '415']))
    }
  })

  it('an undocumented method on a documented path: 405 with Allow (401 without a token)', async () => {
    const url = '/api/admin/projects/default/features/x/environments/development/variants'
    const res = await t.app.inject({ method: 'DELETE', url, headers: auth() })
    expectProblem(res, 405, 'MethodNotAllowedError')
    expect(res.headers.allow).toBe('GET, HEAD, PUT, PATCH')
    expectProblem(await t.app.inject({ method: 'DELETE', url }), 401, 'AuthenticationRequired')
    const tokens = await t.app.inject({ method: 'PUT', url: '/api/admin/api-tokens', headers: auth() })
    expect(tokens.statusCode).toBe(405)
    expect(tokens.headers.allow).toBe('GET, HEAD, POST')
    expect(doc.paths['/api/admin/api-tokens'].put).toBeUndefined()
  })
})

describe('Unleash parity', () => {
  const batch = (feature: string) => `/api/admin/projects/default/features/${feature}/variants-batch`

  it('variants-batch writes every environment in one go, each with its revision and event', async () => {
    const feature = await createFeature(t.app)
    const res = await t.app.inject({
      method: 'PUT',
      url: batch(feature),
      headers: auth(),
      payload: { variants: [{ name: 'a', weight: 0 }, { name: 'b', weight: 300, weightType: 'fix' }], environments: ['production', 'development'] },
    })
    expect(res.statusCode).toBe(200)
    expect(json(res).variants.map((v: any) => [v.name, v.weight])).toEqual([['a', 700], ['b', 300]])
    const state = await featureState(t.database.db, feature)
    expect(state.environments.map((e) => [e.environment_name, e.revision, e.variants.length])).toEqual([
      ['development', 2, 2],
      ['production', 2, 2],
    ])
    const events = await eventsOf(t.database.db, feature)
    expect(events.filter((e) => e.type === 'feature-environment-variants-updated').map((e) => e.environment).sort()).toEqual([
      'development',
      'production',
    ])
    // The same again changes nothing.
    const again = await t.app.inject({
      method: 'PUT',
      url: batch(feature),
      headers: auth(),
      payload: { variants: [{ name: 'a', weight: 0 }, { name: 'b', weight: 300, weightType: 'fix' }], environments: ['development'] },
    })
    expect(again.statusCode).toBe(200)
    expect((await eventsOf(t.database.db, feature)).length).toBe(events.length)
  })

  it('variants-batch: 404 naming the first missing environment, 403 outside the scope, 400 into the variants; nothing written', async () => {
    const feature = await createFeature(t.app)
    const before = await featureState(t.database.db, feature)
    const put = (payload: object, secret?: string) => t.app.inject({ method: 'PUT', url: batch(feature), headers: auth(secret), payload })
    const variants = [{ name: 'a', weight: 0 }]
    const missing = await put({ variants, environments: ['development', 'nowhere', 'elsewhere'] })
    expect(expectProblem(missing, 404, 'NotFoundError').message).toContain('nowhere')
    const scoped = await createToken(t.app, { projects: ['default'], environments: ['development'] })
    const refused = await put({ variants, environments: ['development', 'production'] }, scoped)
    expect(expectProblem(refused, 403, 'PermissionError').message).toContain('production')
    const bad = await put({ variants: [{ name: 'a', weight: 600, weightType: 'fix' }, { name: 'b', weight: 600, weightType: 'fix' }, { name: 'c', weight: 0 }], environments: ['development'] })
    const body = expectProblem(bad, 400, 'BadDataError')
    expect(body.details[0].message).toBe('The traffic distribution total must equal 100%')
    for (const detail of body.details) if (detail.path !== undefined) expect(detail.path).toMatch(/^\/body\/variants/)
    expect(await featureState(t.database.db, feature)).toEqual(before)
  })

  it("fixed weights above 1000: Unleash's sentence is the first detail", async () => {
    const feature = await createFeature(t.app)
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/projects/default/features/${feature}/environments/development/variants`,
      headers: auth(),
      payload: [
        { op: 'add', path: '/-', value: { name: 'a', weight: 700, weightType: 'fix' } },
        { op: 'add', path: '/-', value: { name: 'b', weight: 400, weightType: 'fix' } },
        { op: 'add', path: '/-', value: { name: 'c', weight: 0 } },
      ],
    })
    expect(expectProblem(res, 400, 'BadDataError').details[0].message).toBe('The traffic distribution total must equal 100%')
  })

  it('the feature read model shows the completed stage with its status and statusValue', async () => {
    const feature = await createFeature(t.app)
    await t.app.inject({
      method: 'POST',
      url: `/api/admin/projects/default/features/${feature}/lifecycle/complete`,
      headers: auth(),
      payload: { status: 'kept', statusValue: 'b' },
    })
    const res = await t.app.inject({ method: 'GET', url: `/api/admin/projects/default/features/${feature}`, headers: auth() })
    expect(json(res).lifecycle).toMatchObject({ stage: 'completed', status: 'kept', statusValue: 'b' })
  })
})
