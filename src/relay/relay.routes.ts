import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ApiError } from '../errors.js'
import type { Relay } from './relay.js'

const Upstream = Type.Object({
  url: Type.String({ description: 'UPSTREAM_URL' }),
  state: Type.Union([Type.Literal('connected'), Type.Literal('unreachable'), Type.Literal('unknown')], { description: 'Whether the last request to the upstream (or its stream) got an answer' }),
  since: Type.String({ format: 'date-time', description: 'Since when it has been so' }),
  streaming: Type.Boolean({ description: 'Changes arrive on streams (else: polled every REFRESH_INTERVAL)' }),
})

/** The relay's own routes: /health and /ready. */
export const relayRoutes: FastifyPluginAsyncTypebox<{ relay: Relay }> = async (app, { relay }) => {
  const upstream = () => ({
    url: relay.upstream.url,
    state: relay.upstream.up === undefined ? 'unknown' as const : relay.upstream.up ? 'connected' as const : 'unreachable' as const,
    since: new Date(relay.upstream.since).toISOString(),
    streaming: relay.modes.streams !== false,
  })

  app.get(
    '/health',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Operations'],
        operationId: 'getHealth',
        summary: 'The relay process is up (no token); 200 also while it waits for its upstream',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const })
  )

  app.get(
    '/ready',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Operations'],
        operationId: 'getReady',
        summary: 'Every token of TOKENS is served (no token); 503 before, and while shutting down',
        description: 'Once every token of TOKENS is served (its flags held, from the upstream or BACKUP_FOLDER; a token the upstream refuses is left out, with an error in the log), 200, also while the upstream is away: the relay then serves the last state it received, and `upstream.state` says `unreachable`.',
        errors: [503],
        response: {
          200: Type.Object({
            status: Type.Literal('ready'),
            upstream: Upstream,
            scopes: Type.Integer({ description: 'Environment and project sets held' }),
            detail: Type.String(),
          }),
        },
      },
    },
    async () => {
      if (app.draining) throw new ApiError('ServiceUnavailableError', 'Shutting down')
      const { ready, waiting } = relay.readiness()
      if (!ready) throw new ApiError('ServiceUnavailableError', `Waiting for the flags of ${waiting} token(s) of TOKENS from the upstream (${relay.upstream.url})`)
      const state = upstream()
      const detail = state.state === 'unreachable'
        ? `The upstream cannot be reached since ${state.since}: serving the last state received`
        : 'Serving the upstream\'s current state'
      return { status: 'ready' as const, upstream: state, scopes: relay.scopes.size, detail }
    }
  )
}
