import { createHash } from 'node:crypto'
import { type Selectable, sql, type Transaction } from 'kysely'
import type { ChangeRequestChangesTable, ChangeRequestsTable, DB, Queryable } from '../db/types.js'
import { personColumns, toPerson } from '../users/users.store.js'
import { type ChangeAction, type ChangeRequestState, EDITABLE_STATES, type ScheduleStatus } from '../vocabulary/change-requests.js'
import type { StoredChange, StoredRequest } from './change-requests.schemas.js'
import type { CurrentState } from './change-rules.js'

// Settings

/** The project of a feature, archived or not (undefined: no such feature). */
export async function projectOfFeature (db: Queryable, name: string): Promise<string | undefined> {
  return (await db.selectFrom('features').select('project_id').where('name', '=', name).executeTakeFirst())?.project_id
}

/** The environments enabled in a project, each with its change request setting (none: off). */
export async function environmentSettings (db: Queryable, project: string) {
  return db
    .selectFrom('project_environments as pe')
    .innerJoin('environments as e', 'e.name', 'pe.environment_name')
    .leftJoin('change_request_settings as s', (join) => join.onRef('s.project_id', '=', 'pe.project_id').onRef('s.environment_name', '=', 'pe.environment_name'))
    .select(['e.name as environment', 'e.type', 's.enabled', 's.required_approvals'])
    .where('pe.project_id', '=', project)
    .orderBy('e.name')
    .execute()
}

/** The setting of one environment of a project, locked until the transaction ends (undefined: never set). */
export async function lockSetting (trx: Transaction<DB>, project: string, environment: string) {
  return trx
    .selectFrom('change_request_settings')
    .select(['enabled', 'required_approvals'])
    .where('project_id', '=', project)
    .where('environment_name', '=', environment)
    .forUpdate()
    .executeTakeFirst()
}

export async function findSetting (db: Queryable, project: string, environment: string) {
  return db
    .selectFrom('change_request_settings')
    .select(['enabled', 'required_approvals'])
    .where('project_id', '=', project)
    .where('environment_name', '=', environment)
    .executeTakeFirst()
}

export async function upsertSetting (trx: Transaction<DB>, project: string, environment: string, enabled: boolean, requiredApprovals: number) {
  await trx
    .insertInto('change_request_settings')
    .values({ project_id: project, environment_name: environment, enabled, required_approvals: requiredApprovals })
    .onConflict((oc) => oc.columns(['project_id', 'environment_name']).doUpdateSet({ enabled, required_approvals: requiredApprovals, updated_at: sql<Date>`now()` }))
    .execute()
}

/** Every environment, of every project, where change requests are on. */
export async function guardedEnvironments (db: Queryable) {
  return db.selectFrom('change_request_settings').select(['project_id', 'environment_name']).where('enabled', '=', true).execute()
}

// Requests

const toRequest = (row: Selectable<ChangeRequestsTable>): StoredRequest => ({
  id: row.id,
  project: row.project_id,
  environment: row.environment_name,
  state: row.state as ChangeRequestState,
  title: row.title,
  minApprovals: row.min_approvals,
  authorId: row.created_by_user_id,
  authorName: row.created_by_name,
  createdAt: row.created_at,
  stateTimestamps: JSON.parse(row.state_timestamps) as Record<string, string>,
  schedule:
    row.scheduled_at === null || row.schedule_status === null
      ? null
      : { scheduledAt: row.scheduled_at, status: row.schedule_status, reason: row.schedule_reason, byId: row.scheduled_by_user_id, byName: row.scheduled_by_name },
})

/** A new Draft for the author in this environment, unless they have an open request there (then undefined). */
export async function insertDraft (
  trx: Transaction<DB>,
  draft: { project: string; environment: string; minApprovals: number; authorId: number; authorName: string; now: string }
): Promise<StoredRequest | undefined> {
  const row = await trx
    .insertInto('change_requests')
    .values({
      project_id: draft.project,
      environment_name: draft.environment,
      state: 'Draft',
      min_approvals: draft.minApprovals,
      created_by_user_id: draft.authorId,
      created_by_name: draft.authorName,
      state_timestamps: JSON.stringify({ Draft: draft.now }),
    })
    .onConflict((oc) => oc.columns(['project_id', 'environment_name', 'created_by_user_id']).where('state', 'in', [...EDITABLE_STATES]).doNothing())
    .returningAll()
    .executeTakeFirst()
  return row && toRequest(row)
}

/** The author's open request (Draft, In review, Approved) in this environment, locked. */
export async function lockOpenRequest (trx: Transaction<DB>, project: string, environment: string, authorId: number) {
  const row = await trx
    .selectFrom('change_requests')
    .selectAll()
    .where('project_id', '=', project)
    .where('environment_name', '=', environment)
    .where('created_by_user_id', '=', authorId)
    .where('state', 'in', [...EDITABLE_STATES])
    .forUpdate()
    .executeTakeFirst()
  return row && toRequest(row)
}

/** A request, locked until the transaction ends: its writers (people, the scheduler) serialise. */
export async function lockRequest (trx: Transaction<DB>, id: number) {
  const row = await trx.selectFrom('change_requests').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
  return row && toRequest(row)
}

export async function findRequest (db: Queryable, id: number) {
  const row = await db.selectFrom('change_requests').selectAll().where('id', '=', id).executeTakeFirst()
  return row && toRequest(row)
}

export interface RequestFilter {
  project: string
  states?: readonly ChangeRequestState[]
  authorId?: number
  ids?: readonly number[]
  /** Drafts are seen by their author only: this person's (none when null). */
  viewer: number | null
  limit: number
}

/** Requests of a project, newest first. */
export async function listRequests (db: Queryable, filter: RequestFilter): Promise<StoredRequest[]> {
  if (filter.ids?.length === 0 || filter.states?.length === 0) return []
  let query = db.selectFrom('change_requests').selectAll().where('project_id', '=', filter.project)
  if (filter.states) query = query.where('state', 'in', filter.states)
  if (filter.authorId !== undefined) query = query.where('created_by_user_id', '=', filter.authorId)
  if (filter.ids) query = query.where('id', 'in', filter.ids)
  const viewer = filter.viewer
  query = query.where((eb) => eb.or([eb('state', '<>', 'Draft'), ...(viewer === null ? [] : [eb('created_by_user_id', '=', viewer)])]))
  const rows = await query.orderBy('id', 'desc').limit(filter.limit).execute()
  return rows.map(toRequest)
}

/** The states of a project's requests (for its counts). */
export async function statesOf (db: Queryable, project: string): Promise<ChangeRequestState[]> {
  const rows = await db.selectFrom('change_requests').select('state').where('project_id', '=', project).execute()
  return rows.map((r) => r.state as ChangeRequestState)
}

export interface RequestUpdate {
  state?: ChangeRequestState
  title?: string | null
  minApprovals?: number
  stateTimestamps?: Record<string, string>
  schedule?: { scheduledAt: Date; status: ScheduleStatus; reason: string | null; byId?: number | null; byName?: string | null } | null
}

export async function updateRequest (trx: Transaction<DB>, id: number, update: RequestUpdate) {
  const { schedule } = update
  await trx
    .updateTable('change_requests')
    .set({
      ...(update.state !== undefined && { state: update.state }),
      ...(update.title !== undefined && { title: update.title }),
      ...(update.minApprovals !== undefined && { min_approvals: update.minApprovals }),
      ...(update.stateTimestamps !== undefined && { state_timestamps: JSON.stringify(update.stateTimestamps) }),
      ...(schedule === null && { scheduled_at: null, schedule_status: null, schedule_reason: null, scheduled_by_user_id: null, scheduled_by_name: null }),
      ...(schedule && {
        scheduled_at: schedule.scheduledAt,
        schedule_status: schedule.status,
        schedule_reason: schedule.reason,
        ...(schedule.byId !== undefined && { scheduled_by_user_id: schedule.byId }),
        ...(schedule.byName !== undefined && { scheduled_by_name: schedule.byName }),
      }),
    })
    .where('id', '=', id)
    .execute()
}

export async function deleteRequest (trx: Transaction<DB>, id: number) {
  await trx.deleteFrom('change_requests').where('id', '=', id).execute()
}

// Changes

const toChange = (row: Selectable<ChangeRequestChangesTable>): StoredChange => ({
  id: row.id,
  requestId: row.change_request_id,
  feature: row.feature_name,
  segmentId: row.segment_id,
  action: row.action as ChangeAction,
  payload: row.payload === 'null' ? undefined : JSON.parse(row.payload),
  target: row.target,
  authorId: row.created_by_user_id,
  authorName: row.created_by_name,
  createdAt: row.created_at,
})

/** The changes of these requests (only those to segments, with `segmentsOnly`), in the order they were added. */
export async function changesOf (db: Queryable, requestIds: readonly number[], segmentsOnly = false): Promise<StoredChange[]> {
  if (requestIds.length === 0) return []
  let query = db.selectFrom('change_request_changes').selectAll().where('change_request_id', 'in', requestIds)
  if (segmentsOnly) query = query.where('segment_id', 'is not', null)
  return (await query.orderBy('id').execute()).map(toChange)
}

export async function insertChange (
  trx: Transaction<DB>,
  change: { requestId: number; feature: string | null; segmentId: number | null; action: ChangeAction; payload: unknown; target: string; authorId: number; authorName: string }
): Promise<StoredChange> {
  const row = await trx
    .insertInto('change_request_changes')
    .values({
      change_request_id: change.requestId,
      feature_name: change.feature,
      segment_id: change.segmentId,
      action: change.action,
      payload: JSON.stringify(change.payload ?? null),
      target: change.target,
      created_by_user_id: change.authorId,
      created_by_name: change.authorName,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  return toChange(row)
}

export async function deleteChanges (trx: Transaction<DB>, ids: readonly number[]) {
  if (ids.length > 0) await trx.deleteFrom('change_request_changes').where('id', 'in', ids).execute()
}

/**
 * Requests of a project in these states with a change touching any of: these features, these
 * strategies (by id, in an update, delete or reorder), these features' variants.
 */
export async function requestsTouching (db: Queryable, project: string, states: readonly ChangeRequestState[], touch: { features: readonly string[]; strategyIds: readonly string[]; variantsOf: readonly string[] }) {
  if (touch.features.length + touch.strategyIds.length + touch.variantsOf.length === 0) return []
  const rows = await db
    .selectFrom('change_requests as r')
    .innerJoin('change_request_changes as c', 'c.change_request_id', 'r.id')
    .select(['r.id', 'r.environment_name', 'r.title'])
    .distinct()
    .where('r.project_id', '=', project)
    .where('r.state', 'in', states)
    .where((eb) =>
      eb.or([
        ...(touch.features.length > 0 ? [eb('c.feature_name', 'in', touch.features)] : []),
        ...(touch.variantsOf.length > 0 ? [eb.and([eb('c.action', '=', 'patchVariant'), eb('c.feature_name', 'in', touch.variantsOf)])] : []),
        ...(touch.strategyIds.length > 0
          ? [
              eb.and([eb('c.action', 'in', ['updateStrategy', 'deleteStrategy']), eb(sql<string>`c.payload::jsonb ->> 'id'`, 'in', touch.strategyIds)]),
              eb.and([eb('c.action', '=', 'reorderStrategy'), sql<boolean>`EXISTS (SELECT 1 FROM jsonb_array_elements(c.payload::jsonb) AS e WHERE e ->> 'id' IN (${sql.join(touch.strategyIds)}))`]),
            ]
          : []),
      ])
    )
    .orderBy('r.id')
    .execute()
  return rows.map((r) => ({ id: r.id, environment: r.environment_name, ...(r.title !== null && { title: r.title }) }))
}

// Reviews, comments, requested reviewers

export async function reviewsOf (db: Queryable, requestIds: readonly number[]) {
  if (requestIds.length === 0) return []
  return db
    .selectFrom('change_request_reviews')
    .select(['change_request_id', 'user_id', 'user_name', 'verdict', 'created_at'])
    .where('change_request_id', 'in', requestIds)
    .orderBy('id')
    .execute()
}

export async function insertReview (trx: Transaction<DB>, requestId: number, userId: number, userName: string, verdict: 'approved' | 'rejected') {
  await trx
    .insertInto('change_request_reviews')
    .values({ change_request_id: requestId, user_id: userId, user_name: userName, verdict })
    .onConflict((oc) => oc.columns(['change_request_id', 'user_id', 'verdict']).doNothing())
    .execute()
}

/** Approvals given before an edit no longer count. */
export async function clearApprovals (trx: Transaction<DB>, requestId: number) {
  await trx.deleteFrom('change_request_reviews').where('change_request_id', '=', requestId).where('verdict', '=', 'approved').execute()
}

export async function commentsOf (db: Queryable, requestIds: readonly number[]) {
  if (requestIds.length === 0) return []
  return db
    .selectFrom('change_request_comments')
    .select(['id', 'change_request_id', 'user_id', 'user_name', 'text', 'created_at'])
    .where('change_request_id', 'in', requestIds)
    .orderBy('id')
    .execute()
}

export async function insertComment (trx: Transaction<DB>, requestId: number, userId: number, userName: string, text: string) {
  await trx.insertInto('change_request_comments').values({ change_request_id: requestId, user_id: userId, user_name: userName, text }).execute()
}

export async function requestedReviewers (db: Queryable, requestId: number) {
  return db
    .selectFrom('change_request_reviewers as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .select(['u.id', 'u.email', 'u.username', 'u.name'])
    .where('r.change_request_id', '=', requestId)
    .orderBy('u.id')
    .execute()
}

export async function setRequestedReviewers (trx: Transaction<DB>, requestId: number, userIds: readonly number[]) {
  await trx.deleteFrom('change_request_reviewers').where('change_request_id', '=', requestId).execute()
  if (userIds.length > 0) await trx.insertInto('change_request_reviewers').values(userIds.map((userId) => ({ change_request_id: requestId, user_id: userId }))).execute()
}

/** Every person (with their roles), by id; at most `limit`. */
export async function people (db: Queryable, limit: number, ids?: readonly number[]) {
  if (ids?.length === 0) return []
  let query = db.selectFrom('users').select(personColumns).orderBy('users.id').limit(limit)
  if (ids) query = query.where('users.id', 'in', ids)
  return (await query.execute()).map(toPerson)
}

// What changes change, as stored now

const fingerprint = (segment: { name: string; description: string | null; project_id: string | null; constraints: string }) =>
  createHash('sha256').update(JSON.stringify([segment.name, segment.description, segment.project_id, segment.constraints])).digest('base64url')

/** What the database holds now of what these changes (of one environment) change: features, strategies, variants, segments. */
export async function currentState (db: Queryable, environment: string, changes: readonly Pick<StoredChange, 'feature' | 'segmentId' | 'action' | 'payload'>[]): Promise<CurrentState> {
  const features = [...new Set(changes.flatMap((c) => (c.feature === null ? [] : [c.feature])))]
  const segmentIds = [...new Set(changes.flatMap((c) => (c.segmentId === null ? [] : [c.segmentId])))]
  const featureRows = features.length === 0 ? [] : await db.selectFrom('features').select(['name', 'archived_at']).where('name', 'in', features).execute()
  const strategyRows =
    features.length === 0
      ? []
      : await db
        .selectFrom('feature_strategies')
        .select(['id', 'feature_name', 'revision'])
        .where('feature_name', 'in', features)
        .where('environment_name', '=', environment)
        .execute()
  const variantRows =
    features.length === 0
      ? []
      : await db.selectFrom('feature_environments').select(['feature_name', 'revision']).where('feature_name', 'in', features).where('environment_name', '=', environment).execute()
  const segmentRows =
    segmentIds.length === 0 ? [] : await db.selectFrom('segments').select(['id', 'name', 'description', 'project_id', 'constraints']).where('id', 'in', segmentIds).execute()
  return {
    features: new Map(featureRows.map((r) => [r.name, { archived: r.archived_at !== null }])),
    strategies: new Map(strategyRows.map((r) => [r.id, { feature: r.feature_name, revision: r.revision }])),
    variants: new Map(variantRows.map((r) => [r.feature_name, r.revision])),
    segments: new Map(segmentRows.map((r) => [r.id, fingerprint(r)])),
  }
}

/** The names of these segments, by id. */
export async function segmentNames (db: Queryable, ids: readonly number[]) {
  if (ids.length === 0) return new Map<number, string>()
  const rows = await db.selectFrom('segments').select(['id', 'name']).where('id', 'in', ids).execute()
  return new Map(rows.map((r) => [r.id, r.name]))
}

// The schedule

/** The Scheduled request that is due soonest, if one is due, locked; one another instance holds is skipped. */
export async function claimDue (trx: Transaction<DB>) {
  const row = await trx
    .selectFrom('change_requests')
    .selectAll()
    .where('state', '=', 'Scheduled')
    .where('schedule_status', '=', 'pending')
    .where('scheduled_at', '<=', sql<Date>`now()`)
    .orderBy('scheduled_at')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst()
  return row && toRequest(row)
}

/** When the next pending schedule is due, if any; and the database's clock, to time a wait by. */
export async function nextDue (db: Queryable): Promise<{ at: Date | null; now: Date }> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('change_requests').select((e) => e.fn.min('scheduled_at').as('at')).where('state', '=', 'Scheduled').where('schedule_status', '=', 'pending').as('at'),
      sql<Date>`now()`.as('now'),
    ])
    .executeTakeFirstOrThrow()
  return { at: row.at as Date | null, now: row.now }
}

// Savepoints: a change's write tried out in the request's transaction, then undone

export async function savepoint (trx: Transaction<DB>, name: string) {
  await sql`SAVEPOINT ${sql.id(name)}`.execute(trx)
}

export async function rollbackTo (trx: Transaction<DB>, name: string) {
  await sql`ROLLBACK TO SAVEPOINT ${sql.id(name)}`.execute(trx)
}

export async function releaseSavepoint (trx: Transaction<DB>, name: string) {
  await sql`RELEASE SAVEPOINT ${sql.id(name)}`.execute(trx)
}

/** The features and segments each of these requests changes, without the changes (for lists). */
export async function subjectsOf (db: Queryable, requestIds: readonly number[]) {
  if (requestIds.length === 0) return []
  return db
    .selectFrom('change_request_changes')
    .select(['change_request_id', 'feature_name'])
    .select((eb) => eb.fn.min('id').as('first'))
    .where('change_request_id', 'in', requestIds)
    .where('feature_name', 'is not', null)
    .groupBy(['change_request_id', 'feature_name'])
    .orderBy('first')
    .execute()
}
