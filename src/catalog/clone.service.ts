import { ALL, coversEnvironment, type TokenScope } from '../access/scope.js'
import { addDependency } from '../dependencies/dependencies.service.js'
import { parentsOf } from '../dependencies/dependencies.store.js'
import { notFound, permissionDenied } from '../errors.js'
import { withChange, type Writer } from '../events/events.service.js'
import type { Author } from '../events/events.schemas.js'
import { lockFeature } from '../features/features.store.js'
import type { FeatureRef } from '../features/missing.js'
import type { FeatureStrategy, NewStrategy } from '../strategies/strategies.schemas.js'
import { setStrategies, type StrategyRules } from '../strategies/strategies.service.js'
import { listStrategies } from '../strategies/strategies.store.js'
import type { VariantLimits } from '../variants/variants.js'
import { replaceVariants } from '../variants/variants.service.js'
import { createFeature, setFeatureStale } from './catalog.service.js'
import { findFeature } from './catalog.store.js'

/** The rules of the single writes a composed feature write makes: strategies and variants. */
export interface FeatureWriteRules {
  strategies: StrategyRules
  variants: VariantLimits
}

const EVERY_ENVIRONMENT: TokenScope = { name: '', type: 'admin', projects: [ALL], environments: [ALL] }

/** A strategy as a new one of the copy: the same, its groupId the copy's name when `replaceGroupId` and it has one. */
const copyOf = (s: FeatureStrategy, name: string, replaceGroupId: boolean): NewStrategy => ({
  name: s.name,
  title: s.title,
  disabled: s.disabled,
  sortOrder: s.sortOrder,
  parameters: replaceGroupId && 'groupId' in s.parameters ? { ...s.parameters, groupId: name } : s.parameters,
  constraints: s.constraints as NewStrategy['constraints'],
  variants: s.variants,
  segments: s.segments,
})

/**
 * Clones a feature into a new one of the same project, as Unleash does: its description, type,
 * impressionData and stale; in every environment its variants and strategies (groupId replaced
 * by the new name unless `replaceGroupId` is false); its dependencies. The copy is off
 * everywhere; tags and links stay with the original. Made of the single writes (createFeature,
 * replaceVariants, setStrategies, addDependency) in one change: their rules, events and
 * refusals. A token must cover every environment where there is something to copy (403 naming
 * it).
 */
export function cloneFeature (
  writer: Writer,
  ref: FeatureRef,
  body: { name: string; replaceGroupId?: boolean | undefined },
  token: TokenScope,
  rules: FeatureWriteRules,
  createdBy: Author
) {
  return withChange(writer, async (change) => {
    await lockFeature(change.trx, ref)
    const source = await findFeature(change.trx, ref.project, ref.feature, EVERY_ENVIRONMENT)
    if (!source) throw notFound(`Feature ${ref.feature} does not exist in project ${ref.project}`)
    const environments = await Promise.all(source.environments.map(async (e) => ({
      ...e,
      strategies: (await listStrategies(change.trx, { ...ref, environment: e.name })).map((s) => s.strategy),
    })))
    for (const e of environments) {
      if ((e.strategies.length > 0 || e.variants.length > 0) && !coversEnvironment(token, e.name)) {
        throw permissionDenied(`API token ${token.name} has no access to environment ${e.name}, where ${ref.feature} has strategies or variants to copy`)
      }
    }
    const created = await createFeature(change, ref.project, {
      name: body.name,
      ...(source.description !== null && { description: source.description }),
      type: source.type as 'release',
      impressionData: source.impressionData,
    }, createdBy)
    const copy = { project: ref.project, feature: created.name }
    for (const e of environments) {
      const place = { ...copy, environment: e.name }
      if (e.variants.length > 0) await replaceVariants(change, place, e.variants, rules.variants, { ifMatch: undefined, dryRun: false, createdBy })
      if (e.strategies.length > 0) await setStrategies(change, place, e.strategies.map((s) => copyOf(s, created.name, body.replaceGroupId !== false)), rules.strategies, createdBy)
    }
    for (const dependency of await parentsOf(change.trx, ref.feature)) await addDependency(change, copy, dependency, createdBy)
    return source.stale ? setFeatureStale(change, copy, true, createdBy) : created
  })
}
