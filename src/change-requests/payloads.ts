/**
 * Each change's payload, checked as strictly as the direct write it stands for: by that
 * route's own body schema (built by its owner's function from the same settings), so that
 * every limit and sentence is the same, placed at the change's payload
 * (`/body/3/payload/constraints/0/operator`). The write's own rules (definitions, segments,
 * what the database holds) then run as the write itself, without committing (see
 * change-requests.service.ts).
 */
import { type TSchema, Type } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import type { Config } from '../config.js'
import { NewDependency } from '../dependencies/dependencies.schemas.js'
import { invalidField } from '../errors.js'
import { UrlFriendly } from '../http/schemas.js'
import { updateSegmentSchema } from '../segments/segments.schemas.js'
import type { SegmentRules } from '../segments/segments.service.js'
import { newStrategySchema, SortOrderBody, StrategyParams, updateStrategySchema } from '../strategies/strategies.schemas.js'
import { type StrategyRules, strategyRules } from '../strategies/strategies.service.js'
import { requireValid, strictAjv } from '../validation.js'
import type { VariantLimits } from '../variants/variants.js'
import { variantsBody } from '../variants/variants.schemas.js'
import { type ChangeAction, FEATURE_ACTIONS, type FeatureAction } from '../vocabulary/change-requests.js'
import type { NewChange } from './change-requests.schemas.js'

type Settings = Pick<Config, 'strategyLimits' | 'bodyLimit' | 'maxSegmentValues' | 'maxVariants' | 'maxVariantsBytes'>

const closed = { additionalProperties: false } as const
const SegmentId = Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The segment' })

/**
 * The payload schema of each action: the body schema of the route whose write it stands for
 * (with the id the route takes in its path, for updateStrategy and updateSegment). undefined:
 * the action takes no payload.
 */
export function payloadSchemas (config: Settings): Record<ChangeAction, TSchema | undefined> {
  const update = updateStrategySchema(config.strategyLimits)
  const segment = updateSegmentSchema(config.strategyLimits, config.maxSegmentValues)
  return {
    updateEnabled: Type.Object(
      {
        enabled: Type.Boolean({ description: 'On or off (POST …/on or …/off)' }),
        shouldActivateDisabledStrategies: Type.Optional(Type.Boolean({ description: 'Switched on with only disabled strategies: enable those rather than add the default strategy' })),
      },
      closed
    ),
    addStrategy: newStrategySchema(config.strategyLimits),
    updateStrategy: Type.Object({ ...update.properties, id: StrategyParams.properties.strategyId }, closed),
    deleteStrategy: Type.Object({ id: StrategyParams.properties.strategyId }, closed),
    reorderStrategy: SortOrderBody,
    patchVariant: Type.Object({ variants: variantsBody(config.maxVariants) }, closed),
    archiveFeature: undefined,
    addDependency: NewDependency,
    deleteDependency: Type.Object({ feature: Type.Optional(UrlFriendly('The parent whose dependency goes; absent: every parent')) }, closed),
    updateSegment: Type.Object({ ...segment.properties, id: SegmentId }, closed),
    deleteSegment: Type.Object({ id: SegmentId }, closed),
  }
}

/** The rules the writes apply, from the configuration, and each payload's check compiled once. */
export interface ChangeRules {
  strategies: StrategyRules
  segments: SegmentRules
  variants: VariantLimits
  checks: Partial<Record<ChangeAction, ValidateFunction>>
}

export function changeRules (config: Settings): ChangeRules {
  const checks: Partial<Record<ChangeAction, ValidateFunction>> = {}
  for (const [action, schema] of Object.entries(payloadSchemas(config))) {
    if (schema) checks[action as ChangeAction] = strictAjv.compile(schema)
  }
  return {
    strategies: strategyRules(config.strategyLimits, config.bodyLimit),
    segments: { limits: config.strategyLimits, maxValues: config.maxSegmentValues },
    variants: { maxVariants: config.maxVariants, maxBytes: config.maxVariantsBytes },
    checks,
  }
}

/** A change whose shape and payload passed their schemas. */
export interface CheckedChange {
  action: ChangeAction
  feature: string | null
  segmentId: number | null
  /** undefined for an action without a payload (archiveFeature; deleteDependency of every parent). */
  payload: unknown
}

const isFeatureAction = (action: ChangeAction): action is FeatureAction => (FEATURE_ACTIONS as readonly string[]).includes(action)
const isEmptyObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0

/**
 * A change as sent, its shape checked: a feature for every action but the segment ones (which
 * name their segment in `payload.id` and no feature), and a payload its action's schema takes,
 * refused at `<root>/payload/…` with that schema's sentence.
 */
export function checkChange (change: NewChange, rules: ChangeRules, root: string): CheckedChange {
  const { action } = change
  const featureAction = isFeatureAction(action)
  if (featureAction && change.feature === undefined) throw invalidField(`${root}/feature`, `is required: ${action} changes a feature`)
  if (!featureAction && change.feature !== undefined) {
    throw invalidField(`${root}/feature`, `is not taken by ${action}: a segment change names its segment in payload.id`)
  }
  const check = rules.checks[action]
  let payload = change.payload
  if (!check) {
    // An action without a payload takes none, or an empty object (as some clients send).
    if (payload !== undefined && !isEmptyObject(payload)) throw invalidField(`${root}/payload`, `is not taken by ${action}`)
    payload = undefined
  } else if (payload === undefined) {
    if (action !== 'deleteDependency') throw invalidField(`${root}/payload`, `is required by ${action}`)
  } else {
    requireValid(check, payload, `${root}/payload`)
    if (action === 'deleteDependency' && isEmptyObject(payload)) payload = undefined
  }
  return {
    action,
    feature: featureAction ? change.feature! : null,
    segmentId: featureAction ? null : (payload as { id: number }).id,
    payload,
  }
}
