import { Type } from '@sinclair/typebox'
import { problem, RuleError } from '../errors.js'
import { Nullable, StringEnum } from '../http/schemas.js'
import { ajvProblems, strictAjv } from '../validation.js'
import { applyPatches } from '../variants/json-patch.js'
import type { PatchOperation } from '../variants/variants.schemas.js'
import { FEATURE_TYPES } from '../vocabulary/flag-types.js'

/** What a feature's JSON Patch works on: its metadata, as a feature read shows it. */
export interface FeatureDocument {
  name: string
  project: string
  description: string | null
  type: string
  stale: boolean
  impressionData: boolean
}

const checkDocument = strictAjv.compile(
  Type.Object(
    {
      name: Type.String(),
      project: Type.String(),
      description: Nullable(Type.String({ maxLength: 1000 })),
      type: StringEnum(FEATURE_TYPES),
      stale: Type.Boolean(),
      impressionData: Type.Boolean(),
    },
    { additionalProperties: false }
  )
)

/** A patch document is at most this large while it is patched (a feature's metadata is small). */
const MAX_DOCUMENT_BYTES = 64 * 1024

/**
 * RFC 6902 operations on a feature's metadata (`description`, `type`, `stale`,
 * `impressionData`), all or nothing: the result must still be a feature's metadata, with its
 * name and project unchanged (a feature is neither renamed nor moved by a patch). Variants are
 * patched on their own route (as Unleash says, which answers 403 for them).
 */
export function patchFeatureDocument (document: FeatureDocument, operations: readonly PatchOperation[]): FeatureDocument {
  operations.forEach((operation, index) => {
    if (operation.path.split('/')[1] === 'variants' || operation.from?.split('/')[1] === 'variants') {
      throw new RuleError('operations', [problem(`Operation ${index} touches /variants: variants are patched with PATCH /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants`, `/${index}/path`)])
    }
  })
  const text = JSON.stringify(document)
  const patched = applyPatches(JSON.parse(text), Buffer.byteLength(text), operations, { maxItems: Infinity, maxBytes: MAX_DOCUMENT_BYTES })
  if (!checkDocument(patched)) {
    const [first, ...rest] = ajvProblems(checkDocument.errors ?? [])
    throw new RuleError('feature', [first!, ...rest])
  }
  const result = patched as FeatureDocument
  if (result.name !== document.name) throw new RuleError('feature', [problem(`/name must stay ${document.name}: a feature cannot be renamed`, '/name')])
  if (result.project !== document.project) {
    throw new RuleError('feature', [problem(`/project must stay ${document.project}: a patch does not move a feature to another project`, '/project')])
  }
  return result
}
