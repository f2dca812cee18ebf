import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply } from 'fastify'
import type { TokenScope } from '../auth/tokens.js'
import type { Config } from '../config.js'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../errors.js'
import { FeatureEnvironmentParams } from '../http/schemas.js'
import { applyPatches, type Variant } from './variants.js'
import { FeatureVariants, PatchOperation, VariantInput, VariantsQuery } from './variants.schemas.js'
import { type ChangeResult, changeVariants, etagOf } from './variants.service.js'
import { readFeatureEnvironment } from './variants.store.js'

type Options = { db: Database; config: Pick<Config, 'maxPatchOperations' | 'maxVariants'> }

const PATH =
  '/api/admin/projects/:projectId/features/:featureName/environments/:environment/variants'

const IfMatchHeader = Type.Object({
  'if-match': Type.Optional(
    Type.String({ description: 'Write only if the variants still have this ETag (else 412)' })
  ),
})

const okResponse = {
  description: 'The variants, defaults filled in, with their ETag',
  headers: { etag: { type: 'string', description: 'Revision of the stored variants' } },
}

const WRITE_DESCRIPTION = 'Checks, in order: token (401) and its scope for the project and environment (403); JSON body (415, 413, 400); body shape (400, details[].path points into the body); project, feature in that project, environment enabled in that project (404); If-Match (412); the resulting variants (400, details[].path points into /variants). Variable variants share 1000 minus the fixed weights, the first ones in order taking the remainder; order is kept as sent. The change is written with its event in one transaction under a row lock, so concurrent writes serialise. A result equal to the stored variants writes nothing and records no event. With dryRun=true nothing is written and no ETag is sent.'

function reply200 (reply: FastifyReply, result: ChangeResult) {
  if (result.revision !== undefined) reply.header('etag', etagOf(result.revision))
  return { version: 1 as const, variants: result.variants }
}

export const variantsRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { db, config }) => {
  const write = (
    request: {
      params: { projectId: string; featureName: string; environment: string }
      query: { dryRun: boolean }
      headers: { 'if-match'?: string }
      token: TokenScope
    },
    compute: (current: Variant[]) => unknown,
    errorPathPrefix: string
  ) => {
    const { projectId, featureName, environment } = request.params
    return changeVariants(db, { project: projectId, feature: featureName, environment }, compute, {
      ifMatch: request.headers['if-match'],
      dryRun: request.query.dryRun,
      maxVariants: config.maxVariants,
      createdBy: request.token.name,
      errorPathPrefix,
    })
  }

  app.get(
    PATH,
    {
      schema: {
        tags: ['Variants'],
        summary: "Get a feature's variants in an environment",
        params: FeatureEnvironmentParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: { ...FeatureVariants, ...okResponse } },
      },
    },
    async (request, reply) => {
      const { projectId, featureName, environment } = request.params
      const stored = await readFeatureEnvironment(db, {
        project: projectId,
        feature: featureName,
        environment,
      })
      return reply200(reply, stored)
    }
  )

  app.patch(
    PATH,
    {
      schema: {
        tags: ['Variants'],
        summary: "Patch a feature's variants in an environment with RFC 6902 JSON Patch",
        description: `Operations add, remove, replace, copy and move (test is refused) apply in order to the variants array, all or nothing; an operation that cannot apply (missing path, index out of range, move into its own child) is a 400 naming its index. Paths are relative to the array ("/0/weight", "/-"; "" is the whole array). ${WRITE_DESCRIPTION}`,
        params: FeatureEnvironmentParams,
        querystring: VariantsQuery,
        headers: IfMatchHeader,
        body: Type.Array(PatchOperation, { maxItems: config.maxPatchOperations }),
        errors: errorStatuses(400, 403, 404, 412, 413, 415),
        response: {
          200: { ...FeatureVariants, ...okResponse },
        },
      },
    },
    async (request, reply) => {
      const result = await write(
        request,
        (current) => applyPatches(current, request.body),
        '/variants'
      )
      return reply200(reply, result)
    }
  )

  app.put(
    PATH,
    {
      schema: {
        tags: ['Variants'],
        summary: "Replace a feature's variants in an environment",
        description: WRITE_DESCRIPTION,
        params: FeatureEnvironmentParams,
        querystring: VariantsQuery,
        headers: IfMatchHeader,
        body: Type.Array(VariantInput, { maxItems: config.maxVariants }),
        errors: errorStatuses(400, 403, 404, 412, 413, 415),
        response: {
          200: { ...FeatureVariants, ...okResponse },
        },
      },
    },
    async (request, reply) => {
      const result = await write(request, () => request.body, '/body')
      return reply200(reply, result)
    }
  )
}
