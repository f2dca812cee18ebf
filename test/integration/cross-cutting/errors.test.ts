import { Writable } from 'node:stream'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { type App, buildApp } from '../../../src/app.js'
import { createDatabase } from '../../../src/db/database.js'
import { freePort } from '../../helpers/postgres.js'
import {
  auth,
  useTestApp,
  createFeature,
  createToken,
  expectProblem,
  json,
  testConfig,
} from '../../helpers/app.js'

const t = useTestApp({ BODY_LIMIT: '2048' })

const createUrl = '/api/admin/projects/default/features'

describe('the common error body', () => {
  it('415 for a body that is not JSON', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: createUrl,
      headers: { ...auth(), 'content-type': 'text/plain' },
      payload: 'name=x',
    })
    expectProblem(res, 415, 'ContentTypeError')
  })

  it('413 above the configured body limit', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: createUrl,
      headers: auth(),
      payload: { name: 'big', description: 'x'.repeat(4000) },
    })
    expectProblem(res, 413, 'PayloadTooLargeError')
  })

  it('400 for malformed JSON and for an empty JSON body', async () => {
    for (const payload of ['{"name": ', '']) {
      const res = await t.app.inject({
        method: 'POST',
        url: createUrl,
        headers: { ...auth(), 'content-type': 'application/json' },
        payload,
      })
      expectProblem(res, 400, 'BadDataError')
    }
  })

  it('400 without coercion: a number is not a string, a string is not a number', async () => {
    const res = await t.app.inject({ method: 'POST', url: createUrl, headers: auth(), payload: { name: 5 } })
    const body = expectProblem(res, 400, 'BadDataError')
    expect(body.details).toEqual([{ path: '/body/name', message: '/body/name must be string' }])
  })

  it('checks the token before the content type (401 before 415)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: createUrl,
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    })
    expectProblem(res, 401, 'AuthenticationRequired')
  })

  it('an unknown route: 401 without a token (nothing revealed), 404 naming it with one', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/nowhere' }), 401, 'AuthenticationRequired')
    const body = expectProblem(await t.app.inject({ method: 'GET', url: '/nowhere', headers: auth() }), 404, 'NotFoundError')
    expect(body.message).toBe('No route GET /nowhere')
  })

  it('400 with the common body for a malformed %-escape in the path (found by fuzzing)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/projects/%', headers: auth() })
    expectProblem(res, 400, 'BadDataError')
  })

  it('a fresh id per error, and a request id header on every response', async () => {
    const a = await t.app.inject({ method: 'GET', url: '/nowhere', headers: auth() })
    const b = await t.app.inject({ method: 'GET', url: '/nowhere', headers: auth() })
    expect(json(a).id).not.toBe(json(b).id)
    expect(json(a).id).toMatch(/^[0-9a-f-]{36}$/)
    expect(a.headers['x-request-id']).toBeTruthy()
    const echoed = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'abc-123' } })
    expect(echoed.headers['x-request-id']).toBe('abc-123')
  })

  it('accepts application/json-patch+json as JSON', async () => {
    const feature = await createFeature(t.app)
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/projects/default/features/${feature}/environments/development/variants`,
      headers: { ...auth(), 'content-type': 'application/json-patch+json' },
      payload: JSON.stringify([{ op: 'add', path: '/-', value: { name: 'a', weight: 0 } }]),
    })
    expect(res.statusCode).toBe(200)
  })
})

/** An app of its own whose log lines, at `level`, are collected as parsed objects. */
async function withLoggedApp (level: string, work: (app: App, lines: Record<string, unknown>[]) => Promise<void>) {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write (chunk, _enc, done) {
      for (const line of String(chunk).trim().split('\n')) lines.push(JSON.parse(line))
      done()
    },
  })
  const config = testConfig(t.databaseUrl)
  const database = await createDatabase(config)
  const app = await buildApp(config, { database }, pino({ level }, sink))
  try {
    await work(app, lines)
  } finally {
    await app.close()
    await database.db.destroy()
  }
}

describe('logging', () => {
  it('writes the error id into the log line of the failed request, with the request id', async () => {
    await withLoggedApp('info', async (app, lines) => {
      const res = await app.inject({ method: 'GET', url: '/api/admin/projects', headers: { 'x-request-id': 'req-42' } })
      const errorId = json(res).id
      const line = lines.find((l) => l.errorId === errorId)
      expect(line).toMatchObject({ reqId: 'req-42', errorName: 'AuthenticationRequired' })
      expect(lines.filter((l) => l.reqId === 'req-42').map((l) => l.msg)).toEqual(['request refused', 'request completed'])
    })
  })

  it('logs an SDK\'s answered call at debug, its refusal and every admin request at info', async () => {
    await withLoggedApp('debug', async (app, lines) => {
      const frontend = await createToken(app, { type: 'frontend', environment: 'development' })
      const client = await createToken(app, { type: 'client', environment: 'development' })
      const calls = [
        { id: 'poll', url: '/api/frontend?userId=u1', headers: { authorization: frontend }, status: 200 },
        { id: 'features', url: '/api/client/features', headers: { authorization: client }, status: 200 },
        { id: 'refused', url: '/api/frontend', headers: { authorization: 'default:development.nope' }, status: 401 },
        { id: 'admin', url: '/api/admin/projects', headers: auth(), status: 200 },
      ]
      for (const call of calls) {
        const res = await app.inject({ method: 'GET', url: call.url, headers: { ...call.headers, 'x-request-id': call.id } })
        expect(res.statusCode, call.id).toBe(call.status)
      }
      const level = (id: string) => lines.find((l) => l.reqId === id && l.msg === 'request completed')?.level
      expect(calls.map((c) => [c.id, level(c.id)])).toEqual([['poll', 20], ['features', 20], ['refused', 30], ['admin', 30]])
    })
  })
})

describe('database unavailable', () => {
  it('answers 503 with the common body, exposing no driver message, and /ready says 503', async () => {
    const port = await freePort()
    const config = testConfig(`postgres://postgres@127.0.0.1:${port}/nothing`)
    const database = await createDatabase(config)
    const app = await buildApp(config, { database })
    try {
      const ready = await app.inject({ method: 'GET', url: '/ready' })
      expectProblem(ready, 503, 'ServiceUnavailableError')
      const res = await app.inject({ method: 'GET', url: '/api/admin/projects', headers: auth() })
      const body = expectProblem(res, 503, 'ServiceUnavailableError')
      expect(res.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|stack/)
      expect(body.message).toBe('The database is unavailable; try again shortly')
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
    } finally {
      await app.close()
      await database.db.destroy()
    }
  })
})
