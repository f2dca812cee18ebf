/**
 * Every constraint operator the official SDKs evaluate (client specification 6.1.0). IN_CIDR is
 * accepted unlike Unleash 8.2, which refuses it although SDKs built on specification 6.1.0 or
 * later evaluate it (the Node SDK from 6.11.0); older SDKs treat it as an unknown operator,
 * which never matches.
 */
export const OPERATORS = [
  'IN',
  'NOT_IN',
  'STR_STARTS_WITH',
  'STR_ENDS_WITH',
  'STR_CONTAINS',
  'NUM_EQ',
  'NUM_GT',
  'NUM_GTE',
  'NUM_LT',
  'NUM_LTE',
  'DATE_AFTER',
  'DATE_BEFORE',
  'SEMVER_EQ',
  'SEMVER_GT',
  'SEMVER_GTE',
  'SEMVER_LT',
  'SEMVER_LTE',
  'REGEX',
  'IN_CIDR',
] as const
export type Operator = (typeof OPERATORS)[number]

/** The operators that take a list of values (`values`); the others take one `value`. */
export const LIST_OPERATORS: readonly Operator[] = ['IN', 'NOT_IN', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS', 'IN_CIDR']

export const isListOperator = (operator: string) => (LIST_OPERATORS as readonly string[]).includes(operator)
