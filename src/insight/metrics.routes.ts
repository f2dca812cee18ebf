import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply } from '../http/schemas.js'
import { describeApplication, forgetApplication } from './applications.service.js'
import {
  AppEnvironmentParams, ApplicationDetails, ApplicationOverview, Applications, ApplicationsQuery, AppNameParams, EnvironmentInstances,
  FeatureNameParams, NewApplication, OutdatedSdks, RawMetrics, RawMetricsQuery, UnknownFlags, UsageSummary,
} from './metrics.schemas.js'
import {
  application, applicationOverview, applications, environmentInstances, hoursBack, outdated, rawMetrics, unknown, usageSummary,
} from './metrics.service.js'

/** SDK usage read back: a flag's usage over time, applications and their instances, outdated SDKs, unknown flags. */
export const metricsRoutes: FastifyPluginAsyncTypebox<{ db: Database; retentionDays: number }> = async (app, { db, retentionDays }) => {
  const maxHours = retentionDays * 24
  const read = { access: 'token', role: 'viewer' } as const

  app.get('/api/admin/client-metrics/features/:name/raw', {
    config: read,
    schema: {
      tags: ['Metrics'],
      operationId: 'getRawFeatureMetrics',
      summary: 'Get feature metrics',
      description: `A flag's evaluations per hour over the last \`hoursBack\` hours (default 24, at most ${maxHours}: USAGE_RETENTION_DAYS × 24), the current hour included: one row per hour for every environment and application that reported it (at most 100 applications), zero-filled, oldest first, then by environment and application. Reports are filed under the hour their bucket stopped, as Unleash files them. A flag that does not exist, or one of a project the token does not cover, has none (200); a token limited to some environments sees theirs.`,
      params: FeatureNameParams,
      querystring: RawMetricsQuery,
      errors: errorStatuses(400, 403),
      response: { 200: RawMetrics },
    },
  }, async (request) => rawMetrics(db, request.params.name, hoursBack(request.query.hoursBack, maxHours), request.token))

  app.get('/api/admin/client-metrics/features/:name', {
    config: read,
    schema: {
      tags: ['Metrics'],
      operationId: 'getFeatureUsageSummary',
      summary: 'Last hour of usage and a list of applications that have reported seeing this feature flag',
      description: 'Per environment, the evaluations of the last hour; the applications that reported it in the last 24 hours. A flag that does not exist has none (200).',
      params: FeatureNameParams,
      errors: errorStatuses(400, 403),
      response: { 200: UsageSummary },
    },
  }, async (request) => usageSummary(db, request.params.name, request.token))

  app.get('/api/admin/metrics/applications', {
    config: read,
    schema: {
      tags: ['Metrics'],
      operationId: 'getApplications',
      summary: 'Get all applications',
      description: 'Applications SDKs reported usage under (an application that only sends metrics too) and those people described, by name; `query` keeps names containing any of its comma-separated parts. Each lists the strategies it uses and the projects and environments of the tokens it reported with.',
      querystring: ApplicationsQuery,
      errors: errorStatuses(400, 403),
      response: { 200: Applications },
    },
  }, async (request) => applications(db, request.query))

  app.get('/api/admin/metrics/applications/:appName', {
    config: read,
    schema: {
      tags: ['Metrics'],
      operationId: 'getApplication',
      summary: 'Get application data',
      description: "Unleash's answer: what people said of it, its strategies (those without a definition marked notFound), its instances (newest first) and the flags it reported in the last 24 hours. 404 when neither an SDK nor a person named it.",
      params: AppNameParams,
      errors: errorStatuses(400, 403, 404),
      response: { 200: ApplicationDetails },
    },
  }, async (request) => application(db, request.params.appName))

  app.post('/api/admin/metrics/applications/:appName', {
    config: { access: 'admin', role: 'editor' },
    schema: {
      tags: ['Metrics'],
      operationId: 'createApplication',
      summary: 'Create an application to connect reported metrics',
      description: 'Says what an application is (description, url, color, icon, strategies); members left out keep their value. application-created when it is new to people (as Unleash), else application-updated; the same again changes nothing. 202, as Unleash.',
      params: AppNameParams,
      body: NewApplication,
      errors: errorStatuses(400, 403, 413, 415),
      response: { 202: EmptyReply },
    },
  }, async (request, reply) => {
    await describeApplication(db, request.params.appName, request.body, request.author)
    return reply.code(202).send()
  })

  app.delete('/api/admin/metrics/applications/:appName', {
    config: { access: 'admin', role: 'editor' },
    schema: {
      tags: ['Metrics'],
      operationId: 'deleteApplication',
      summary: 'Delete an application',
      description: 'Forgets it: what people said of it, and its registrations, instances, usage counts and unknown flags (application-deleted). One nobody knows is 200 too, with no event, as in Unleash. SDKs still running under its name bring it back.',
      params: AppNameParams,
      errors: errorStatuses(400, 403),
      response: { 200: EmptyReply },
    },
  }, async (request, reply) => {
    await forgetApplication(db, request.params.appName, request.author)
    return reply.code(200).send()
  })

  app.get('/api/admin/metrics/applications/:appName/overview', {
    config: read,
    schema: {
      tags: ['Metrics'],
      operationId: 'getApplicationOverview',
      summary: 'Get application overview',
      description: 'Per environment it reported usage in during the last 48 hours: its instances seen in the last day, their SDKs (outdated ones named), and the names it asked for that are no flag; the projects and number of flags it evaluated; strategies it uses that are not defined here. 404 when neither an SDK nor a person named it.',
      params: AppNameParams,
      errors: errorStatuses(400, 403, 404),
      response: { 200: ApplicationOverview },
    },
  }, async (request) => applicationOverview(db, request.params.appName))

  app.get('/api/admin/metrics/instances/:appName/environment/:environment', {
    config: read,
    schema: {
      tags: ['Metrics'],
      operationId: 'getApplicationEnvironmentInstances',
      summary: 'Get application environment instances (Last 24h)',
      description: 'Its instances in the environment seen in the last 24 hours, newest first (at most 1000); none for an unknown application. Client addresses are not kept: clientIp is null.',
      params: AppEnvironmentParams,
      errors: errorStatuses(400, 403),
      response: { 200: EnvironmentInstances },
    },
  }, async (request) => environmentInstances(db, request.params.appName, request.params.environment))

  app.get('/api/admin/metrics/sdks/outdated', {
    config: read,
    schema: {
      tags: ['Metrics'],
      operationId: 'getOutdatedSdks',
      summary: 'Get outdated SDKs',
      description: 'SDK versions instances reported that are older than the oldest version of that SDK Unleash 8.2 considers current, each with the applications running it.',
      errors: errorStatuses(403),
      response: { 200: OutdatedSdks },
    },
  }, async () => outdated(db))

  app.get('/api/admin/metrics/unknown-flags', {
    config: read,
    schema: {
      tags: ['Unknown Flags'],
      operationId: 'getUnknownFlags',
      summary: 'Get unknown flags',
      description: 'Names SDKs reported usage of that are no flag (a typo\'s only symptom), reported in the last 24 hours, by name (at most 1000): per application and environment when it was last reported, and when the last event about that name was recorded (a flag deleted, say).',
      errors: errorStatuses(403),
      response: { 200: UnknownFlags },
    },
  }, async () => unknown(db))
}
