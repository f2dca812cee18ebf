/**
 * Random flag sets in the client API's format and random request contexts, for the
 * differential tests of the frontend evaluator against the official SDK: every constraint
 * operator with edge values, caseInsensitive, inverted, segments, several strategies of every
 * built-in kind, strategy variants, environment variants with fixed and variable weights and
 * every stickiness, overrides, dependencies with enabled/variants conditions, disabled parents;
 * contexts with missing fields, empty strings, unicode, numbers as strings, dates around the
 * constraint values, IPv4/IPv6 and CIDR edges.
 */
import { hostname } from 'node:os'
import fc from 'fast-check'
import type { ClientFeature, ClientSegment, ClientStrategy } from '../../src/client/client.schemas.js'
import type { Variant } from '../../src/variants/variants.schemas.js'

export const FIELDS = ['userId', 'sessionId', 'remoteAddress', 'currentTime', 'appName', 'environment', 'plan', 'age', 'version', 'tenant', 'random', 'featureToggle'] as const

const STRINGS = ['user-1', 'User-1', 'user-10', 'a', 'A', ' a ', 'ab', 'b', 'abc', 'ABC', 'ü', 'Ü', 'İ', 'ß', '😀', 'é', 'e\u0301', 'pro', 'Pro', 'free', 'x,y', '1', '01']
const NUMBERS = ['0', '-0', '1', '-1', '1.5', '10', '1e3', '1000', ' 1 ', '0x10', 'NaN', 'Infinity', '9007199254740993']
const VERSIONS = ['1.2.3', 'v1.2.3', ' 1.2.3', '1.2', '2.0.0-rc.1', '2.0.0', '1.2.3-alpha.1+build', '0.0.0', '10.0.0', '1.2.3-beta', '1.2.3+4000', '1.2.3+1', '1.2.3-beta.1+build.5', '1.2.3-beta.1']
const DATES = ['2024-02-29T12:00:00.000Z', '2001-01-01T00:00:00.000+02:00', '2038-01-19T03:14:07Z']
const ADDRESSES = ['10.0.0.1', '10.255.255.255', '11.0.0.0', '192.168.1.42', '192.168.1.43', '127.0.0.1', '0.0.0.0', '::1', '2001:db8::1', '2001:db9::', '::ffff:10.0.0.1', 'fe80::1', '1.2.3', 'not-an-ip', '010.0.0.1']
const CIDRS = ['10.0.0.0/8', '192.168.1.42', '127.0.0.1/32', '0.0.0.0/0', '2001:db8::/32', '::1', '::ffff:10.0.0.1', 'fe80::/10', '10.0.0.0/33', 'bad', ' 10.0.0.1 ']
const REGEXES = ['^user-\\d+$', 'a.*b', '(?i)abc', '[', '^$', 'ü', '^[[:alpha:]]+$', 'user']

/** Dates just around the constraint values, and some that do not parse. */
const aroundDates = fc.oneof(
  fc.tuple(fc.constantFrom(...DATES), fc.constantFrom(-86_400_000, -1, 0, 1, 86_400_000)).map(([d, delta]) => new Date(new Date(d).getTime() + delta).toISOString()),
  fc.constantFrom('yesterday', '2024-02-30T00:00:00Z', '1700000000000', '2024-02-29')
)

const value = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...STRINGS) },
  { weight: 2, arbitrary: fc.constantFrom(...NUMBERS) },
  { weight: 2, arbitrary: fc.constantFrom(...VERSIONS) },
  { weight: 1, arbitrary: fc.constantFrom(...ADDRESSES) },
  { weight: 1, arbitrary: aroundDates },
  { weight: 1, arbitrary: fc.string({ maxLength: 6, unit: 'grapheme' }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 4, unit: 'binary' }) }
)

const listValues = fc.array(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...STRINGS, ...NUMBERS, ...VERSIONS, ' ', 'user-1', 'user-7') }, { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 3 }) }), { minLength: 1, maxLength: 4 })

const contextName = fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...FIELDS) }, { weight: 1, arbitrary: fc.constantFrom('properties', 'toString', 'missing') })

export const constraint = fc.oneof(
  fc.record({ contextName, operator: fc.constantFrom('IN', 'NOT_IN', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS'), values: listValues }),
  fc.record({ contextName: fc.oneof(fc.constant('age'), contextName), operator: fc.constantFrom('NUM_EQ', 'NUM_GT', 'NUM_GTE', 'NUM_LT', 'NUM_LTE'), value: fc.constantFrom(...NUMBERS.slice(0, 9)) }),
  fc.record({ contextName: fc.constant('currentTime'), operator: fc.constantFrom('DATE_AFTER', 'DATE_BEFORE'), value: fc.constantFrom(...DATES, 'garbage') }),
  fc.record({ contextName: fc.constantFrom('version', 'appName', 'age'), operator: fc.constantFrom('SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'SEMVER_GTE', 'SEMVER_LTE'), value: fc.constantFrom(...VERSIONS) }),
  fc.record({ contextName, operator: fc.constant('REGEX'), value: fc.constantFrom(...REGEXES) }),
  fc.record({ contextName: fc.constantFrom('remoteAddress', 'tenant'), operator: fc.constant('IN_CIDR'), values: fc.array(fc.constantFrom(...CIDRS), { minLength: 1, maxLength: 3 }) }),
  fc.record({ contextName, operator: fc.constant('NOT_AN_OPERATOR'), values: listValues })
).chain((c) => fc.record({ inverted: fc.boolean(), caseInsensitive: fc.boolean() }, { requiredKeys: [] }).map((flags) => ({ ...c, ...flags })))

const stickiness = fc.constantFrom('default', 'default', 'userId', 'sessionId', 'random', 'plan', 'remoteAddress')

const payload = fc.option(
  fc.oneof(
    fc.record({ type: fc.constant('string'), value: fc.constantFrom('hello', 'ü😀', '"quoted"') }),
    fc.record({ type: fc.constant('json'), value: fc.constantFrom('{"a":1}', '[1,2]', '{"nested":{"x":"y"}}') }),
    fc.record({ type: fc.constant('number'), value: fc.constantFrom('42', '-1.5', '1e3') }),
    fc.record({ type: fc.constant('csv'), value: fc.constant('a,b,c') })
  ),
  { nil: undefined }
)

const overrides = fc.option(fc.array(fc.record({ contextName, values: fc.array(fc.constantFrom(...STRINGS.slice(0, 8)), { maxLength: 3 }) }), { maxLength: 2 }), { nil: undefined, freq: 4 })

/** Variants whose weights sum to 1000 (fixed and variable, as stored), or anything from 0 to 1000 (all zero included). */
export const variants = (names: string, max: number) =>
  fc
    .tuple(
      fc.array(fc.record({ payload, overrides, fixed: fc.boolean(), weight: fc.integer({ min: 0, max: 1000 }) }), { minLength: 0, maxLength: max }),
      stickiness,
      fc.boolean()
    )
    .map(([list, stick, stored]): Variant[] => {
      if (list.length === 0) return []
      let weights = list.map((v) => v.weight)
      if (stored) {
        // As the service stores them: fixed weights kept (while they fit), variable ones share the rest.
        let fixed = 0
        const isFixed = list.map((v, i) => v.fixed && i > 0 && fixed + v.weight <= 1000 && (fixed += v.weight) >= 0)
        const variable = isFixed.filter((f) => !f).length
        const share = Math.floor((1000 - fixed) / variable)
        let extra = (1000 - fixed) % variable
        weights = list.map((v, i) => (isFixed[i] ? v.weight : share + (extra-- > 0 ? 1 : 0)))
      }
      return list.map((v, i) => ({
        name: `${names}${i}`,
        weight: weights[i]!,
        weightType: v.fixed ? 'fix' : 'variable',
        stickiness: stick,
        ...(v.payload && { payload: v.payload as Variant['payload'] }),
        ...(v.overrides && { overrides: v.overrides }),
      }))
    })

const percentage = fc.constantFrom('0', '1', '25', '50', '99', '100', '', 'abc')

/** A strategy of a built-in kind (or one the SDK does not know) with its parameters, edge values included. */
export const strategyKind = (feature: string) =>
  fc.oneof(
    fc.record({ name: fc.constant('default'), parameters: fc.constant({}) }),
    fc.record({
      name: fc.constant('flexibleRollout'),
      parameters: fc.record({ rollout: percentage, stickiness, groupId: fc.constantFrom(feature, 'group', '') }, { requiredKeys: ['rollout'] }),
    }),
    fc.record({ name: fc.constant('userWithId'), parameters: fc.record({ userIds: fc.constantFrom('user-1,user-10', 'a, b ,c', '', ' a ', 'a,,b', 'user-7, ü ,User-1') }) }),
    fc.record({ name: fc.constant('remoteAddress'), parameters: fc.record({ IPs: fc.constantFrom('10.0.0.0/8', '127.0.0.1', '192.168.1.42, 10.0.0.1', 'bad', '', '::1') }) }),
    fc.record({ name: fc.constantFrom('gradualRolloutUserId', 'gradualRolloutSessionId'), parameters: fc.record({ percentage, groupId: fc.constantFrom(feature, '') }) }),
    fc.record({ name: fc.constant('gradualRolloutRandom'), parameters: fc.record({ percentage }) }),
    fc.record({ name: fc.constant('applicationHostname'), parameters: fc.record({ hostNames: fc.constantFrom(hostname().toUpperCase(), `other, ${hostname()}`, 'elsewhere', '') }) }),
    fc.record({ name: fc.constant('my-custom'), parameters: fc.constant({ anything: 'x' }) })
  )

const strategy = (feature: string, segmentIds: number[]) =>
  fc
    .record({
      kind: strategyKind(feature),
      constraints: fc.array(constraint, { maxLength: 2 }),
      segments: fc.oneof({ weight: 3, arbitrary: fc.constant([] as number[]) }, { weight: 1, arbitrary: fc.subarray([...segmentIds, 999], { maxLength: Math.min(2, segmentIds.length + 1) }) }),
      variants: fc.oneof({ weight: 3, arbitrary: fc.constant([] as Variant[]) }, { weight: 2, arbitrary: variants('sv', 3) }),
    })
    .map(({ kind, constraints, segments, variants: list }): ClientStrategy => ({
      name: kind.name,
      constraints,
      parameters: kind.parameters as Record<string, string>,
      variants: list,
      segments,
    }))

/** A feature in the client API's format: enabled, in project default, with nothing else unless given. */
export const clientFeature = (over: Partial<ClientFeature>): ClientFeature => ({
  name: 'f',
  type: 'release',
  project: 'default',
  enabled: true,
  stale: false,
  impressionData: false,
  strategies: [],
  variants: [],
  dependencies: [],
  ...over,
})

export interface FlagSet {
  features: ClientFeature[]
  segments: ClientSegment[]
}

/** A random flag set of up to `max` features, in name order, with segments and dependencies. */
export const flagSet = (max = 12) =>
  fc
    .record({
      segments: fc.array(fc.array(constraint, { maxLength: 2 }), { maxLength: 3 }),
      count: fc.integer({ min: 1, max }),
    })
    .chain(({ segments, count }) => {
      const ids = segments.map((_, i) => i + 1)
      const names = Array.from({ length: count }, (_, i) => `f${String(i).padStart(2, '0')}`)
      const feature = (name: string, index: number) =>
        fc
          .record({
            enabled: fc.boolean(),
            impressionData: fc.boolean(),
            project: fc.constantFrom('default', 'other'),
            strategies: fc.oneof({ weight: 1, arbitrary: fc.constant([] as ClientStrategy[]) }, { weight: 4, arbitrary: fc.array(strategy(name, ids), { minLength: 1, maxLength: 3 }) }),
            variants: fc.oneof(fc.constant([] as Variant[]), variants('v', 4)),
            dependencies:
              index === 0
                ? fc.constant([] as { feature: string; enabled: boolean; variants: string[] | undefined }[])
                : fc.array(
                  fc.record({
                    feature: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...names.slice(0, index)) }, { weight: 1, arbitrary: fc.constant('missing-parent') }),
                    enabled: fc.boolean(),
                    variants: fc.option(fc.subarray(['v0', 'v1', 'sv0', 'disabled']), { nil: undefined }),
                  }),
                  { maxLength: 2 }
                ),
          })
          .map((f): ClientFeature => ({
            name,
            type: 'release',
            project: f.project,
            enabled: f.enabled,
            stale: false,
            impressionData: f.impressionData,
            strategies: f.strategies,
            variants: f.variants,
            // As the client API serves them: variants only when the child wants the parent on.
            dependencies: f.dependencies.map((d) => ({ feature: d.feature, enabled: d.enabled, ...(d.enabled && { variants: d.variants ?? [] }) })),
          }))
      return fc.tuple(...names.map(feature)).map((features): FlagSet => ({
        features,
        segments: segments.map((constraints, i) => ({ id: i + 1, name: `s${i + 1}`, constraints })),
      }))
    })

/** Values for each field, drawn mostly from the pools the constraints use, so that they match often. */
const fieldValue = (field: (typeof FIELDS)[number]) => {
  const pool =
    field === 'currentTime'
      ? aroundDates
      : field === 'remoteAddress'
        ? fc.constantFrom(...ADDRESSES)
        : field === 'age'
          ? fc.constantFrom(...NUMBERS)
          : field === 'version' || field === 'appName'
            ? fc.constantFrom(...VERSIONS, 'frontend-api')
            : field === 'userId' || field === 'sessionId'
              ? fc.oneof(fc.constantFrom(...STRINGS, ''), fc.integer({ min: 0, max: 300 }).map((i) => `user-${i}`))
              : fc.constantFrom(...STRINGS, '')
  return fc.oneof({ weight: 5, arbitrary: pool }, { weight: 1, arbitrary: value })
}

/** The fields of a request's context, as a query or an OFREP body sends them (strings only); each field present or not. */
export const requestFields = fc
  .tuple(...FIELDS.map((field) => fc.option(fieldValue(field), { nil: undefined, freq: 2 })))
  .map((values) => {
    const fields: Record<string, string> = {}
    FIELDS.forEach((field, i) => {
      if (values[i] !== undefined) fields[field] = values[i]
    })
    return fields
  })

export const callerAddress = fc.constantFrom('127.0.0.1', '10.1.2.3', '::1', '2001:db8::7')

/** Requests: their fields, the caller's address, and the number Math.random gives while each is evaluated. */
export const requestContexts = (max: number) =>
  fc.array(fc.record({ fields: requestFields, caller: callerAddress, draw: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }) }), { minLength: 1, maxLength: max })
