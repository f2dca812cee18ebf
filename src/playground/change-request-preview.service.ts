/**
 * POST /api/admin/playground/change-request/{id}: the advanced playground's answer for the
 * request's environment and project, on the state the request would make. The request is
 * applied in a transaction that is rolled back (see withRequestApplied), and the state read in
 * its view as the playground reads the current one; the evaluation runs after the rollback, so
 * that the locks the apply takes are held only while it writes and reads.
 */
import type { TokenScope } from '../access/scope.js'
import { withRequestApplied } from '../change-requests/preview.service.js'
import type { ChangeRules } from '../change-requests/payloads.js'
import { readClientState } from '../client/client.service.js'
import type { Database } from '../db/types.js'
import type { Author } from '../events/events.schemas.js'
import { Tracer } from '../evaluation/trace.js'
import { advancedPlaygroundAnswer } from './playground-answers.js'
import type { AdvancedPlaygroundResponse, ChangeRequestPlaygroundRequest } from './playground.schemas.js'

export interface PreviewContext {
  db: Database
  rules: ChangeRules
}

export async function changeRequestPlayground (ctx: PreviewContext, token: TokenScope, author: Author, id: number, body: ChangeRequestPlaygroundRequest): Promise<AdvancedPlaygroundResponse> {
  const { request, state } = await withRequestApplied(ctx.db, ctx.rules, token, id, author, async ({ request, trx }) => ({
    request,
    state: await readClientState(trx, { environment: request.environment, projects: [request.project], playground: true }, false),
  }))
  const input = { environments: [request.environment], projects: [request.project], context: body.context }
  return advancedPlaygroundAnswer(new Map([[request.environment, new Tracer(state)]]), input)
}
