import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, ProjectParams } from '../http/schemas.js'
import type { Person } from '../users/roles.js'
import { MAX_CHANGES_PER_REQUEST } from '../vocabulary/change-requests.js'
import {
  AddChangesBody,
  ChangeParams,
  ChangeRequestCounts,
  ChangeRequestListItem,
  ChangeRequestView,
  CHANGE_REQUESTS_TAG,
  CommentBody,
  ConfigBody,
  EnvironmentConfig,
  FeaturePendingParams,
  NewChange,
  ProjectEnvironmentParams,
  RequestParams,
  Reviewers,
  ReviewersBody,
  ScheduledItem,
  ScheduledQuery,
  StateBody,
  TitleBody,
} from './change-requests.schemas.js'
import { addChanges, addComment, type ChangeRequestContext, changeState, deleteDraft, discardChange, editChange, setReviewers, setTitle } from './change-requests.service.js'
import { type ChangeRequestPolicy, configure, projectConfig } from './policy.service.js'
import { actionable, approvers, availableReviewers, counts, pendingFor, pendingForFeature, projectRequests, requestView, scheduled } from './views.service.js'

type Options = { context: ChangeRequestContext; policy: ChangeRequestPolicy }

const BASE = '/api/admin/projects/:projectId/change-requests'
const tags = [CHANGE_REQUESTS_TAG]
const read = { access: 'token', role: 'viewer' } as const
/** Change requests are people's: API tokens write directly instead (403 here). */
const write = { access: 'person', role: 'editor' } as const

/** The person of a `person` route (the auth plugin admitted only people). */
const personOf = (request: FastifyRequest): Person => request.person!
const viewerOf = (request: FastifyRequest) => request.person?.id ?? null

const AUTHOR_ONLY = 'Only its author (403 for anyone else); through another project\'s path 404.'

export const changeRequestRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { context, policy }) => {
  const { db } = context as { db: Database }

  app.get(`${BASE}/config`, {
    config: read,
    schema: {
      tags,
      operationId: 'getProjectChangeRequestConfig',
      summary: "The change request setting of each of the project's environments",
      params: ProjectParams,
      errors: errorStatuses(400, 403, 404),
      response: { 200: Type.Array(EnvironmentConfig) },
    },
  }, async (request) => projectConfig(db, request.params.projectId))

  app.put('/api/admin/projects/:projectId/environments/:environment/change-requests/config', {
    config: { access: 'token', role: 'admin', guard: 'none' },
    schema: {
      tags,
      operationId: 'updateProjectChangeRequestConfig',
      summary: 'Turn change requests on or off in an environment of a project',
      description:
        'Admins only. While on, a person\'s direct write to a feature in this environment (and archiving, dependencies and the project\'s segments, which act on every environment) is refused with 403: they go through a change request, applied once requiredApprovals people other than its author approved it. API tokens still write directly. requiredApprovals is taken into 1–10, as Unleash (absent: 1). Records change-request-configuration-updated; the same setting again changes nothing. 200 with no body.',
      params: ProjectEnvironmentParams,
      body: ConfigBody,
      errors: errorStatuses(400, 403, 404, 413, 415),
      response: { 200: EmptyReply },
    },
  }, async (request, reply) => {
    await configure(db, request.params.projectId, request.params.environment, request.body, request.author)
    policy.forget()
    return reply.code(200).send()
  })

  app.post('/api/admin/projects/:projectId/environments/:environment/change-requests', {
    // The way in, where the environment is guarded.
    config: { ...write, guard: 'none' },
    schema: {
      tags,
      operationId: 'changeRequest',
      summary: "Add one change or several to the caller's change request for the environment",
      description: `The changes go into the caller's open request for the environment (Draft, In review or Approved; a new Draft when there is none: change-request-created). A change to the same switch, variants, strategy, dependency or segment replaces the one already there. Each change is checked as the direct write it stands for: its payload by that route's own schema (400 at /body/payload, or /body/<i>/payload), then the write itself is tried without committing (the definition, segments, the strategy being this feature's…): its refusal is a 400 at the change, with the same sentence. Change requests must be on in the environment (400). At most ${MAX_CHANGES_PER_REQUEST} changes in a request (400). Editing a request In review or Approved clears its approvals (an Approved one goes back to In review). Records change-added for each. Nothing is stored after a refusal.`,
      params: ProjectEnvironmentParams,
      body: AddChangesBody,
      errors: errorStatuses(400, 403, 404, 409, 413, 415),
      response: { 200: ChangeRequestView },
    },
  }, async (request) => addChanges(context, request.params.projectId, request.params.environment, request.body, personOf(request)))

  app.get(`${BASE}/scheduled`, {
    config: read,
    schema: {
      tags,
      operationId: 'getScheduledChangeRequests',
      summary: 'Scheduled requests touching these features, strategies or variants',
      description: 'A Scheduled request is listed when one of its changes touches any feature named (feature), changes or reorders a strategy named (strategyId), or replaces the variants of a feature named (variantForFlag). No parameter: an empty list.',
      params: ProjectParams,
      querystring: ScheduledQuery,
      errors: errorStatuses(400, 403, 404),
      response: { 200: Type.Array(ScheduledItem) },
    },
  }, async (request) => scheduled(db, request.params.projectId, request.query))

  app.get(`${BASE}/count`, {
    config: read,
    schema: { tags, operationId: 'getChangeRequestsCount', summary: 'How many requests of the project are in each state (Drafts are not counted)', params: ProjectParams, errors: errorStatuses(400, 403, 404), response: { 200: ChangeRequestCounts } },
  }, async (request) => counts(db, request.params.projectId))

  for (const [path, operationId] of [['open', 'getOpenChangeRequestsForUser'], ['pending', 'getPendingChangeRequestsForUser']] as const) {
    app.get(`${BASE}/${path}`, {
      config: read,
      schema: {
        tags,
        operationId,
        summary: "The caller's own open requests (Draft, In review, Approved, Scheduled), with their changes",
        description: `${path === 'open' ? 'The older twin of …/pending, as Unleash keeps it. ' : ''}An API token has none (an empty list).`,
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Type.Array(ChangeRequestListItem) },
      },
    }, async (request) => pendingFor(db, request.params.projectId, viewerOf(request)))
  }

  app.get(`${BASE}/actionable`, {
    config: read,
    schema: {
      tags,
      operationId: 'getActionableChangeRequests',
      summary: 'How many requests the caller can move on',
      description: 'Those In review by others that the caller has not approved yet, and those Approved (to apply), when the caller may write in the project; 0 for an API token.',
      params: ProjectParams,
      errors: errorStatuses(400, 403, 404),
      response: { 200: Type.Object({ total: Type.Integer({ minimum: 0 }) }) },
    },
  }, async (request) => actionable(db, request.params.projectId, request.person))

  app.get(BASE, {
    config: read,
    schema: {
      tags,
      operationId: 'getChangeRequestsForProject',
      summary: "The project's change requests, newest first",
      description: "At most the 300 newest; others' Drafts are left out. Each names the features it changes, without their changes (GET …/{id} has them).",
      params: ProjectParams,
      errors: errorStatuses(400, 403, 404),
      response: { 200: Type.Array(ChangeRequestListItem) },
    },
  }, async (request) => projectRequests(db, request.params.projectId, viewerOf(request)))

  app.get(`${BASE}/pending/:featureName`, {
    config: read,
    schema: {
      tags,
      operationId: 'getPendingChangeRequestsForFeature',
      summary: 'Open requests with a change to this feature',
      description: "Draft (the caller's own), In review, Approved and Scheduled requests with a change to the feature, with their changes.",
      params: FeaturePendingParams,
      errors: errorStatuses(400, 403, 404),
      response: { 200: Type.Array(ChangeRequestListItem) },
    },
  }, async (request) => pendingForFeature(db, request.params.projectId, request.params.featureName, viewerOf(request)))

  app.get(`${BASE}/:id`, {
    config: read,
    schema: {
      tags,
      operationId: 'getChangeRequest',
      summary: 'One change request, with its changes, reviews, comments and the time it entered each state',
      description: 'A change whose target moved since it was added (a strategy, the variants or a segment updated or deleted; the feature archived) has `conflict` saying so, while the request is open.',
      params: RequestParams,
      errors: errorStatuses(400, 403, 404),
      response: { 200: ChangeRequestView },
    },
  }, async (request) => requestView(db, request.params.projectId, request.params.id))

  app.delete(`${BASE}/:id`, {
    config: write,
    schema: {
      tags,
      operationId: 'deleteChangeRequest',
      summary: 'Delete a Draft',
      description: `${AUTHOR_ONLY} Only a Draft (409 otherwise: cancel it instead). Records change-request-discarded. 200 with no body.`,
      params: RequestParams,
      errors: errorStatuses(400, 403, 404, 409, 413, 415),
      response: { 200: EmptyReply },
    },
  }, async (request, reply) => {
    await deleteDraft(context, request.params.projectId, request.params.id, personOf(request))
    return reply.code(200).send()
  })

  const ONE_CHANGE = '/api/admin/projects/:projectId/change-requests/:changeRequestId/changes/:changeId'
  app.put(ONE_CHANGE, {
    config: write,
    schema: {
      tags,
      operationId: 'editChange',
      summary: 'Replace a change of a request',
      description: `${AUTHOR_ONLY} The change is replaced by the one sent, checked as when it is added; it gets a new id, and remembers its target as it is now (a conflict is resolved this way). A request In review or Approved loses its approvals; Scheduled or closed ones cannot be edited (409). Records change-edited.`,
      params: ChangeParams,
      body: NewChange,
      errors: errorStatuses(400, 403, 404, 409, 413, 415),
      response: { 200: ChangeRequestView },
    },
  }, async (request) => editChange(context, request.params.projectId, request.params.changeRequestId, request.params.changeId, request.body, personOf(request)))

  app.delete(ONE_CHANGE, {
    config: write,
    schema: {
      tags,
      operationId: 'deleteChange',
      summary: 'Discard a change of a request',
      description: `${AUTHOR_ONLY} A request In review or Approved loses its approvals; Scheduled or closed ones cannot be edited (409). Records change-discarded. 200 with no body.`,
      params: ChangeParams,
      errors: errorStatuses(400, 403, 404, 409, 413, 415),
      response: { 200: EmptyReply },
    },
  }, async (request, reply) => {
    await discardChange(context, request.params.projectId, request.params.changeRequestId, request.params.changeId, personOf(request))
    return reply.code(200).send()
  })

  app.put(`${BASE}/:id/state`, {
    config: write,
    schema: {
      tags,
      operationId: 'updateChangeRequestState',
      summary: 'Move a change request on: send to review, approve, reject, cancel, apply, schedule',
      description:
        'In review: the author sends a Draft with changes. Approved: a person other than the author (403 for the author; a Viewer has no write role: 403) approves a request In review; it becomes Approved with the required number of approvals (change-request-approved; before that change-request-approval-added). Rejected: a person other than the author. Cancelled: the author, or an Admin. Applied: an Approved or Scheduled request is applied, every change through the same write the API uses, in one transaction (the events name the request, its author and who applied it); when what a change changes has moved since it was added, or a write refuses, nothing is applied: 409 naming each, and the request stays as it was. Scheduled {scheduledAt}: an Approved request is applied at that time (in the future: 400 otherwise), by whichever instance comes first, exactly once; a Scheduled one is rescheduled. A closed request (Applied, Cancelled, Rejected) changes no more, and a request never goes back to Draft (409). The state it is in already changes nothing. A comment is kept with the request.',
      params: RequestParams,
      body: StateBody,
      errors: errorStatuses(400, 403, 404, 409, 413, 415),
      response: { 200: ChangeRequestView },
    },
  }, async (request) => changeState(context, request.params.projectId, request.params.id, request.body, personOf(request)))

  app.put(`${BASE}/:id/title`, {
    config: write,
    schema: {
      tags,
      operationId: 'updateChangeRequestTitle',
      summary: 'Name a change request',
      description: `${AUTHOR_ONLY} An empty title removes it; a closed request cannot be renamed (409). Records change-request-title-updated. 204.`,
      params: RequestParams,
      body: TitleBody,
      errors: errorStatuses(400, 403, 404, 409, 413, 415),
      response: { 204: EmptyReply },
    },
  }, async (request, reply) => {
    await setTitle(context, request.params.projectId, request.params.id, request.body.title, personOf(request))
    return reply.code(204).send()
  })

  app.get(`${BASE}/:id/approvers`, {
    config: read,
    schema: { tags, operationId: 'getChangeRequestApprovers', summary: 'The people asked to review the request', params: RequestParams, errors: errorStatuses(400, 403, 404), response: { 200: Reviewers } },
  }, async (request) => approvers(db, request.params.projectId, request.params.id))

  app.put(`${BASE}/:id/approvers`, {
    config: write,
    schema: {
      tags,
      operationId: 'addChangeRequestReviewers',
      summary: 'Ask people to review the request',
      description: `${AUTHOR_ONLY} At most 10 people, each one who may approve in the project and not the author (400 naming the first that is not); they replace those asked before. Records change-request-requested-approvers-updated. 204.`,
      params: RequestParams,
      body: ReviewersBody,
      errors: errorStatuses(400, 403, 404, 409, 413, 415),
      response: { 204: EmptyReply },
    },
  }, async (request, reply) => {
    await setReviewers(context, request.params.projectId, request.params.id, request.body.reviewers, personOf(request))
    return reply.code(204).send()
  })

  app.post(`${BASE}/:id/comments`, {
    config: write,
    schema: {
      tags,
      operationId: 'addChangeRequestComment',
      summary: 'Comment on a change request',
      description: 'Anyone who may write in the project. Records change-request-comment-added. 204.',
      params: RequestParams,
      body: CommentBody,
      errors: errorStatuses(400, 403, 404, 413, 415),
      response: { 204: EmptyReply },
    },
  }, async (request, reply) => {
    await addComment(context, request.params.projectId, request.params.id, request.body.text, personOf(request))
    return reply.code(204).send()
  })

  app.get(`${BASE}/available-reviewers/:environment`, {
    config: read,
    schema: {
      tags,
      operationId: 'getAvailableChangeRequestReviewers',
      summary: 'The people who may approve change requests in the project',
      description: 'Admins, Editors and the Members of the project (their own roles or their groups\').',
      params: ProjectEnvironmentParams,
      errors: errorStatuses(400, 403, 404),
      response: { 200: Reviewers },
    },
  }, async (request) => availableReviewers(db, request.params.projectId, request.params.environment))
}
