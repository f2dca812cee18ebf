import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { DatabaseHandle } from '../db/database.js'

/**
 * Prometheus metrics at /metrics (no token): requests by route and status, their latency,
 * the database pool and the change feed (on the server), the streams, and what `more` adds (a
 * relay's). Route labels are route patterns, so cardinality stays bounded.
 */
export const metricsPlugin = fp<{ database?: DatabaseHandle | undefined; more?: (registry: Registry) => void }>(
  async (app: FastifyInstance, { database, more }) => {
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
        const stats = database!.poolStats()
        this.set({ state: 'total' }, stats.total)
        this.set({ state: 'idle' }, stats.idle)
        this.set({ state: 'waiting' }, stats.waiting)
      },
    })
    if (database !== undefined) registry.registerMetric(pool)
    // Streams and the change feed, read at scrape time (both exist once the app is built).
    registry.registerMetric(new Gauge({
      name: 'streaming_streams',
      help: 'SDK streams (GET /api/client/streaming) open on this instance',
      registers: [],
      collect () { this.set(app.streams?.size ?? 0) },
    }))
    registry.registerMetric(new Gauge({
      name: 'streaming_dropped_total',
      help: 'Streams closed because their client did not take what was sent (slow readers)',
      registers: [],
      collect () { this.set(app.streams?.stats.dropped ?? 0) },
    }))
    more?.(registry)
    if (database !== undefined) {
      registry.registerMetric(new Gauge({
        name: 'change_feed_listening',
        help: '1 while the change feed listens for commits (LISTEN/NOTIFY), 0 while it reconnects',
        registers: [],
        collect () { this.set(app.changes?.listening === true ? 1 : 0) },
      }))
    }

    // The series of each method, route and status, looked up once: labelling a series costs
    // more than counting in it. Bounded: routes are patterns.
    const series = new Map<string, { count: Counter.Internal; time: Histogram.Internal<string> }>()
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unknown'
      const key = `${request.method} ${route} ${reply.statusCode}`
      let s = series.get(key)
      if (s === undefined) {
        const labels = { method: request.method, route, status: String(reply.statusCode) }
        s = { count: requests.labels(labels), time: duration.labels(labels) }
        series.set(key, s)
      }
      s.count.inc()
      s.time.observe(reply.elapsedTime / 1000)
      done()
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
