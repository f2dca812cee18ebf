// Constraints as people read and type them: each reads as a sentence ("userId is one of a, b"),
// and is edited as text (values one per line) until it is sent.
import { isListOperator, type Operator } from '../../src/vocabulary/operators'
import type { Constraint } from '../api/types'
import { lines } from './lists'

/** What each operator reads as, in the order the operator picker offers them. */
const OPERATOR_LABELS: Record<Operator, string> = {
  IN: 'is one of',
  NOT_IN: 'is not one of',
  STR_CONTAINS: 'contains',
  STR_STARTS_WITH: 'starts with',
  STR_ENDS_WITH: 'ends with',
  NUM_EQ: 'number equals',
  NUM_GT: 'number greater than',
  NUM_GTE: 'number at least',
  NUM_LT: 'number less than',
  NUM_LTE: 'number at most',
  DATE_AFTER: 'date after',
  DATE_BEFORE: 'date before',
  SEMVER_EQ: 'version equals',
  SEMVER_GT: 'version greater than',
  SEMVER_GTE: 'version at least',
  SEMVER_LT: 'version less than',
  SEMVER_LTE: 'version at most',
  REGEX: 'matches the pattern',
  IN_CIDR: 'is an address in',
}

export const OPERATOR_OPTIONS = Object.entries(OPERATOR_LABELS).map(([value, label]) => ({ value: value as Operator, label }))

/** Whether the operator compares text, so that case can be ignored. */
export const takesCase = (op: Operator) => op.startsWith('STR_') || op === 'REGEX'

const SINGLE_HINTS: Partial<Record<string, string>> = {
  NUM: 'A number, such as 42 or 3.5',
  DATE: 'A date and time with its zone, such as 2030-01-31T12:00:00Z',
  SEMVER: 'A version such as 1.2.3 (no leading v)',
  REGEX: 'A regular expression (RE2 syntax)',
}

/** What to type as the value of a single-value operator. */
export const valueHint = (op: Operator) => (SINGLE_HINTS[op.split('_')[0]!] ?? SINGLE_HINTS[op]) || ''

/** Context fields the SDKs fill in themselves; custom ones come from the context API. */
export const BUILT_IN_CONTEXT = ['appName', 'currentTime', 'environment', 'remoteAddress', 'sessionId', 'userId']

/** A constraint being edited: values as the text a person types, one per line. */
export interface ConstraintDraft {
  contextName: string
  operator: Operator
  valuesText: string
  value: string
  inverted: boolean
  caseInsensitive: boolean
}

export const toDraft = (c: Constraint): ConstraintDraft => ({
  contextName: c.contextName,
  operator: c.operator,
  valuesText: (c.values ?? []).join('\n'),
  value: c.value ?? '',
  inverted: c.inverted ?? false,
  caseInsensitive: c.caseInsensitive ?? false,
})

export const newDraft = (): ConstraintDraft => ({ contextName: 'userId', operator: 'IN', valuesText: '', value: '', inverted: false, caseInsensitive: false })

/** The constraint a draft sends: the member its operator reads, the switches only when on (and meaningful). */
export function fromDraft (d: ConstraintDraft): Constraint {
  const out: Constraint = { contextName: d.contextName.trim(), operator: d.operator }
  if (isListOperator(d.operator)) out.values = lines(d.valuesText)
  else out.value = d.value.trim()
  if (d.inverted) out.inverted = true
  if (d.caseInsensitive && takesCase(d.operator)) out.caseInsensitive = true
  return out
}

/** "userId is one of a, b" — how a constraint reads in lists and history. */
export function describeConstraint (c: Constraint): string {
  const op = OPERATOR_LABELS[c.operator] ?? c.operator
  const values = c.values ? c.values.join(', ') : c.value ?? ''
  return `${c.contextName} ${c.inverted ? 'NOT ' : ''}${op} ${values}${c.caseInsensitive ? ' (ignoring case)' : ''}`
}
