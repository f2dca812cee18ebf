import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { errorStatuses } from '../http/openapi.js'
import { giveFeedback, seeSplash } from './feedback.service.js'
import type { Person } from './roles.js'
import type { PeopleContext } from './users.service.js'
import { Feedback, FeedbackUpdate, NewFeedback, PreferenceParams, Splash } from './users.schemas.js'

const TAGS = ['Admin UI']

/** The signed-in person of a `person` route (the auth plugin admitted no one else). */
const me = (request: FastifyRequest): Person => request.person!

/** What a person tells the admin UI: feedback prompts answered, splash screens seen (read back by GET /api/admin/user). */
export const feedbackRoutes: FastifyPluginAsyncTypebox<{ people: PeopleContext }> = async (app, { people }) => {
  const { db } = people

  app.post(
    '/api/admin/feedback',
    {
      config: { access: 'person' },
      schema: {
        tags: TAGS,
        operationId: 'createFeedback',
        summary: 'Answer a feedback prompt of the admin UI',
        description: 'Kept for the signed-in person (given now; neverShow default false) and read back in GET /api/admin/user. At most 100 prompts per person. An API token is not a person: 403 (Unleash answers 500). Records user-preference-updated.',
        body: NewFeedback,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 200: Feedback },
      },
    },
    async (request) => giveFeedback(db, me(request).id, request.body.feedbackId, { neverShow: request.body.neverShow }, request.author)
  )

  app.put(
    '/api/admin/feedback/:id',
    {
      config: { access: 'person' },
      schema: {
        tags: TAGS,
        operationId: 'updateFeedback',
        summary: 'Answer a feedback prompt again',
        description: 'neverShow (default false) and given (default now); userId is ignored, the answer is the signed-in person\'s. An empty body sets both defaults (Unleash answers 500). Records user-preference-updated when it changes anything.',
        params: PreferenceParams,
        body: FeedbackUpdate,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 200: Feedback },
      },
    },
    async (request) => giveFeedback(db, me(request).id, request.params.id, request.body, request.author)
  )

  app.post(
    '/api/admin/splash/:id',
    {
      config: { access: 'person' },
      schema: {
        tags: TAGS,
        operationId: 'updateSplashSettings',
        summary: 'A splash screen of the admin UI seen',
        description: 'Kept for the signed-in person and read back in GET /api/admin/user (splash: {id: true}). No body. At most 100 per person. Records user-preference-updated the first time.',
        params: PreferenceParams,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 200: Splash },
      },
    },
    async (request) => seeSplash(db, me(request).id, request.params.id, request.author)
  )
}
