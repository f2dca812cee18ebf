import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply } from '../http/schemas.js'
import { setFrontendOrigins } from '../instance/settings.service.js'
import { SetCors, UiConfig, UiError } from './ui-config.schemas.js'
import { uiConfig, type UiConfigContext } from './ui-config.service.js'

interface Options extends UiConfigContext {
  db: Database
  /** UNLEASH_URL without a trailing slash; undefined: the request's own origin. */
  publicUrl: string | undefined
  /** Whether FRONTEND_ALLOWED_ORIGINS fixes the frontend API's origins. */
  originsFixed: boolean
}

const TAGS = ['Admin UI']

/** What Unleash's admin clients read first (ui-config), the frontend API's origins, and the UI's error reports. */
export const uiConfigRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  const { db, settings, publicUrl, originsFixed } = options

  app.get(
    '/api/admin/ui-config',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: TAGS,
        operationId: 'getUiConfig',
        summary: 'What this server is and how it is set up, for admin clients',
        description: "Unleash's shape, honest about this server: its version (open source), how people sign in, whether maintenance mode is on, the frontend API's origins, its limits (resourceLimits, every key), and Unleash 8.2's flags (false but those that describe this server). Anyone signed in, or any admin token.",
        errors: errorStatuses(403),
        response: { 200: UiConfig },
      },
    },
    async (request) => uiConfig(options, publicUrl ?? `${request.protocol}://${request.host}`, request.person?.id)
  )

  app.post(
    '/api/admin/ui-config/cors',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags: TAGS,
        operationId: 'setCors',
        summary: 'Set the origins whose pages may call the frontend API',
        description: 'frontendApiOrigins: * (any), or origins exactly as browsers send them (https://app.example.com: scheme, host, port; no path), at most 100; [] allows none. Holds at once on this instance, within moments on the others; ui-config answers it. 400 naming each origin that is not one (unlike Unleash, a body without frontendApiOrigins is 400, not 404); 409 while FRONTEND_ALLOWED_ORIGINS fixes them. Records setting-created or setting-updated ({id: "unleash.frontend", frontendApiOrigins}) when it changes anything.',
        body: SetCors,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 204: EmptyReply },
      },
    },
    async (request, reply) => {
      await setFrontendOrigins(db, settings, originsFixed, request.body.frontendApiOrigins, request.author)
      return reply.code(204).send()
    }
  )

  app.post(
    '/api/admin/record-ui-error',
    {
      config: { access: 'person', maintenance: 'open' },
      schema: {
        tags: TAGS,
        operationId: 'uiObservability',
        summary: 'An error the admin UI met',
        description: 'Logged at info (message and stack cut to 1,000 and 4,000 characters), kept nowhere; answers 204. From a person (an API token gets 403).',
        body: UiError,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 204: EmptyReply },
      },
    },
    async (request, reply) => {
      const { errorMessage, errorStack } = request.body
      request.log.info({ errorMessage: errorMessage.slice(0, 1000), errorStack: errorStack?.slice(0, 4000) }, 'the admin UI reported an error')
      return reply.code(204).send()
    }
  )
}
