/**
 * The service as a hostile client sees it: requests written byte by byte on real sockets,
 * against a listening server. Every refusal is also checked in storage: nothing changed.
 */
import { Writable } from 'node:stream'
import pino from 'pino'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../../src/app.js'
import { createDatabase } from '../../../src/db/database.js'
import {
  auth,
  buildTestApp,
  createFeature,
  createToken,
  documentedRoutes,
  expectProblem,
  json,
  testConfig,
  uniqueName,
  useTestApp,
} from '../../helpers/app.js'
import { freePort } from '../../helpers/postgres.js'
import { rawExchange, rawRequest, type RawResponse } from '../../helpers/raw-http.js'
import { databaseFingerprint, featureState } from '../../helpers/state.js'
import { unstorableCases } from '../../helpers/unstorable.js'

const t = useTestApp()
let port = 0
let victim = ''
let bystanderToken = ''

beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  port = (t.app.server.address() as { port: number }).port
  victim = await createFeature(t.app)
  bystanderToken = uniqueName('bystander')
  await createToken(t.app, {}, bystanderToken)
  await t.app.inject({
    method: 'PUT',
    url: `/api/admin/projects/default/features/${victim}/environments/development/variants`,
    headers: auth(),
    payload: [{ name: 'kept', weight: 0 }],
  })
})

const problemOf = (res: RawResponse) => {
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  return JSON.parse(res.body) as { name: string; status: number; details: { path?: string; message: string }[] }
}

/** A body that would change something if the request got through. */
function bodyFor (method: string, url: string): string | undefined {
  if (method === 'GET' || method === 'DELETE') return undefined
  if (url.endsWith('/variants')) {
    return JSON.stringify(method === 'PATCH' ? [{ op: 'replace', path: '/0/name', value: 'pwned' }] : [{ name: 'pwned', weight: 0 }])
  }
  if (url.endsWith('/complete')) return JSON.stringify({ status: 'discarded' })
  if (url.endsWith('/environments') && url.includes('/projects/')) return JSON.stringify({ environment: 'production' })
  if (url.endsWith('/environments')) return JSON.stringify({ name: 'pwned', type: 'test' })
  if (url.endsWith('/features')) return JSON.stringify({ name: 'pwned' })
  if (url.endsWith('/projects')) return JSON.stringify({ id: 'pwned', name: 'pwned' })
  if (url.endsWith('/api-tokens')) return JSON.stringify({ tokenName: 'pwned' })
  return '{}'
}

/** The same request target, written the ways a router may read differently from a string test. */
function disguises (path: string): string[] {
  const [, first, ...rest] = path.split('/')
  const tail = rest.join('/')
  return [
    path,
    `/%${first!.charCodeAt(0).toString(16)}${first!.slice(1)}/${tail}`,
    `/${first}/%${tail.charCodeAt(0).toString(16).toUpperCase()}${tail.slice(1)}`,
    `/${first}%2F${tail}`,
    `/${first}/x/../${tail}`,
    `/./${first}/${tail}`,
    `//${first}/${tail}`,
    `${path}/`,
    `${path}?`,
    `${path};x=1`,
    `http://evil.example${path}`,
    `http://127.0.0.1:${port}${path}`,
  ]
}

describe('authentication is decided by the matched route, however the target is written', () => {
  it('no token and a wrong token: 401 on every documented route, in every disguise and method, nothing written', async () => {
    const before = await databaseFingerprint(t.database.db)
    const routes = (await documentedRoutes(t.app)).filter((r) => r.url.startsWith('/api/'))
    expect(routes.length).toBeGreaterThanOrEqual(18)
    let requests = 0
    for (const route of routes) {
      const path = fill(route.url)
      for (const target of disguises(path)) {
        const variants: { method: string; headers: Record<string, string> }[] = [
          { method: route.method, headers: {} },
          { method: 'HEAD', headers: {} },
          { method: 'OPTIONS', headers: {} },
          { method: 'POST', headers: { 'x-http-method-override': route.method } },
          { method: 'GET', headers: { 'x-http-method': route.method, 'x-method-override': route.method } },
        ]
        for (const v of variants) {
          for (const token of [undefined, 'wrong-secret', `Bearer ${'x'.repeat(64)}`]) {
            const res = await rawRequest(port, {
              method: v.method,
              target,
              headers: { ...v.headers, ...(token ? { authorization: token } : {}) },
              body: v.method === 'HEAD' ? undefined : bodyFor(route.method, route.url),
            })
            requests++
            // The frontend API answers CORS preflights without a token (browsers send none): 204, no body.
            if (v.method === 'OPTIONS' && route.url.startsWith('/api/frontend') && res.status === 204 && res.body === '') continue
            if (res.status !== 401) {
              throw new Error(`${v.method} ${target} (token ${token ?? 'none'}) answered ${res.status}: ${res.body}`)
            }
            if (v.method !== 'HEAD') expect(problemOf(res).status).toBe(401)
          }
        }
      }
    }
    expect(requests).toBeGreaterThan(3000)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    // About 180 requests per documented route, one after another: minutes on a loaded machine.
  }, 300_000)

  it('a token scoped to another project: never more than the plain request gets, nothing written', async () => {
    const scoped = await createToken(t.app, { projects: ['other'], environments: ['production'] })
    const before = await databaseFingerprint(t.database.db)
    const routes = (await documentedRoutes(t.app)).filter((r) => r.url.startsWith('/api/'))
    for (const route of routes) {
      const path = fill(route.url)
      const body = bodyFor(route.method, route.url)
      const plain = await rawRequest(port, { method: route.method, target: path, headers: auth(scoped), body })
      // Validating a constraint or a flag name reads nothing of any project: any admin token may;
      // the playground evaluates the projects its body names, within the token's. The
      // features-batch routes and segments/strategies name their project and environment in the
      // body: a body they refuse ('{}') is a 400 whatever the token (one naming another project is a 403).
      // A change request's preview learns its project from the request, once the body is valid (a 404 then).
      const bodyScoped = ['/api/admin/constraints/validate', '/api/admin/features/validate', '/api/admin/playground', '/api/admin/playground/advanced', '/api/admin/features-batch/export', '/api/admin/features-batch/validate', '/api/admin/features-batch/import', '/api/admin/segments/strategies', '/api/admin/playground/change-request/:id']
      if (route.method !== 'GET' && !bodyScoped.includes(route.url)) expect([403, 404], `${route.method} ${route.url}`).toContain(plain.status)
      for (const target of disguises(path).slice(1)) {
        for (const method of [route.method, 'POST']) {
          const res = await rawRequest(port, {
            method,
            target,
            headers: { ...auth(scoped), 'x-http-method-override': route.method },
            body: bodyFor(method, route.url),
          })
          // Either the router matched the same route (same answer) or no route at all.
          const allowed = method === route.method ? [plain.status, 400, 404, 405] : [400, 403, 404, 405]
          if (!allowed.includes(res.status)) {
            throw new Error(`${method} ${target} with a scoped token answered ${res.status}, plain ${plain.status}: ${res.body}`)
          }
        }
      }
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

/** A concrete path for a route pattern: the victim feature, an existing token name. */
function fill (url: string) {
  return url
    .replace(':projectId', 'default')
    .replace(':featureName', victim)
    .replace(':environment', 'development')
    .replace(':token', bystanderToken)
    .replace(':strategyId', '01ARZ3NDEKTSV4RRFFQ69G5FAV')
    .replace(':parent', victim)
    .replace(':name', 'default')
    .replace(':id', '1')
    .replace(':deliveryId', '1')
}

describe('strings storage cannot hold', () => {
  it('NUL and lone surrogates: 400 naming the field, everywhere a string enters, dry run or not; nothing written', async () => {
    const before = await databaseFingerprint(t.database.db)
    for (const c of unstorableCases(victim)) {
      const res = await t.app.inject({
        method: c.method,
        url: c.url,
        headers: { ...auth(), 'content-type': 'application/json' },
        ...(c.body === undefined ? {} : { payload: JSON.stringify(c.body) }),
      })
      const body = expectProblem(res, 400, 'BadDataError')
      expect(body.details[0].path, `${c.method} ${c.url}`).toBe(c.path)
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('a dry run refuses exactly what the real write refuses', async () => {
    const url = `/api/admin/projects/default/features/${victim}/environments/development/variants`
    const bodies = [
      [{ op: 'add', path: '/-', value: { name: 'x\u0000', weight: 0 } }],
      [{ op: 'add', path: '/-', value: { name: 'x', weight: 0, payload: { type: 'json', value: '{' } } }],
      [{ op: 'add', path: '/-', value: { name: 'x', weight: 1001, weightType: 'fix' } }],
      [{ op: 'remove', path: '/5' }],
    ]
    for (const payload of bodies) {
      const dry = await t.app.inject({ method: 'PATCH', url: `${url}?dryRun=true`, headers: auth(), payload })
      const real = await t.app.inject({ method: 'PATCH', url, headers: auth(), payload })
      expect(dry.statusCode).toBe(400)
      expect({ ...json(dry), id: 0 }).toEqual({ ...json(real), id: 0 })
    }
  })
})

describe('bounded work', () => {
  const url = () => `/api/admin/projects/default/features/${victim}/environments/development/variants`

  it('26 self-doubling copies are refused at the operation that crosses a limit, quickly, nothing written', async () => {
    const before = await featureState(t.database.db, victim)
    const ops = Array.from({ length: 26 }, () => ({ op: 'copy', from: '', path: '/-' }))
    const started = performance.now()
    const res = await t.app.inject({ method: 'PATCH', url: url(), headers: auth(), payload: ops })
    expect(performance.now() - started).toBeLessThan(2000)
    const body = expectProblem(res, 400, 'BadDataError')
    expect(body.details[0].path).toMatch(/^\/body\/\d+/)
    expect(await featureState(t.database.db, victim)).toEqual(before)
  })

  it('a document nested 100,000 deep is a 400 about depth, never a stack overflow', async () => {
    const payload = '['.repeat(100_000) + ']'.repeat(100_000)
    const res = await rawRequest(port, { method: 'PATCH', target: url(), headers: auth(), body: payload })
    expect(res.status).toBe(400)
    expect(res.body).not.toMatch(/call stack/i)
    expect(problemOf(res).details[0]!.message).toMatch(/deep/i)
  })

  it('a body limit-sized PUT is stored whole while /health keeps being answered', async () => {
    // ~1,000,000 bytes: 1000 variants with 900-character payloads. How long it holds the
    // instance's other traffic is measured by `npm run bench` (BENCH_ONLY=large), not here.
    const variants = Array.from({ length: 1000 }, (_, i) => ({
      name: `v${i}`,
      weight: 0,
      payload: { type: 'string', value: String(i).padEnd(900, 'x') },
    }))
    const payload = JSON.stringify(variants)
    expect(payload.length).toBeGreaterThan(900_000)
    const probing = { on: true }
    const probes: number[] = []
    const prober = (async () => {
      while (probing.on) {
        const res = await rawRequest(port, { method: 'GET', target: '/health' })
        probes.push(res.status)
      }
    })()
    const res = await rawRequest(port, { method: 'PUT', target: url(), headers: auth(), body: payload }, 60_000)
    probing.on = false
    await prober
    expect(res.status).toBe(200)
    expect(probes.length).toBeGreaterThan(0)
    expect(probes.every((status) => status === 200)).toBe(true)
    const stored = (await featureState(t.database.db, victim)).environments.find((e) => e.environment_name === 'development')!.variants
    expect(stored).toHaveLength(1000)
    expect(stored[999]).toMatchObject({ name: 'v999', payload: variants[999]!.payload })
  })

  it('475 concurrent PATCHes on one feature: no 503; each is applied (200) or shed with 429 and Retry-After; none lost', async () => {
    const feature = await createFeature(t.app)
    const target = `/api/admin/projects/default/features/${feature}/environments/development/variants`
    const results = await Promise.all(
      Array.from({ length: 475 }, (_, i) =>
        t.app.inject({
          method: 'PATCH',
          url: target,
          headers: auth(),
          payload: [{ op: 'add', path: '/-', value: { name: `c${i}`, weight: 0 } }],
        })
      )
    )
    const statuses = results.map((r) => r.statusCode)
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([])
    for (const shed of results.filter((r) => r.statusCode === 429)) {
      expect(shed.headers['retry-after']).toBe('1')
      expectProblem(shed, 429, 'TooManyRequestsError')
    }
    const applied = statuses.filter((s) => s === 200).length
    expect(applied).toBeGreaterThan(0)
    const stored = await featureState(t.database.db, feature)
    expect(stored.environments.find((e) => e.environment_name === 'development')!.variants).toHaveLength(applied)
  })
})

describe('malformed and slow HTTP', () => {
  it('431 with the common error body for headers above the limit', async () => {
    const res = await rawRequest(port, { method: 'GET', target: '/health', headers: { 'x-big': 'x'.repeat(20_000) } })
    expect(res.status).toBe(431)
    expect(problemOf(res).name).toBe('RequestHeaderFieldsTooLargeError')
  })

  it('400 with the common error body for a request that is not HTTP', async () => {
    const res = await rawExchange(port, 'HELLO WORLD\r\n\r\n')
    expect(res.status).toBe(400)
    expect(problemOf(res).name).toBe('BadDataError')
  })

  it('a malformed %-escape in an OFREP flag key is OFREP\'s PARSE_ERROR however the target is written; elsewhere the problem body', async () => {
    const ofrep = [
      '/ofrep/v1/evaluate/flags/%E0%A4%A',
      `http://127.0.0.1:${port}/ofrep/v1/evaluate/flags/%E0%A4%A`,
      'HTTP://example.com/ofrep/v1/evaluate/flags/%E0%A4%A?x=1',
      '/ofrep/v1/evaluate/%66lags/%E0%A4%A',
      '/ofrep/v1/evaluate/flags/%E0%A4%A/',
    ]
    for (const target of ofrep) {
      const res = await rawRequest(port, { method: 'POST', target, body: '{"context":{}}' })
      expect(res.status, target).toBe(400)
      expect(res.headers['content-type'], target).toMatch(/^application\/json/)
      expect(JSON.parse(res.body), target).toMatchObject({ errorCode: 'PARSE_ERROR' })
    }
    for (const target of ['/api/admin/projects/%E0%A4%A', '/ofrep/v1/evaluate/flagsx/%E0%A4%A', `http://127.0.0.1:${port}/ofrep/v2/evaluate/flags/%E0%A4%A`]) {
      const res = await rawRequest(port, { method: 'POST', target, body: '{"context":{}}' })
      expect(res.status, target).toBe(400)
      expect(res.headers['content-type'], target).toMatch(/^application\/problem\+json/)
    }
  })

  it('a client that sends its headers too slowly gets 408 and the connection closed', async () => {
    const slow = await buildTestApp({ REQUEST_TIMEOUT_MS: '1000' })
    try {
      await slow.app.listen({ port: 0, host: '127.0.0.1' })
      const slowPort = (slow.app.server.address() as { port: number }).port
      const started = performance.now()
      // A request line and one header, then nothing more.
      const res = await rawExchange(slowPort, 'GET /health HTTP/1.1\r\nhost: x\r\n', 10_000)
      expect(res.status).toBe(408)
      expect(problemOf(res).name).toBe('RequestTimeoutError')
      expect(performance.now() - started).toBeLessThan(4000)
    } finally {
      await slow.close()
    }
  })
})

describe('secrets stay out of the logs', () => {
  it('no token, no database password in any line, even when the database fails', async () => {
    const lines: string[] = []
    const sink = new Writable({
      write (chunk, _enc, done) {
        lines.push(String(chunk))
        done()
      },
    })
    const password = 'sup3r-s3cret-pw'
    const config = testConfig(`postgres://admin:${password}@127.0.0.1:${await freePort()}/nothing`, {
      DATABASE_CONNECT_TIMEOUT_MS: '500',
    })
    const database = await createDatabase(config)
    const app = await buildApp(config, { database }, pino({ level: 'debug' }, sink))
    try {
      const secret = 'tok-abcdef-123456'
      const res = await app.inject({ method: 'GET', url: '/api/admin/projects', headers: { authorization: secret } })
      expect(res.statusCode).toBe(503)
      expect(lines.length).toBeGreaterThan(0)
      const log = lines.join('')
      expect(log).not.toContain(password)
      expect(log).not.toContain(secret)
    } finally {
      await app.close()
      await database.db.destroy()
    }
  })
})

describe('scoped tokens see only their scope', () => {
  it('feature details list only the environments in scope', async () => {
    const secret = await createToken(t.app, { projects: ['default'], environments: ['production'] })
    const res = await t.app.inject({ method: 'GET', url: `/api/admin/projects/default/features/${victim}`, headers: auth(secret) })
    expect(res.statusCode).toBe(200)
    expect(json(res).environments.map((e: { name: string }) => e.name)).toEqual(['production'])
  })

  it('events: token management is visible to */* tokens only, and other projects never', async () => {
    const secret = await createToken(t.app, { projects: ['default'] })
    const everything = json(await t.app.inject({ method: 'GET', url: '/api/admin/events?limit=500', headers: auth() })).events
    expect(everything.some((e: { type: string }) => e.type.startsWith('api-token-'))).toBe(true)
    const scoped = await t.app.inject({ method: 'GET', url: '/api/admin/events?limit=500', headers: auth(secret) })
    expect(scoped.statusCode).toBe(200)
    const types = json(scoped).events.map((e: { type: string; project: string | null }) => `${e.type} ${e.project}`)
    expect(types.length).toBeGreaterThan(0)
    expect(types.filter((t: string) => t.startsWith('api-token-') || !t.endsWith(' default'))).toEqual([])
  })
})

describe('patches that would pollute or silently do nothing', () => {
  const url = () => `/api/admin/projects/default/features/${victim}/environments/development/variants`

  it('reserved member names and no-op operations are refused with 400 naming the operation', async () => {
    const before = await featureState(t.database.db, victim)
    const attempts = [
      [{ op: 'add', path: '/0/__proto__/polluted', value: true }],
      [{ op: 'add', path: '/0/constructor/prototype/polluted', value: true }],
      [{ op: 'replace', path: '/0/payload', value: { type: 'string', value: 'x' }, extra: 1 }, { op: 'copy', from: '/0/__proto__', path: '/0/x' }],
      [{ op: 'remove', path: '/0/overrides' }],
      [{ op: 'move', from: '/0', path: '/0/name' }],
      [{ op: 'add', path: '/01', value: { name: 'x', weight: 0 } }],
      [{ op: 'replace', path: '/-', value: { name: 'x', weight: 0 } }],
      [{ op: 'replace', path: '/-1', value: { name: 'x', weight: 0 } }],
      [{ op: 'remove', path: '/0/__proto__' }],
      [{ op: 'replace', path: '/0/constructor', value: 1 }],
    ]
    for (const payload of attempts) {
      const res = await t.app.inject({ method: 'PATCH', url: url(), headers: auth(), payload })
      const body = expectProblem(res, 400, 'BadDataError')
      expect(body.details[0].path).toMatch(/^\/body\/\d/)
    }
    const raw = '{"__proto__":{"polluted":true},"status":"kept"}'
    const completion = await t.app.inject({
      method: 'POST',
      url: `/api/admin/projects/default/features/${victim}/lifecycle/complete`,
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: raw,
    })
    expectProblem(completion, 400, 'BadDataError')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(await featureState(t.database.db, victim)).toEqual(before)
  })
})
