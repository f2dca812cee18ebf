import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { Config } from '../config.js'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, FeatureEnvironmentParams, FeatureParams, ProjectParams, UrlFriendly } from '../http/schemas.js'
import { strategyRules } from '../strategies/strategies.service.js'
import { PatchOperation } from '../variants/variants.schemas.js'
import {
  BulkFeatures,
  CloneBody,
  Feature,
  FeatureDetails,
  FeatureInEnvironment,
  FeatureList,
  FeatureListQuery,
  FeatureUpdate,
  NameCheck,
  NewFeature,
  ToggleQuery,
} from './catalog.schemas.js'
import * as catalog from './catalog.service.js'
import { cloneFeature, type FeatureWriteRules } from './clone.service.js'

type Options = { db: Database; config: Pick<Config, 'strategyLimits' | 'bodyLimit' | 'maxVariants' | 'maxVariantsBytes' | 'maxPatchOperations'> }

/** Who reads: the token's scope, and the person (favourites are theirs). */
const readerOf = (request: FastifyRequest): catalog.Reader => ({ token: request.token, userId: request.person?.id })

export const featureRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { db, config }) => {
  const rules: FeatureWriteRules = {
    strategies: strategyRules(config.strategyLimits, config.bodyLimit),
    variants: { maxVariants: config.maxVariants, maxBytes: config.maxVariantsBytes },
  }

  app.post(
    '/api/admin/projects/:projectId/features',
    {
      config: { access: 'token', role: 'editor', guard: 'none' },
      schema: {
        tags: ['Features'],
        operationId: 'createFeature',
        summary: 'Create a feature flag',
        description:
          'The feature gets a disabled feature-environment with no variants in every environment enabled in the project, and enters the lifecycle stage `initial`.',
        params: ProjectParams,
        body: NewFeature,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 201: Feature },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await catalog.createFeature(db, request.params.projectId, request.body, request.author))
  )

  app.get(
    '/api/admin/projects/:projectId/features',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Features'],
        operationId: 'getFeatures',
        summary: 'List the features of a project (archived ones are left out)',
        description:
          "As Unleash (version 2): each feature in every environment the token may see (on or off, its variant count, whether it has strategies and enabled ones, when SDKs last evaluated it), its tags, stale, and favorite (one of the person's favourites). With include=lifecycle each also carries its current lifecycle stage, so that a client can filter a long list without reading every feature.",
        params: ProjectParams,
        querystring: FeatureListQuery,
        errors: errorStatuses(400, 403, 404),
        response: { 200: FeatureList },
      },
    },
    async (request) => ({
      version: 2 as const,
      features: await catalog.features(db, request.params.projectId, readerOf(request), request.query.include === 'lifecycle'),
    })
  )

  app.get(
    '/api/admin/projects/:projectId/features/:featureName',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Features'],
        operationId: 'getFeature',
        summary: 'Get a feature with its environments and current lifecycle stage',
        description: "Only the environments the token's scope covers are listed. With its dependencies and children, its links, and favorite (one of the person's favourites).",
        params: FeatureParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: FeatureDetails },
      },
    },
    async (request) =>
      catalog.featureDetails(db, { project: request.params.projectId, feature: request.params.featureName }, readerOf(request))
  )

  app.get(
    '/api/admin/projects/:projectId/features/:featureName/environments/:environment',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Features'],
        operationId: 'getFeatureEnvironment',
        summary: 'A feature in one environment: on or off, variants, strategies',
        description: "Unleash's featureEnvironmentSchema (name is the feature's). Archived features too. 404 naming the project, feature or environment that is missing (or not enabled in the project).",
        params: FeatureEnvironmentParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: FeatureInEnvironment },
      },
    },
    async (request) => {
      const { projectId: project, featureName: feature, environment } = request.params
      return catalog.featureInEnvironment(db, { project, feature, environment })
    }
  )

  app.patch(
    '/api/admin/projects/:projectId/features/:featureName',
    {
      config: { access: 'token', role: 'editor', guard: 'none', documentRoots: { operations: '/body', feature: '/feature' } },
      schema: {
        tags: ['Features'],
        operationId: 'patchFeature',
        summary: "JSON Patch (RFC 6902) of a feature's description, type, stale and impressionData",
        description:
          'The operations apply, all or nothing, to {name, project, description, type, stale, impressionData}; the result must be valid (400 naming the member), with name and project unchanged (unlike Unleash, which ignores a change of name). An operation on /variants is a 400 pointing to the variants PATCH (Unleash: 403); a remove of a member that does not exist is a 400 (Unleash ignores it). Records feature-metadata-updated (data, preData) when description, type or impressionData change, feature-stale-on or -off when stale does; nothing when nothing changes. 200 with the feature. Archived features too.',
        params: FeatureParams,
        body: Type.Array(PatchOperation, { maxItems: config.maxPatchOperations }),
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: Feature },
      },
    },
    async (request) =>
      catalog.patchFeature(db, { project: request.params.projectId, feature: request.params.featureName }, request.body, request.author)
  )

  app.post(
    '/api/admin/projects/:projectId/features/:featureName/clone',
    {
      config: { access: 'token', role: 'editor', guard: 'none' },
      schema: {
        tags: ['Features'],
        operationId: 'cloneFeature',
        summary: 'Clone a feature into a new one of the same project',
        description:
          "As Unleash: 201 with the new feature (Unleash's document says 200, it answers 201). It gets the description, type, impressionData and stale, and in every environment the variants and strategies (flexibleRollout's groupId becomes the new name unless replaceGroupId is false), and the dependencies; it is off everywhere. Each part is written as its own route writes it, with its events and refusals (409 when the name is taken). A token must cover every environment with something to copy (403).",
        params: FeatureParams,
        body: CloneBody,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 201: Feature },
      },
    },
    async (request, reply) => {
      const ref = { project: request.params.projectId, feature: request.params.featureName }
      return reply.code(201).send(await cloneFeature(db, ref, request.body, request.token, rules, request.author))
    }
  )

  app.post(
    '/api/admin/features/validate',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Features'],
        operationId: 'validateFeature',
        summary: 'Whether a feature name is valid and free',
        description: 'As Unleash: 200 with no body when a feature could be created with this name; 409 when a feature has it (An archived flag with that name already exists, when archived); 400 for a name that is not URL-friendly. projectId is accepted and not read (projects here have no naming pattern). Reads only.',
        body: NameCheck,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await catalog.checkFeatureName(db, request.body.name)
      return reply.code(200).send()
    }
  )

  for (const [state, enabled] of [['on', true], ['off', false]] as const) {
    app.post(
      `/api/admin/projects/:projectId/bulk_features/environments/:environment/${state}`,
      {
        config: { access: 'token', role: 'editor', guard: 'environment' },
        schema: {
          tags: ['Features'],
          operationId: enabled ? 'bulkToggleFeaturesEnvironmentOn' : 'bulkToggleFeaturesEnvironmentOff',
          summary: `Switch several features ${state} in an environment`,
          description: `Each as POST …/features/{featureName}/environments/{environment}/${state} switches one (its events${enabled ? ', the default strategy for one without an active strategy, and with shouldActivateDisabledStrategies its disabled strategies enabled' : ''}), all in one transaction: unlike Unleash, which may switch some before refusing, either every one is switched or none (404 naming the first feature not in the project, 409 for an archived one). An empty list changes nothing.`,
          params: Type.Object({ projectId: ProjectParams.properties.projectId, environment: UrlFriendly('Environment name') }),
          ...(enabled && { querystring: ToggleQuery }),
          body: BulkFeatures,
          errors: errorStatuses(400, 403, 404, 409, 413, 415),
          response: { 200: EmptyReply },
        },
      },
      async (request, reply) => {
        const { projectId, environment } = request.params
        const activate = (request.query as { shouldActivateDisabledStrategies?: boolean }).shouldActivateDisabledStrategies === true ? rules.strategies : undefined
        await catalog.setFeaturesEnabled(db, projectId, environment, request.body.features, enabled, request.author, activate)
        return reply.code(200).send()
      }
    )
  }

  app.put(
    '/api/admin/projects/:projectId/features/:featureName',
    {
      config: { access: 'token', role: 'editor', guard: 'none' },
      schema: {
        tags: ['Features'],
        operationId: 'updateFeature',
        summary: "Change a feature's description, type or impressionData",
        description:
          'As Unleash: 200 with the feature; members left out keep their value; a name other than the one in the path is a 400 (a feature cannot be renamed). Records feature-metadata-updated with data and preData; the same values again change nothing.',
        params: FeatureParams,
        body: FeatureUpdate,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: Feature },
      },
    },
    async (request) =>
      catalog.updateFeatureMetadata(db, { project: request.params.projectId, feature: request.params.featureName }, request.body, request.author)
  )

  for (const [state, enabled] of [['on', true], ['off', false]] as const) {
    app.post(
      `/api/admin/projects/:projectId/features/:featureName/environments/:environment/${state}`,
      {
        config: { access: 'token', role: 'editor', guard: 'environment' },
        schema: {
          tags: ['Features'],
          operationId: enabled ? 'toggleFeatureEnvironmentOn' : 'toggleFeatureEnvironmentOff',
          summary: `Switch a feature ${state} in an environment`,
          description: `Records feature-environment-${enabled ? 'enabled' : 'disabled'}; a feature already ${state} is left alone (200, no event). ${enabled ? 'A feature switched on with no active strategy first gets a flexibleRollout at 100 % (feature-strategy-add), as in Unleash: then it is on for everyone. With shouldActivateDisabledStrategies, its disabled strategies are enabled first (feature-strategy-update each), as in Unleash.' : ''}`,
          params: FeatureEnvironmentParams,
          ...(enabled && { querystring: ToggleQuery }),
          errors: errorStatuses(400, 403, 404, 409, 413, 415),
          response: { 200: EmptyReply },
        },
      },
      async (request, reply) => {
        const { projectId: project, featureName: feature, environment } = request.params
        const activate = (request.query as { shouldActivateDisabledStrategies?: boolean }).shouldActivateDisabledStrategies === true ? rules.strategies : undefined
        await catalog.setFeatureEnabled(db, { project, feature, environment }, enabled, request.author, activate)
        return reply.code(200).send()
      }
    )
  }

  app.delete(
    '/api/admin/projects/:projectId/features/:featureName',
    {
      config: { access: 'token', role: 'editor', guard: 'project' },
      schema: {
        tags: ['Features'],
        operationId: 'archiveFeature',
        summary: 'Archive a feature',
        description:
          'As Unleash: the feature enters the lifecycle stage archived, SDKs no longer receive it, and its variants and state can no longer be changed (409) until it is revived. Records feature-archived; archiving an archived feature changes nothing. A feature that features not archived depend on cannot be archived: 409 naming them.',
        params: FeatureParams,
        errors: errorStatuses(400, 403, 404, 409, 413, 415),
        response: { 202: EmptyReply },
      },
    },
    async (request, reply) => {
      const { projectId: project, featureName: feature } = request.params
      await catalog.archiveFeature(db, { project, feature }, request.author)
      return reply.code(202).send()
    }
  )

  app.post(
    '/api/admin/projects/:projectId/revive',
    {
      config: { access: 'token', role: 'editor', guard: 'project' },
      schema: {
        tags: ['Features'],
        operationId: 'reviveFeatures',
        summary: 'Revive archived features',
        description:
          'All listed features in one transaction: each archived one leaves the archived stage and records feature-revived; one that is not archived is left alone. 404 names the first feature, in the order sent, that does not exist in the project; then nothing changes.',
        params: ProjectParams,
        body: Type.Object(
          { features: Type.Array(UrlFriendly('Feature name'), { minItems: 1, maxItems: 100, uniqueItems: true }) },
          { additionalProperties: false }
        ),
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await catalog.reviveFeatures(db, request.params.projectId, request.body.features, request.author)
      return reply.code(200).send()
    }
  )
}
