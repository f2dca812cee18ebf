import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type Static, Type } from '@sinclair/typebox'
import type { FastifyReply } from 'fastify'
import type { Config } from '../config.js'
import { requireEnvironment } from '../auth/auth.plugin.js'
import type { Database } from '../db/types.js'
import type { Author } from '../events/events.schemas.js'
import type { FeatureEnvironmentRef } from '../features/missing.js'
import { errorStatuses } from '../http/openapi.js'
import { FeatureEnvironmentParams, FeatureParams, responseHeader, UrlFriendly } from '../http/schemas.js'
import { strongEtag } from '../http/etag.js'
import { FeatureVariants, PatchOperation, variantsBody, VariantsQuery } from './variants.schemas.js'
import { type WriteConditions, type ChangeResult, patchVariants, readVariants, replaceVariants, replaceVariantsInEnvironments } from './variants.service.js'

type Options = {
  db: Database
  config: Pick<Config, 'maxPatchOperations' | 'maxVariants' | 'maxVariantsBytes'>
}

/** What the write routes read from a request besides the body. */
interface WriteRequest {
  params: Static<typeof FeatureEnvironmentParams>
  headers: { 'if-match'?: string }
  query: { dryRun?: boolean }
  author: Author
}

const PATH = '/api/admin/projects/:projectId/features/:featureName/environments/:environment/variants'

const IfMatchHeader = Type.Object({
  'if-match': Type.Optional(
    Type.String({ description: 'Write only if the variants still have this ETag (else 412)' })
  ),
})

const readResponse = {
  description: 'The variants, defaults filled in, with their ETag',
  headers: { etag: responseHeader('Revision of the stored variants', true) },
}

const writeResponse = {
  description: 'The variants after the change (or as they would be, on a dry run), defaults filled in',
  headers: { etag: responseHeader('Revision of the stored variants; absent on a dry run') },
}

const WRITE_DESCRIPTION = 'Checks, in order: token (401) and its scope for the project and environment (403); JSON body (415, 413, 400); body shape (400, details[].path points into the body); project, feature in that project, environment enabled in that project (404); If-Match (412); the resulting variants (400, details[].path points into /variants for a patch, /body for a replacement). Variable variants share 1000 minus the fixed weights, the first ones in order taking the remainder; order is kept as sent. The change is written with its event atomically, and concurrent writes serialise. A result equal to the stored variants writes nothing and records no event. With dryRun=true every check runs but nothing is written, and no ETag is sent.'

/** The reply body from the stored JSON text: spliced, not parsed and serialised again. */
function sendVariants (reply: FastifyReply, result: ChangeResult) {
  if (result.revision !== undefined) reply.header('etag', strongEtag(result.revision))
  return reply.type('application/json; charset=utf-8').send(`{"version":1,"variants":${result.json}}`)
}

export const variantsRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { db, config }) => {
  const limits = { maxVariants: config.maxVariants, maxBytes: config.maxVariantsBytes }

  /** PATCH and PUT: the feature-environment of the path. */
  const refOf = ({ projectId: project, featureName: feature, environment }: WriteRequest['params']): FeatureEnvironmentRef => ({ project, feature, environment })
  /** PATCH and PUT: how the request asks for the change. */
  const howOf = (request: WriteRequest): WriteConditions => ({
    ifMatch: request.headers['if-match'],
    dryRun: request.query.dryRun === true,
    createdBy: request.author,
  })

  app.get(
    PATH,
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Variants'],
        operationId: 'getEnvironmentFeatureVariants',
        summary: "Get a feature's variants in an environment",
        params: FeatureEnvironmentParams,
        errors: errorStatuses(400, 403, 404, 409),
        response: { 200: { ...FeatureVariants, ...readResponse } },
      },
    },
    async (request, reply) => {
      const { projectId: project, featureName: feature, environment } = request.params
      return sendVariants(reply, await readVariants(db, { project, feature, environment }))
    }
  )

  app.patch(
    PATH,
    {
      config: { access: 'token', role: 'editor', guard: 'environment', documentRoots: { operations: '/body', variants: '/variants' } },
      schema: {
        tags: ['Variants'],
        operationId: 'patchEnvironmentsFeatureVariants',
        summary: "Patch a feature's variants in an environment with RFC 6902 JSON Patch",
        description: `Operations add, remove, replace, copy and move (test is refused) apply in order to the variants array, all or nothing, with RFC 6902 semantics; an operation that cannot apply (missing path, index out of range, "-" outside add, a move into its own child, a reserved member name such as __proto__) is a 400 naming its index. Paths are relative to the array ("/0/weight", "/-"; "" is the whole array). Limits hold after every operation: the first one that would take the variants past MAX_VARIANTS items or MAX_VARIANTS_BYTES bytes, or copy more than MAX_VARIANTS_BYTES in all, is refused. ${WRITE_DESCRIPTION}`,
        params: FeatureEnvironmentParams,
        querystring: VariantsQuery,
        headers: IfMatchHeader,
        body: Type.Array(PatchOperation, { maxItems: config.maxPatchOperations }),
        errors: errorStatuses(400, 403, 404, 409, 412, 413, 415),
        response: { 200: { ...FeatureVariants, ...writeResponse } },
      },
    },
    async (request, reply) => sendVariants(reply, await patchVariants(db, refOf(request.params), request.body, limits, howOf(request)))
  )

  app.put(
    PATH,
    {
      config: { access: 'token', role: 'editor', guard: 'environment', documentRoots: { variants: '/body' } },
      schema: {
        tags: ['Variants'],
        operationId: 'overwriteEnvironmentFeatureVariants',
        summary: "Replace a feature's variants in an environment",
        description: WRITE_DESCRIPTION,
        params: FeatureEnvironmentParams,
        querystring: VariantsQuery,
        headers: IfMatchHeader,
        body: variantsBody(config.maxVariants),
        errors: errorStatuses(400, 403, 404, 409, 412, 413, 415),
        response: { 200: { ...FeatureVariants, ...writeResponse } },
      },
    },
    async (request, reply) => sendVariants(reply, await replaceVariants(db, refOf(request.params), request.body, limits, howOf(request)))
  )

  app.put(
    '/api/admin/projects/:projectId/features/:featureName/variants-batch',
    {
      config: { access: 'token', role: 'editor', guard: 'environments', documentRoots: { variants: '/body/variants' } },
      schema: {
        operationId: 'overwriteFeatureVariantsOnEnvironments',
        tags: ['Variants'],
        summary: "Replace a feature's variants in several environments at once",
        description: 'The same variants in every listed environment, all in one transaction: each environment gets its own revision and event (none where the variants are already these); if any environment is refused, nothing is written. The token must cover every environment (403 naming the first that it does not); 404 names the first environment, in the order sent, that is not enabled in the project. The variants follow the same rules as a replacement in one environment: variable variants share 1000 minus the fixed weights, order is kept as sent, details[].path points into /body/variants. No ETag: each environment has its own revision.',
        params: FeatureParams,
        body: Type.Object(
          {
            variants: variantsBody(config.maxVariants),
            environments: Type.Array(UrlFriendly('Environment name'), { minItems: 1, maxItems: 100, uniqueItems: true }),
          },
          { additionalProperties: false }
        ),
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 200: { ...FeatureVariants, description: 'The variants now stored in every listed environment' } },
      },
    },
    async (request, reply) => {
      const { projectId: project, featureName: feature } = request.params
      const { variants, environments } = request.body
      for (const environment of environments) requireEnvironment(request.token, environment)
      const json = await replaceVariantsInEnvironments(db, { project, feature }, environments, variants, limits, request.author)
      return sendVariants(reply, { json, revision: undefined })
    }
  )
}
