import type { Constraint } from '../constraints/constraints.schemas.js'
import { badData } from '../errors.js'
import { isListOperator } from '../vocabulary/operators.js'
import type { ImportConstraint, ValidationItem } from './import-export.schemas.js'

/**
 * A constraint as an export carries it, in the form the single routes take: Unleash exports a
 * list operator with `value: ''` and a single-value operator with `values: []`; the member the
 * operator does not read is dropped. Unknown members are dropped too.
 */
export function importedConstraint (c: ImportConstraint): Constraint {
  const list = isListOperator(c.operator)
  return {
    contextName: c.contextName,
    operator: c.operator,
    ...(c.values !== undefined && (list || c.values.length > 0) && { values: c.values }),
    ...(c.value !== undefined && !(list && c.value === '') && { value: c.value }),
    ...(c.inverted !== undefined && { inverted: c.inverted }),
    ...(c.caseInsensitive !== undefined && { caseInsensitive: c.caseInsensitive }),
  } as Constraint
}

/** A constraint as Unleash exports it: a single-value operator carries `values: []` beside `value`. */
export function exportedConstraint (c: Constraint): Constraint {
  return isListOperator(c.operator) || c.values !== undefined ? c : { ...c, values: [] }
}

/** Names that appear more than once, in the order of their second appearance. */
export function duplicates (names: readonly string[]): string[] {
  const seen = new Set<string>()
  const twice = new Set<string>()
  for (const name of names) (seen.has(name) ? twice : seen).add(name)
  return [...twice]
}

/** What a look at the target found, for the validation messages. */
export interface Findings {
  project: string
  unsupportedStrategies: string[]
  contextFieldsLackingValues: string[]
  otherProjectFeatures: string[]
  duplicateFeatures: string[]
  unsupportedSegments: string[]
  missingDependencies: string[]
  missingTagTypes: string[]
  strangers: string[]
  tooMany?: { create: number; existing: number; limit: number }
  customStrategies: string[]
  archivedFeatures: string[]
  existingFeatures: string[]
  ignoredMembers: string[]
  missingPermissions: string[]
}

const item = (message: string, affectedItems: string[]): ValidationItem[] => (affectedItems.length > 0 ? [{ message, affectedItems }] : [])

/** Most refused elements a validation lists one by one; the rest are counted. */
export const MAX_LISTED_REFUSALS = 100

/**
 * Unleash's validation messages (and this server's for what Unleash does not check), from what
 * was found; then each element a single route would refuse, its message the 400's.
 */
export function validationOf (f: Findings, refused: readonly { message: string; item: string }[] = []) {
  return {
    errors: [
      ...item('We detected the following custom strategy that needs to be created first:', f.unsupportedStrategies),
      ...item('We detected the following context fields that do not have matching legal values with the imported ones:', f.contextFieldsLackingValues),
      ...item(
        `You cannot import a features that already exist in other projects. You already have the following features defined outside of project ${f.project}:`,
        f.otherProjectFeatures
      ),
      ...item('We detected the following features are duplicate in your import data:', f.duplicateFeatures),
      ...(f.tooMany
        ? [{ message: `We detected you want to create ${f.tooMany.create} new features to a project that already has ${f.tooMany.existing} existing features, exceeding the maximum limit of ${f.tooMany.limit}.`, affectedItems: [] }]
        : []),
      ...item('We detected the following segments that need to be created first:', f.unsupportedSegments),
      ...item('We detected the following dependencies that need to be created first:', f.missingDependencies),
      ...item('We detected the following tag types that need to be created first:', f.missingTagTypes),
      ...item('We detected the following strategies, feature environments, tags or dependencies of features that are not among the imported features:', f.strangers),
      ...refused.slice(0, MAX_LISTED_REFUSALS).map((r) => ({ message: r.message, affectedItems: [r.item] })),
      ...(refused.length > MAX_LISTED_REFUSALS ? [{ message: `${refused.length - MAX_LISTED_REFUSALS} more elements would be refused as well`, affectedItems: [] }] : []),
    ],
    warnings: [
      ...item(
        'The following strategy types will be used in import. Please make sure the strategy type parameters are configured as in source environment:',
        f.customStrategies
      ),
      ...item('The following features will not be imported as they are currently archived. To import them, please unarchive them first:', f.archivedFeatures),
      ...item('The following features already exist in this project and will be overwritten:', f.existingFeatures),
      ...item('The following members of the data are not kept by this server and will not be imported:', f.ignoredMembers),
    ],
    permissions: item('We detected you are missing the following permissions:', f.missingPermissions),
  }
}

/** The first refusal of an import, with Unleash's import messages where Unleash has one. */
export function refusalOf (f: Findings) {
  if (f.duplicateFeatures.length > 0) return badData(`We detected the following features are duplicate in your import data: ${f.duplicateFeatures.join(', ')}`)
  if (f.strangers.length > 0) {
    return badData(`These elements belong to features that are not among the imported features: ${f.strangers.join(', ')}`)
  }
  if (f.unsupportedStrategies.length > 0) {
    return badData(
      'Some of the strategies you are trying to import are not supported.',
      f.unsupportedStrategies.map((name) => ({ message: `${name} is not supported.` }))
    )
  }
  if (f.contextFieldsLackingValues.length > 0) {
    return badData(
      'Some of the context fields you are trying to import are not supported.',
      f.contextFieldsLackingValues.map((name) => ({ message: `${name} is not supported.` }))
    )
  }
  if (f.otherProjectFeatures.length > 0) return badData(`These features exist already in other projects: ${f.otherProjectFeatures.join(', ')}`)
  if (f.unsupportedSegments.length > 0) return badData(`Unsupported segments: ${f.unsupportedSegments.join(', ')}`)
  if (f.missingDependencies.length > 0) return badData(`The following dependent features are missing: ${f.missingDependencies.join(', ')}`)
  if (f.missingTagTypes.length > 0) return badData(`Tag types that do not exist and are not in the data: ${f.missingTagTypes.join(', ')}`)
  if (f.tooMany) return badData(validationOf(f).errors.find((e) => e.message.startsWith('We detected you want to create'))!.message)
  return undefined
}
