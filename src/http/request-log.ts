import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** An incoming x-request-id is kept when it looks like an id; otherwise the request gets a UUID. */
export const REQUEST_ID_PATTERN = /^[\w.-]{1,100}$/

/**
 * One log line per request (method, url, status, time, request id) instead of Fastify's two,
 * and the request id echoed in `x-request-id` on every response, so that a client can quote
 * it and find the line (the error id of a refusal is in the same request's log).
 */
export const requestLogPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onSend', async (request, reply) => {
      reply.header('x-request-id', request.id)
    })
    app.addHook('onResponse', async (request, reply) => {
      request.log.info(
        {
          method: request.method,
          url: request.url,
          statusCode: reply.statusCode,
          responseTime: Math.round(reply.elapsedTime * 100) / 100,
        },
        'request completed'
      )
    })
  },
  { name: 'request-log' }
)
