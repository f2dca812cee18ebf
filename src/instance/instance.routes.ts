import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, responseHeader } from '../http/schemas.js'
import { InstanceStatistics, Maintenance, TelemetrySettings, ToggleMaintenance } from './instance.schemas.js'
import { type InstanceSettings, maintenance, setMaintenance } from './settings.service.js'
import { instanceStatistics, statisticsCsv } from './statistics.service.js'

interface Options {
  db: Database
  settings: InstanceSettings
  /** Whether single sign-on (OpenID Connect) is on, for the statistics. */
  oidcEnabled: () => Promise<boolean>
}

const ADMIN = { access: 'admin', role: 'admin' } as const
/** Anyone signed in, or any admin token (Unleash's permission NONE). */
const ANYONE = { access: 'token', role: 'viewer' } as const

/** The instance: maintenance mode, its statistics, its telemetry (none). */
export const instanceRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { db, settings, oidcEnabled }) => {
  app.get(
    '/api/admin/maintenance',
    {
      config: ADMIN,
      schema: {
        tags: ['Maintenance'],
        operationId: 'getMaintenance',
        summary: 'Whether maintenance mode is on',
        errors: errorStatuses(403),
        response: { 200: Maintenance },
      },
    },
    async () => maintenance(db)
  )

  app.post(
    '/api/admin/maintenance',
    {
      config: { ...ADMIN, maintenance: 'open' },
      schema: {
        tags: ['Maintenance'],
        operationId: 'toggleMaintenance',
        summary: 'Turn maintenance mode on or off',
        description:
          'While it is on, every change is refused with 503 MaintenanceModeError (this switch, signing in and out, POSTs that change nothing, and the SDK APIs excepted; docs/operations.md lists them), and ui-config says maintenanceMode: true. This instance holds it at once, the others within moments (the change feed). Records setting-created or setting-updated ({id: "maintenance.mode", enabled}) when it changes anything.',
        body: ToggleMaintenance,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 204: EmptyReply },
      },
    },
    async (request, reply) => {
      await setMaintenance(db, settings, request.body.enabled, request.author)
      return reply.code(204).send()
    }
  )

  app.get(
    '/api/admin/instance-admin/statistics',
    {
      config: ANYONE,
      schema: {
        tags: ['Instance Admin'],
        operationId: 'getInstanceAdminStats',
        summary: 'Counts of this instance',
        description: 'Users, flags, projects, tokens, active users, production changes, SDK applications and the largest strategies, in Unleash\'s shape; zeros for what this server does not have (SAML, release plans, Edge). Signed with Unleash\'s sum.',
        errors: errorStatuses(403),
        response: { 200: InstanceStatistics },
      },
    },
    async () => instanceStatistics(db, settings, oidcEnabled)
  )

  app.get(
    '/api/admin/instance-admin/statistics/csv',
    {
      config: ANYONE,
      schema: {
        tags: ['Instance Admin'],
        operationId: 'getInstanceAdminStatsCsv',
        summary: 'The counts of this instance as CSV',
        description: 'One header row of quoted names and one row of values (nested values as JSON), as an attachment.',
        errors: errorStatuses(403),
        response: {
          200: {
            description: 'CSV: a header row and one row of values',
            content: { 'text/csv': { schema: Type.String() } },
            headers: { 'content-disposition': responseHeader('attachment; filename="unleash-<instanceId>-<time>.csv"', true) },
          },
        },
      },
    },
    async (_request, reply) => {
      const stats = await instanceStatistics(db, settings, oidcEnabled)
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="unleash-${stats.instanceId}-${Date.now()}.csv"`)
        .send(statisticsCsv(stats))
    }
  )

  app.get(
    '/api/admin/telemetry/settings',
    {
      config: ANYONE,
      schema: {
        tags: ['Telemetry'],
        operationId: 'getTelemetrySettings',
        summary: 'What this server reports to others: nothing',
        description: 'Both false: this server neither checks for newer versions nor sends usage anywhere.',
        errors: errorStatuses(403),
        response: { 200: TelemetrySettings },
      },
    },
    async () => ({ versionInfoCollectionEnabled: false, featureInfoCollectionEnabled: false })
  )
}
