/**
 * A change request's preview: its changes applied as applying applies them (the same locks,
 * conflicts and single writes), read in that transaction's view, then rolled back. Nothing it
 * does is kept: no row, no event (so no webhook and no stream frame), and the request's state
 * is not touched.
 */
import type { Transaction } from 'kysely'
import { coversEnvironment, coversProject, type TokenScope } from '../access/scope.js'
import type { Database, DB } from '../db/types.js'
import { ApiError, notFound, permissionDenied } from '../errors.js'
import type { Author } from '../events/events.schemas.js'
import { OPEN_STATES } from '../vocabulary/change-requests.js'
import { applyChanges } from './apply.service.js'
import type { StoredRequest } from './change-requests.schemas.js'
import { changesOf, findRequest } from './change-requests.store.js'
import type { ChangeRules } from './payloads.js'

/** What the preview's work reads: the request, in the view of a transaction where it is applied. */
export interface AppliedView {
  request: StoredRequest
  trx: Transaction<DB>
}

/**
 * Runs `read` in a transaction where the request's changes are applied, then rolls it all back
 * and returns what `read` returned. 404 when there is no such request or it is in a project
 * outside the caller's (an admin token's projects); 403 for an environment outside an admin
 * token's; 409 for a closed request (Applied, Cancelled, Rejected), and, as applying, when what
 * a change changes has moved since it was added or a write refuses (nothing is kept either way).
 */
export async function withRequestApplied<T> (db: Database, rules: ChangeRules, token: TokenScope, id: number, author: Author, read: (view: AppliedView) => Promise<T>): Promise<T> {
  // A transaction this function ends itself: always rolled back, whatever happens in it.
  const trx = await db.startTransaction().execute()
  try {
    const request = await findRequest(trx, id)
    if (!request || !coversProject(token, request.project)) throw notFound(`Change request ${id} does not exist`)
    if (!coversEnvironment(token, request.environment)) throw permissionDenied(`API token ${token.name} has no access to environment ${request.environment}`)
    if (!(OPEN_STATES as readonly string[]).includes(request.state)) {
      throw new ApiError('ChangeRequestStateError', `Change request ${id} is ${request.state}: only an open request (Draft, In review, Approved, Scheduled) is previewed`)
    }
    // The events the writes announce are dropped, as everything else the writes do.
    await applyChanges({ trx, record: () => {} }, request, await changesOf(trx, [id]), author, rules)
    return await read({ request, trx })
  } finally {
    await trx.rollback().execute()
  }
}
