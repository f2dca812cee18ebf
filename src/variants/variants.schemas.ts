import { type Static, Type } from '@sinclair/typebox'
import { StringEnum, UrlFriendly } from '../http/schemas.js'
import { TOTAL_WEIGHT, WEIGHT_TYPES } from '../vocabulary/weights.js'

export const PAYLOAD_TYPES = ['json', 'csv', 'string', 'number'] as const

export const Payload = Type.Object(
  {
    type: StringEnum(PAYLOAD_TYPES),
    value: Type.String({
      minLength: 1,
      description: 'Always a string; a JSON object or array for json, a finite number literal for number',
    }),
  },
  { additionalProperties: false }
)

export const Override = Type.Object(
  {
    contextName: Type.String({ minLength: 1 }),
    values: Type.Array(Type.String()),
  },
  { additionalProperties: false }
)

const Name = UrlFriendly('Unique among the variants of this feature environment')
const Weight = Type.Integer({
  minimum: 0,
  maximum: TOTAL_WEIGHT,
  description: `Recomputed for variable variants so that all weights add up to ${TOTAL_WEIGHT}`,
})

/** A variant as a client may send it: weightType and stickiness may be left out. */
export const VariantInput = Type.Object(
  {
    name: Name,
    weight: Weight,
    weightType: Type.Optional(StringEnum(WEIGHT_TYPES, { default: 'variable' })),
    stickiness: Type.Optional(Type.String({ minLength: 1, default: 'default' })),
    payload: Type.Optional(Payload),
    overrides: Type.Optional(Type.Array(Override)),
  },
  { additionalProperties: false }
)

/** A variant as stored and returned, defaults filled in; members in this order. */
export const Variant = Type.Object(
  {
    name: Name,
    weight: Weight,
    weightType: StringEnum(WEIGHT_TYPES),
    stickiness: Type.String({ minLength: 1 }),
    payload: Type.Optional(Payload),
    overrides: Type.Optional(Type.Array(Override)),
  },
  { additionalProperties: false }
)

/** The variants of a feature environment as a request replaces them (PUT …/variants, variants-batch, an import's featureEnvironments[].variants). */
export const variantsBody = (maxVariants: number) => Type.Array(VariantInput, { maxItems: maxVariants })

export type VariantInput = Static<typeof VariantInput>
export type Variant = Static<typeof Variant>

export const FeatureVariants = Type.Object({
  version: Type.Literal(1, { description: 'Version of the feature variants schema; always 1' }),
  variants: Type.Array(Variant),
})

/** RFC 6901 JSON Pointer: empty (the whole document) or `/`-separated tokens with ~0 and ~1 escapes. */
export const JSON_POINTER_PATTERN = '^(/([^~/]|~[01])*)*$'

export const PATCH_OPS = ['add', 'remove', 'replace', 'copy', 'move'] as const

/** JSON Schema `if`/`then`: operations `ops` need the member `member` (RFC 6902 section 4). */
function requiredWhen (ops: string[], member: string) {
  return {
    if: { required: ['op'], properties: { op: { enum: ops } } },
    // `then` is JSON Schema's keyword here, not a thenable.
    then: { required: [member] },
  }
}

export const PatchOperation = Type.Object(
  {
    op: StringEnum(PATCH_OPS, { description: '`test` is not offered' }),
    path: Type.String({ pattern: JSON_POINTER_PATTERN, description: 'JSON Pointer into the variants array' }),
    from: Type.Optional(
      Type.String({ pattern: JSON_POINTER_PATTERN, description: 'Source for move and copy (required there)' })
    ),
    value: Type.Optional(Type.Unknown({ description: 'Value for add and replace (required there)' })),
  },
  {
    // RFC 6902: members an operation does not define are ignored, so the object stays open.
    allOf: [requiredWhen(['move', 'copy'], 'from'), requiredWhen(['add', 'replace'], 'value')],
  }
)
export type PatchOperation = Static<typeof PatchOperation>

export const VariantsQuery = Type.Object({
  dryRun: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Run every check and return the would-be result; write nothing',
    })
  ),
})
