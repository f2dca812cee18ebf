import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorStatuses } from '../http/openapi.js'
import { RequestIdParams } from '../change-requests/change-requests.schemas.js'
import { changeRequestPlayground, type PreviewContext } from './change-request-preview.service.js'
import { AdvancedPlaygroundRequest, AdvancedPlaygroundResponse, ChangeRequestPlaygroundRequest, PlaygroundRequest, PlaygroundResponse } from './playground.schemas.js'
import { advancedPlayground, MAX_EVALUATIONS, playground, type Tracers } from './playground.service.js'

const EVALUATED =
  'Evaluated by the frontend API\'s evaluator (the rules of the official Node SDK), its rules called one by one so that every strategy, constraint and segment has its result: a disabled strategy is listed "unevaluated", a custom strategy and applicationHostname (whose answer depends on the host the SDK runs on) "incomplete". A flag switched off in the environment has its strategies evaluated as if it were on; `isEnabled` is what the SDK answers. Flags of the projects asked for (`*`, the default: every project) within the caller\'s, in name order, those not in the environment included (off there). An environment that does not exist: every flag off. Needs a Viewer, or an admin token (its projects and environments).'

export const playgroundRoutes: FastifyPluginAsyncTypebox<{ tracers: Tracers; preview: PreviewContext }> = async (app, { tracers, preview }) => {
  app.post(
    '/api/admin/playground',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Playground'],
        operationId: 'getPlayground',
        summary: 'Why is each flag on or off for this context: every flag of an environment evaluated, with its trace',
        description: `As Unleash 8.2: \`input\` echoes the request; per flag \`isEnabled\`, \`isEnabledInCurrentEnvironment\`, \`hasUnsatisfiedDependency\`, \`variant\`, \`variants\` and its strategies with their results. ${EVALUATED} 400 without an environment, a context, or the context's appName; 403 for an environment outside an admin token's.`,
        body: PlaygroundRequest,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 200: PlaygroundResponse },
      },
    },
    async (request) => playground(tracers, request.token, request.body)
  )

  app.post(
    '/api/admin/playground/advanced',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Playground'],
        operationId: 'getAdvancedPlayground',
        summary: 'Every flag of several environments evaluated for every combination of the context values',
        description: `As Unleash 8.2: each context value is split at commas and every combination of the values is evaluated (properties join the top-level fields); per flag and environment one answer per combination, each with its \`environment\` and \`context\`. Top-level members whose value is not a string are left out and named in \`warnings.invalidContextProperties\` (\`warnings\` only when there is one). At most ${MAX_EVALUATIONS.toLocaleString('en')} evaluations (environments × flags × combinations): more is a 400 saying so, before any is made. ${EVALUATED} 400 without environments (or with none), a context, or the context's appName; 403 for an environment outside an admin token's.`,
        body: AdvancedPlaygroundRequest,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 200: AdvancedPlaygroundResponse },
      },
    },
    async (request) => advancedPlayground(tracers, request.token, request.body)
  )

  app.post(
    '/api/admin/playground/change-request/:id',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Playground'],
        operationId: 'getChangeRequestPlayground',
        summary: 'Evaluate a context as if a change request were applied (its preview)',
        description: `As Unleash Enterprise: the advanced playground's answer on the state the change request would make, for its environment and its project's flags (\`input\` names them). Its changes are applied as applying applies them, in a transaction that is then rolled back: nothing is stored, no event, webhook or stream frame, and the request keeps its state. Each context value is split at commas and every combination is evaluated, at most ${MAX_EVALUATIONS.toLocaleString('en')} evaluations (400 beyond). Evaluated as the playground evaluates (the same evaluator and traces). Whoever may read the request may preview it: any signed-in person, or an admin token of its project and environment. 404 for a request that does not exist, or in a project outside an admin token's; 403 for its environment outside an admin token's; 409 for a closed request (Applied, Cancelled, Rejected) and, as applying, when what a change changes has moved since it was added (a strategy edited, the flag archived) or a write refuses; 400 without a context or the context's appName.`,
        params: RequestIdParams,
        body: ChangeRequestPlaygroundRequest,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 200: AdvancedPlaygroundResponse },
      },
    },
    async (request) => changeRequestPlayground(preview, request.token, request.author, request.params.id, request.body)
  )
}
