import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { DatabaseHandle } from '../db/database.js'

/**
 * Prometheus metrics at /metrics (no token): requests by route and status, their latency,
 * and the database pool. Route labels are route patterns, so cardinality stays bounded.
 */
export const metricsPlugin = fp<{ database: DatabaseHandle }>(
  async (app: FastifyInstance, { database }) => {
    const registry = new Registry()
    const labelNames = ['method', 'route', 'status'] as const
    const requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered',
      labelNames,
      registers: [registry],
    })
    const duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request to response',
      labelNames,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    })
    // collect() reads the pool at scrape time.
    const pool = new Gauge({
      name: 'db_pool_connections',
      help: 'Database pool connections by state',
      labelNames: ['state'] as const,
      registers: [],
      collect () {
        const stats = database.poolStats()
        this.set({ state: 'total' }, stats.total)
        this.set({ state: 'idle' }, stats.idle)
        this.set({ state: 'waiting' }, stats.waiting)
      },
    })
    registry.registerMetric(pool)

    app.addHook('onResponse', async (request, reply) => {
      const labels = {
        method: request.method,
        route: request.routeOptions.url ?? 'unknown',
        status: String(reply.statusCode),
      }
      requests.inc(labels)
      duration.observe(labels, reply.elapsedTime / 1000)
    })

    app.get(
      '/metrics',
      {
        config: { access: 'public' },
        schema: {
          operationId: 'getMetrics',
          tags: ['Operations'],
          summary: 'Prometheus metrics (no token)',
          response: {
            200: {
              description: 'Prometheus text exposition format 0.0.4',
              content: { 'text/plain': { schema: { type: 'string' } } },
            },
          },
        },
      },
      async (_request, reply) => {
        reply.type(registry.contentType)
        return registry.metrics()
      }
    )
  },
  { name: 'metrics' }
)
