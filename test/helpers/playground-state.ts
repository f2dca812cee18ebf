/**
 * A rich, seeded flag state as a `features-batch` export (the one format both this server and
 * Unleash 8.2 import), and contexts to evaluate it with: for the playground's differential test
 * against Unleash and its bench. Every constraint operator Unleash 8.2 accepts (inverted and
 * case-insensitive where allowed), segments, dependencies (with and without parent variants),
 * strategy and environment variants (fixed and variable weights, several stickiness fields,
 * payloads; overrides on environment variants, the only ones Unleash takes them on), disabled strategies, a custom strategy, applicationHostname, flags off
 * and flags with no strategy, in two environments.
 *
 * What Unleash's playground answers differently by design (docs/behaviour.md, "The playground")
 * is not generated, so that the whole answers can be compared: case-insensitive IN and NOT_IN,
 * semver values with a leading `v`, dependencies that want their parent off, and contexts that
 * would make either side draw random numbers (every context has userId, sessionId and plan, the
 * stickiness fields used). Same seed, same state and contexts.
 */

/** mulberry32: small, fast, and every bit of it varies. */
export function seededRandom (seed: number) {
  let s = seed | 0
  const next = () => {
    s = (s + 0x6d2b79f5) | 0
    let x = Math.imul(s ^ (s >>> 15), 1 | s)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(list: readonly T[]): T => list[int(list.length)] as T
  const chance = (p: number) => next() < p
  const some = <T>(list: readonly T[], max: number): T[] => {
    const count = int(max + 1)
    const copy = [...list]
    const out: T[] = []
    while (out.length < count && copy.length > 0) out.push(copy.splice(int(copy.length), 1)[0] as T)
    return out
  }
  return { next, int, pick, chance, some }
}
export type Random = ReturnType<typeof seededRandom>

export const ENVIRONMENTS = ['development', 'production'] as const
export const CUSTOM_STRATEGY = { name: 'pg-by-region', description: 'a strategy the server cannot evaluate', parameters: [{ name: 'regions', type: 'list', description: 'where', required: false }] }
export const SEGMENTS = [
  { name: 'pg-beta', description: 'new versions', constraints: [{ contextName: 'version', operator: 'SEMVER_GTE', value: '2.0.0', values: [] }] },
  { name: 'pg-europe', description: 'in Europe', constraints: [{ contextName: 'country', operator: 'IN', values: ['NL', 'BE', 'DE'] }, { contextName: 'plan', operator: 'NOT_IN', values: ['free'] }] },
  { name: 'pg-staff', description: 'our people', constraints: [{ contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@example.com'], caseInsensitive: true }] },
]

const PLANS = ['gold', 'silver', 'free', 'trial']
const COUNTRIES = ['NL', 'BE', 'DE', 'US', 'nl', 'FR']
const VERSIONS = ['1.0.0', '1.5.0', '2.0.0', '2.0.0-rc.1', '2.4.9', '3.0.0', '10.1.0']
const EMAILS = ['ann@example.com', 'Bob@Example.COM', 'ops@other.org', 'x@example.net', 'admin1@example.com']
const DATES = ['2020-06-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z', '2025-06-15T12:00:00.000Z', '2035-01-01T00:00:00.000Z']

type Constraint = Record<string, unknown>

/** One constraint of an operator Unleash 8.2 accepts, as its export carries them (`values: []` beside a single `value`). */
function constraint (r: Random): Constraint {
  const kind = r.int(7)
  const flags = (caseInsensitive: boolean, invertible = true) => ({ ...(invertible && r.chance(0.25) && { inverted: true }), ...(caseInsensitive && r.chance(0.4) && { caseInsensitive: true }) })
  if (kind === 0) return { contextName: r.pick(['country', 'plan', 'userId', 'appName', 'environment']), operator: r.pick(['IN', 'NOT_IN']), values: r.some([...COUNTRIES, ...PLANS, 'u-1', 'u-2', 'u-3', 'web', 'default'], 4).concat('NL'), ...flags(false) }
  if (kind === 1) return { contextName: r.pick(['email', 'userId', 'country']), operator: r.pick(['STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS']), values: r.some(['ann', 'ops', '@example', '.com', 'u-', 'N', 'L', 'ADMIN'], 3).concat('@example.com'), ...flags(true) }
  if (kind === 2) return { contextName: 'age', operator: r.pick(['NUM_EQ', 'NUM_GT', 'NUM_GTE', 'NUM_LT', 'NUM_LTE']), value: r.pick(['18', '21', '65', '0', '42.5']), values: [], ...flags(false) }
  if (kind === 3) return { contextName: 'currentTime', operator: r.pick(['DATE_AFTER', 'DATE_BEFORE']), value: r.pick(DATES), values: [], ...flags(false) }
  if (kind === 4) return { contextName: 'version', operator: r.pick(['SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'SEMVER_GTE', 'SEMVER_LTE']), value: r.pick(['1.5.0', '2.0.0', '2.0.0-rc.1', '3.0.0']), values: [], ...flags(false) }
  if (kind === 5) return { contextName: r.pick(['email', 'userId']), operator: 'REGEX', value: r.pick(['^[a-z]+@', 'example\\.(com|org)$', '^u-[0-9]+$', '^ADMIN']), values: [], ...flags(true, false) }
  return { contextName: r.pick(['plan', 'country']), operator: 'IN', values: r.some(PLANS, 2).concat('gold') }
}

function variants (r: Random, prefix: string, max: number, overrides = true) {
  const count = 1 + r.int(max)
  const stickiness = r.pick(['default', 'default', 'userId', 'sessionId', 'plan'])
  const fixed = count > 1 && r.chance(0.4) ? 1 + r.int(count - 1) : -1
  const fixedWeight = 100 + r.int(400)
  const variable = count - (fixed >= 0 ? 1 : 0)
  const share = Math.floor((1000 - (fixed >= 0 ? fixedWeight : 0)) / variable)
  let extra = 1000 - (fixed >= 0 ? fixedWeight : 0) - share * variable
  return Array.from({ length: count }, (_, i) => ({
    name: `${prefix}${i}`,
    weight: i === fixed ? fixedWeight : share + (extra-- > 0 ? 1 : 0),
    weightType: i === fixed ? 'fix' : 'variable',
    stickiness,
    ...(r.chance(0.6) && { payload: r.pick([{ type: 'string', value: `${prefix}${i}-text` }, { type: 'json', value: `{"n":${i}}` }, { type: 'number', value: String(i * 7) }, { type: 'csv', value: 'a,b' }]) }),
    ...(overrides && r.chance(0.2) && { overrides: [{ contextName: r.pick(['userId', 'country']), values: r.some(['u-1', 'u-7', 'NL', 'US'], 2).concat('u-3') }] }),
  }))
}

/** A strategy of one of the kinds Unleash 8.2 has (and the custom one), with constraints, segments and variants. */
function strategy (r: Random, feature: string, index: number, disabled: boolean) {
  const kind = r.pick(['default', 'flexibleRollout', 'flexibleRollout', 'flexibleRollout', 'remoteAddress', 'applicationHostname', CUSTOM_STRATEGY.name])
  const parameters: Record<string, string> =
    kind === 'flexibleRollout'
      ? { rollout: r.pick(['0', '10', '50', '75', '100']), stickiness: r.pick(['default', 'userId', 'sessionId', 'plan']), groupId: r.chance(0.8) ? feature : 'shared-group' }
      : kind === 'remoteAddress'
        ? { IPs: r.pick(['10.0.0.0/8', '192.168.1.10, 10.1.2.3', '127.0.0.1']) }
        : kind === 'applicationHostname'
          ? { hostNames: r.pick(['web-1,web-2', 'localhost']) }
          : kind === CUSTOM_STRATEGY.name
            ? { regions: 'eu,us' }
            : {}
  return {
    name: kind,
    id: `${feature}-s${index}`,
    featureName: feature,
    title: r.chance(0.4) ? `${kind} #${index}` : null,
    parameters,
    constraints: Array.from({ length: r.int(4) }, () => constraint(r)),
    variants: kind !== 'applicationHostname' && kind !== CUSTOM_STRATEGY.name && r.chance(0.3) ? variants(r, 'sv', 3, false) : [],
    sortOrder: index,
    disabled,
    segments: r.some([1, 2, 3], 2).sort((a, b) => a - b),
  }
}

/**
 * The export of `count` flags (named `<prefix>-0000`…) of project `project` in one environment
 * (call once per environment: the same seed and count give the same flags and dependencies, the
 * environment's own strategies, variants and state). Segment ids 1–3 stand for SEGMENTS (create
 * them first).
 */
export function playgroundExport (seed: number, count: number, environment: string, { project = 'default', prefix = 'pg' } = {}) {
  const shared = seededRandom(seed)
  const r = seededRandom(seed + ENVIRONMENTS.indexOf(environment as (typeof ENVIRONMENTS)[number]) * 7919 + 1)
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`)
  const parents = names.slice(0, Math.min(6, count))
  const features = names.map((name) => ({ name, description: null, type: shared.pick(['release', 'experiment', 'operational']), project, stale: false, impressionData: false, archived: false }))
  const dependencies = names.flatMap((name, i) => {
    if (i < parents.length || !shared.chance(0.3)) return []
    const list = shared.some(parents, 2)
    return list.length === 0 ? [] : [{ feature: name, dependencies: list.map((parent) => ({ feature: parent, enabled: true, variants: shared.chance(0.4) ? ['ev0', 'sv1'] : [] })) }]
  })
  const featureStrategies: ReturnType<typeof strategy>[] = []
  const featureEnvironments = names.map((name) => {
    const enabled = r.chance(0.75)
    const count = enabled ? 1 + r.int(3) : r.int(3)
    const list = Array.from({ length: count }, (_, i) => strategy(r, name, i, r.chance(0.15)))
    // A flag that is on always has a strategy that is not disabled (both servers switch it off otherwise).
    if (enabled && list.every((s) => s.disabled)) list[0]!.disabled = false
    featureStrategies.push(...list)
    return { enabled, featureName: name, environment, variants: r.chance(0.4) ? variants(r, 'ev', 3) : [], name }
  })
  return {
    features,
    featureStrategies,
    featureEnvironments,
    contextFields: [],
    featureTags: [],
    segments: SEGMENTS.map((s, i) => ({ id: i + 1, name: s.name })),
    tagTypes: [],
    dependencies,
  }
}

/** A context for the playground: userId, sessionId and plan always (no random draws), the rest often, some empty. */
export function playgroundContext (r: Random): Record<string, unknown> {
  const maybe = <T>(value: T, p = 0.8) => (r.chance(p) ? value : undefined)
  const properties: Record<string, string | undefined> = {
    plan: r.pick(PLANS),
    country: maybe(r.pick([...COUNTRIES, ''])),
    version: maybe(r.pick(VERSIONS)),
    age: maybe(String(r.int(90))),
    email: maybe(r.pick(EMAILS)),
  }
  const context: Record<string, unknown> = {
    appName: r.pick(['web', 'ios', 'checkout']),
    userId: `u-${r.int(40)}`,
    sessionId: `s-${r.int(1000)}`,
    remoteAddress: maybe(r.pick(['10.1.2.3', '192.168.1.10', '127.0.0.1', '8.8.8.8'])),
    currentTime: maybe(r.pick(['2021-01-01T00:00:00.000Z', '2024-06-01T12:00:00.000Z', '2030-01-01T00:00:00.000Z'])),
    environment: maybe(r.pick(['default', 'staging']), 0.2),
  }
  // Custom fields sometimes at the top level (both servers read them there too).
  if (r.chance(0.3)) {
    context.country = properties.country
    delete properties.country
  }
  context.properties = Object.fromEntries(Object.entries(properties).filter(([, v]) => v !== undefined))
  return Object.fromEntries(Object.entries(context).filter(([, v]) => v !== undefined))
}
