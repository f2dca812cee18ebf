import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { EmptyReply, ProjectParams, responseHeader, UrlFriendly } from '../http/schemas.js'
import { FeatureTagParams, Tag, TagsOfTypeParams, TagBody, TagParams, TagsChange, TagsResponse, TagType, TagTypeBody, TagTypeParams, TagTypeUpdate } from './tags.schemas.js'
import {
  addFeatureTag,
  changeFeatureTags,
  changeTagType,
  checkTagType,
  createTag,
  createTagType,
  featureTags,
  removeFeatureTag,
  removeTag,
  removeTagType,
  requireFeatureVisible,
  tag,
  tagFeatures,
  tags,
  tagType,
  tagTypes,
} from './tags.service.js'

const MANAGE = 'Tag types and tags are global: managing them needs a */* token.'
const FEATURE_SCOPE = "The feature's project must be in the token's scope; a feature outside it is a 404, as one that does not exist."

export const tagTypeRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/api/admin/tag-types',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Tags'],
        operationId: 'getTagTypes',
        summary: 'Tag types, by name',
        errors: errorStatuses(403),
        response: { 200: Type.Object({ version: Type.Literal(1), tagTypes: Type.Array(TagType) }) },
      },
    },
    async () => ({ version: 1 as const, tagTypes: await tagTypes(db) })
  )

  app.post(
    '/api/admin/tag-types',
    {
      config: { access: 'admin', role: 'editor' },
      schema: {
        tags: ['Tags'],
        operationId: 'createTagType',
        summary: 'Create a tag type',
        description: `As Unleash: 201 with the tag type and a Location header; 409 when the name is taken. Records tag-type-created. ${MANAGE}`,
        body: TagTypeBody,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: { ...TagType, headers: { location: responseHeader('tag-types/<name>', true) } } },
      },
    },
    async (request, reply) => {
      const created = await createTagType(db, request.body, request.author)
      return reply.code(201).header('location', `tag-types/${created.name}`).send(created)
    }
  )

  app.post(
    '/api/admin/tag-types/validate',
    {
      config: { access: 'admin', role: 'editor', maintenance: 'open' },
      schema: {
        tags: ['Tags'],
        operationId: 'validateTagType',
        summary: 'Whether a tag type could be created: 200, 400 naming the rule, or 409 when the name is taken',
        body: TagTypeBody,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 200: Type.Object({ valid: Type.Literal(true), tagType: TagTypeBody }) },
      },
    },
    async (request) => {
      await checkTagType(db, request.body)
      return { valid: true as const, tagType: request.body }
    }
  )

  app.get(
    '/api/admin/tag-types/:name',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Tags'],
        operationId: 'getTagType',
        summary: 'One tag type',
        params: TagTypeParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Type.Object({ version: Type.Literal(1), tagType: TagType }) },
      },
    },
    async (request) => ({ version: 1 as const, tagType: await tagType(db, request.params.name) })
  )

  app.put(
    '/api/admin/tag-types/:name',
    {
      config: { access: 'admin', role: 'editor' },
      schema: {
        tags: ['Tags'],
        operationId: 'updateTagType',
        summary: "Change a tag type's description, icon or colour",
        description: `As Unleash: 200 with no body; members left out keep their value. Records tag-type-updated with data and preData; the same values again change nothing. ${MANAGE}`,
        params: TagTypeParams,
        body: TagTypeUpdate,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await changeTagType(db, request.params.name, request.body, request.author)
      return reply.code(200).send()
    }
  )

  app.delete(
    '/api/admin/tag-types/:name',
    {
      config: { access: 'admin', role: 'editor' },
      schema: {
        tags: ['Tags'],
        operationId: 'deleteTagType',
        summary: 'Delete a tag type, its tags, and their uses on features',
        description: `As Unleash: 200 with no body, also when there is no such tag type (then nothing changes). Records tag-type-deleted. ${MANAGE}`,
        params: TagTypeParams,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeTagType(db, request.params.name, request.author)
      return reply.code(200).send()
    }
  )
}

export const tagRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  const TagsByType = { 200: TagsResponse }

  app.get(
    '/api/admin/tags',
    {
      config: { access: 'token', role: 'viewer' },
      schema: { tags: ['Tags'], operationId: 'getTags', summary: 'Every tag, by type and value', errors: errorStatuses(403), response: TagsByType },
    },
    async () => ({ version: 1 as const, tags: await tags(db) })
  )

  app.post(
    '/api/admin/tags',
    {
      config: { access: 'admin', role: 'editor' },
      schema: {
        tags: ['Tags'],
        operationId: 'createTag',
        summary: 'Create a tag',
        description: `As Unleash: 201 with {version, tag} and a Location header; the value is trimmed; 409 when the tag exists; 400 when its type does not. Records tag-created. ${MANAGE}`,
        body: TagBody,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: { ...Type.Object({ version: Type.Literal(1), tag: Tag }), headers: { location: responseHeader('tags/<type>/<value>', true) } } },
      },
    },
    async (request, reply) => {
      const created = await createTag(db, request.body, request.author)
      return reply.code(201).header('location', `tags/${encodeURIComponent(created.type)}/${encodeURIComponent(created.value)}`).send({ version: 1, tag: created })
    }
  )

  app.get(
    '/api/admin/tags/:type',
    {
      config: { access: 'token', role: 'viewer' },
      schema: { tags: ['Tags'], operationId: 'getTagsByType', summary: 'The tags of one type', params: TagsOfTypeParams, errors: errorStatuses(400, 403), response: TagsByType },
    },
    async (request) => ({ version: 1 as const, tags: await tags(db, request.params.type) })
  )

  app.get(
    '/api/admin/tags/:type/:value',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Tags'],
        operationId: 'getTag',
        summary: 'One tag',
        params: TagParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Type.Object({ version: Type.Literal(1), tag: Tag }) },
      },
    },
    async (request) => ({ version: 1 as const, tag: await tag(db, request.params) })
  )

  app.delete(
    '/api/admin/tags/:type/:value',
    {
      config: { access: 'admin', role: 'editor' },
      schema: {
        tags: ['Tags'],
        operationId: 'deleteTag',
        summary: 'Delete a tag, which leaves every feature that has it',
        description: `As Unleash: 200 with no body, also when there is no such tag (then nothing changes). Records tag-deleted. ${MANAGE}`,
        params: TagParams,
        errors: errorStatuses(400, 403, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await removeTag(db, request.params, request.author)
      return reply.code(200).send()
    }
  )

  app.put(
    '/api/admin/projects/:projectId/tags',
    {
      config: { access: 'token', role: 'editor' },
      schema: {
        tags: ['Tags'],
        operationId: 'addTagToFeatures',
        summary: 'Add and remove tags on several features of a project',
        description:
          'As Unleash: 200 with no body. Each feature gets the added tags (a tag that does not exist yet is created: tag-created) and loses the removed ones, as POST and DELETE …/features/{featureName}/tags do it (feature-tagged, feature-untagged; a tag it has, or lacks, changes nothing). All or none, in one transaction: 404 naming the first feature, in the order sent, that is not in the project (Unleash: 400), 400 for a tag type that does not exist.',
        params: ProjectParams,
        body: Type.Object(
          {
            features: Type.Array(UrlFriendly('A feature of the project'), { maxItems: 1000, uniqueItems: true }),
            tags: TagsChange,
          },
          { additionalProperties: false }
        ),
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      await tagFeatures(db, request.params.projectId, request.body.features, request.body.tags, request.author)
      return reply.code(200).send()
    }
  )
}

export const featureTagRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  const BASE = '/api/admin/features/:featureName/tags'
  // A token outside the feature's project gets the 404 of a feature that does not exist, before
  // its body is looked at: it learns nothing from a 400 either.
  app.addHook('preValidation', async (request) => {
    const { featureName } = request.params as { featureName?: unknown }
    if (typeof featureName === 'string') await requireFeatureVisible(db, featureName, request.token)
  })

  app.get(
    BASE,
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Tags'],
        operationId: 'listTags',
        summary: 'The tags of a feature, in the order they were added',
        description: FEATURE_SCOPE,
        params: FeatureTagParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: TagsResponse },
      },
    },
    async (request) => ({ version: 1 as const, tags: await featureTags(db, request.params.featureName, request.token) })
  )

  app.post(
    BASE,
    {
      config: { access: 'token', role: 'editor', guard: 'none' },
      schema: {
        tags: ['Tags'],
        operationId: 'addTag',
        summary: 'Tag a feature',
        description: `As Unleash: 201 with the tag and a Location header; the tag is created when it is new (tag-created), its type must exist (400); records feature-tagged, and a tag the feature has already changes nothing. ${FEATURE_SCOPE}`,
        params: FeatureTagParams,
        body: TagBody,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 201: { ...Tag, headers: { location: responseHeader('<featureName>/tags', true) } } },
      },
    },
    async (request, reply) => {
      const added = await addFeatureTag(db, request.params.featureName, request.body, request.token, request.author)
      return reply.code(201).header('location', `${request.params.featureName}/tags`).send(added)
    }
  )

  app.put(
    BASE,
    {
      config: { access: 'token', role: 'editor', guard: 'none' },
      schema: {
        tags: ['Tags'],
        operationId: 'updateTags',
        summary: 'Add and remove tags of a feature in one change',
        description: `As Unleash: 200 with the feature's tags after the change. Records feature-tagged and feature-untagged for what changed (and tag-created for new tags). ${FEATURE_SCOPE}`,
        params: FeatureTagParams,
        body: TagsChange,
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: TagsResponse },
      },
    },
    async (request) => ({ version: 1 as const, tags: await changeFeatureTags(db, request.params.featureName, request.body, request.token, request.author) })
  )

  app.delete(
    `${BASE}/:type/:value`,
    {
      config: { access: 'token', role: 'editor', guard: 'none' },
      schema: {
        tags: ['Tags'],
        operationId: 'removeTag',
        summary: 'Remove a tag from a feature',
        description: `As Unleash: 200 with no body. Records feature-untagged; a tag the feature does not have changes nothing. ${FEATURE_SCOPE}`,
        params: Type.Composite([FeatureTagParams, TagParams]),
        errors: errorStatuses(400, 403, 404, 413, 415),
        response: { 200: EmptyReply },
      },
    },
    async (request, reply) => {
      const { featureName, type, value } = request.params
      await removeFeatureTag(db, featureName, { type, value }, request.token, request.author)
      return reply.code(200).send()
    }
  )
}
