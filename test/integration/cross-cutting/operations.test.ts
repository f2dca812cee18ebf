import { describe, expect, it } from 'vitest'
import { auth, buildTestApp, expectProblem, useTestApp } from '../../helpers/app.js'

const t = useTestApp()

describe('/metrics', () => {
  it('serves Prometheus metrics without a token: requests by route and status, latency, pool', async () => {
    await t.app.inject({ method: 'GET', url: '/api/admin/projects', headers: auth() })
    await t.app.inject({ method: 'GET', url: '/api/admin/projects/nope', headers: auth() })
    const res = await t.app.inject({ method: 'GET', url: '/metrics' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toContain('text/plain')
    expect(res.body).toMatch(/http_requests_total\{method="GET",route="\/api\/admin\/projects",status="200"\} 1/)
    expect(res.body).toMatch(/http_requests_total\{method="GET",route="\/api\/admin\/projects\/:projectId",status="404"\} 1/)
    expect(res.body).toMatch(/http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/admin\/projects",status="200"\}/)
    expect(res.body).toMatch(/db_pool_connections\{state="total"\} \d+/)
  })

  it('can be switched off', async () => {
    const off = await buildTestApp({ METRICS_ENABLED: 'false' })
    try {
      expectProblem(await off.app.inject({ method: 'GET', url: '/metrics', headers: auth() }), 404, 'NotFoundError')
    } finally {
      await off.close()
    }
  })
})

describe('/ready while draining', () => {
  it('answers 503 once shutdown has begun, while other requests are still served', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200)
    t.app.draining = true
    try {
      expectProblem(await t.app.inject({ method: 'GET', url: '/ready' }), 503, 'ServiceUnavailableError')
      expect((await t.app.inject({ method: 'GET', url: '/api/admin/projects', headers: auth() })).statusCode).toBe(200)
    } finally {
      t.app.draining = false
    }
  })
})
