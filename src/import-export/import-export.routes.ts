import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Config } from '../config.js'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, responseHeader } from '../http/schemas.js'
import { ExportQuery, ExportResult, ImportBody, ImportValidation } from './import-export.schemas.js'
import { exportFeatures } from './export.service.js'
import type { ImportRules } from './import-elements.js'
import { importFeatures, validateImport } from './import.service.js'

type Options = { db: Database; rules: ImportRules; config: Pick<Config, 'importBodyLimit'> }

const SCOPE =
  'An admin token whose scope covers the project and environment may import (unlike Unleash, which refuses admin tokens and wants a personal access token); creating context fields, tag types or segments the data defines needs a */* token.'

export const importExportRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { db, rules, config }) => {
  app.post(
    '/api/admin/features-batch/export',
    {
      config: { access: 'token', role: 'viewer', maintenance: 'open' },
      schema: {
        tags: ['Import/Export'],
        operationId: 'exportFeatures',
        summary: 'Export features from an environment (Unleash features-batch format)',
        description:
          "As Unleash 8.2: the features named in `features`, else those with a tag of value `tag`, else those of `project`, else all (not archived), of the token's projects; with their strategies, variants and enabled state in `environment`, and the context fields, segments, tags, tag types and dependencies they use. Two improvements: strategies carry their sortOrder (the order SDKs evaluate them in survives an import), and segments carry their constraints (an import can create them). `downloadFile: true` answers with Content-Disposition: attachment. Reads only.",
        body: ExportQuery,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: { ...ExportResult, headers: { 'content-disposition': responseHeader('attachment; filename="export-<date>.json" when downloadFile is true') } } },
      },
    },
    async (request, reply) => {
      const result = await exportFeatures(db, request.body, request.token)
      if (request.body.downloadFile === true) reply.header('content-disposition', `attachment; filename="export-${new Date().toISOString().slice(0, 10)}.json"`)
      return result
    }
  )

  app.post(
    '/api/admin/features-batch/validate',
    {
      config: { access: 'token', role: 'viewer', maintenance: 'open' },
      bodyLimit: config.importBodyLimit,
      schema: {
        tags: ['Import/Export'],
        operationId: 'validateImport',
        summary: 'What importing this data would do: errors, warnings, missing permissions',
        description: `As Unleash 8.2, with its messages: features of another project, duplicates, strategies without a definition, context fields lacking imported legal values, segments neither defined in the data (with constraints) nor in the target, missing dependencies, and each element that the single route writing it would refuse, its message that 400's (the route's sentence at the element's place, e.g. /body/data/featureStrategies/3/constraints must NOT have more than 30 items) and affectedItems its name, at most 100 then a count; segments named twice with other constraints, a feature's environment or dependencies listed twice (errors); custom strategies used, archived features left out, features that will be overwritten (warnings). Reads only. The body may be as large as IMPORT_BODY_LIMIT. ${SCOPE}`,
        body: ImportBody,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: ImportValidation },
      },
    },
    async (request) => validateImport(db, request.body, request.token, rules)
  )

  app.post(
    '/api/admin/features-batch/import',
    {
      config: { access: 'token', role: 'editor', guard: 'import' },
      bodyLimit: config.importBodyLimit,
      schema: {
        tags: ['Import/Export'],
        operationId: 'importToggles',
        summary: 'Import features into a project and environment, all or nothing',
        description: `As Unleash 8.2: 200 with no body. One transaction made of the single writes (each records its event, as the single route would; features-imported closes it when anything changed): tag types, context fields (with legal values and sort order) and segments the data defines and the target lacks are created; each feature is created or updated; its strategies (in the data's order), variants and enabled state in the environment, its tags and its dependencies become the data's. What is already as the data says is left alone: the same data again changes nothing. Archived features are left out (as Unleash). An environment or project that does not exist is a 404 naming it; anything the single routes would refuse, checked with their own schemas and rules before anything is written (or a strategy's segment id not among the data's segments, which Unleash answers with a 500; segments named twice with other constraints; a feature's environment or dependencies listed twice), is a 400 naming the element with the route's sentence, and then nothing is stored. An import that names no feature is valid and writes nothing. The body may be as large as IMPORT_BODY_LIMIT. ${SCOPE}`,
        body: ImportBody,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await importFeatures(db, request.body, request.token, request.author, rules)
      return reply.code(200).send()
    }
  )
}
