import { Value } from '@sinclair/typebox/value'
import ipaddr from 'ipaddr.js'
import { type Env, EnvSchema } from './config-variables.js'
import { OIDC_VARIABLES, type OidcField } from './vocabulary/oidc.js'

export { ID_TOKEN_ALGORITHMS, type IdTokenAlgorithm, OIDC_VARIABLES, type OidcField } from './vocabulary/oidc.js'
export { type Env, EnvSchema } from './config-variables.js'

/** Variables whose values are secrets: never printed, not even in a configuration error. */
const SECRET_VARIABLES = new Set(['TOKENS', 'INIT_ADMIN_API_TOKENS', 'UNLEASH_DEFAULT_ADMIN_PASSWORD', 'INIT_ADMIN_PASSWORD', 'OIDC_CLIENT_SECRET'])

/** `postgres://user:secret@host/db` → `postgres://user:***@host/db`; other text unchanged. */
export function redactUrl (text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@/\s]*@/gi, '$1***@')
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

function toConfig (env: Env) {
  return {
    databaseUrl: env.DATABASE_URL,
    databasePoolSize: env.DATABASE_POOL_SIZE,
    databaseConnectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_MS,
    databaseQueueLimit: env.DATABASE_QUEUE_LIMIT,
    databaseQueueTimeoutMs: env.DATABASE_QUEUE_TIMEOUT_MS,
    port: env.PORT,
    host: env.HOST,
    logLevel: env.LOG_LEVEL,
    initAdminApiTokens: (env.INIT_ADMIN_API_TOKENS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
    dataDir: env.DATA_DIR,
    bodyLimit: env.BODY_LIMIT,
    importBodyLimit: env.IMPORT_BODY_LIMIT,
    startupImport:
      env.IMPORT_FILE === undefined
        ? undefined
        : { file: env.IMPORT_FILE, project: env.IMPORT_PROJECT, environment: env.IMPORT_ENVIRONMENT, mode: env.IMPORT_MODE },
    maxPatchOperations: env.MAX_PATCH_OPERATIONS,
    maxVariants: env.MAX_VARIANTS,
    maxVariantsBytes: env.MAX_VARIANTS_BYTES ?? minimumVariantsBytes(env),
    strategyLimits: {
      maxStrategies: env.MAX_STRATEGIES,
      maxConstraints: env.MAX_CONSTRAINTS,
      maxConstraintValues: env.MAX_CONSTRAINT_VALUES,
      maxValueLength: env.MAX_CONSTRAINT_VALUE_LENGTH,
      maxRegexLength: env.MAX_REGEX_LENGTH,
      maxSegments: env.MAX_SEGMENTS_PER_STRATEGY,
      maxVariants: env.MAX_VARIANTS,
    },
    maxSegmentValues: env.MAX_SEGMENT_VALUES,
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    connectionTimeoutMs: env.CONNECTION_TIMEOUT_MS,
    metricsEnabled: env.METRICS_ENABLED,
    tokenCacheMs: env.TOKEN_CACHE_MS,
    /** The frontend API's origins as FRONTEND_ALLOWED_ORIGINS fixes them; undefined: an Admin sets them (default any). */
    frontendAllowedOrigins: env.FRONTEND_ALLOWED_ORIGINS?.split(',').map((o) => o.trim()).filter((o) => o.length > 0),
    frontendMaxEngines: env.FRONTEND_MAX_ENGINES,
    trustProxy: trustProxyOf(env.TRUST_PROXY),
    clientStateCacheMs: env.CLIENT_STATE_CACHE_MS,
    streaming: {
      maxConnections: env.STREAMING_MAX_CONNECTIONS,
      maxConnectionsPerToken: env.STREAMING_MAX_CONNECTIONS_PER_TOKEN,
      keepAliveMs: env.STREAMING_KEEPALIVE_MS,
      maxBufferBytes: env.STREAMING_MAX_BUFFER_BYTES,
      replayLimit: env.STREAMING_REPLAY_MAX_EVENTS,
    },
    clientUsageRate: env.CLIENT_USAGE_RATE,
    clientMaxApplications: env.CLIENT_MAX_APPLICATIONS,
    clientMaxInstances: env.CLIENT_MAX_INSTANCES,
    usageRetentionDays: env.USAGE_RETENTION_DAYS,
    usageFlushMs: env.USAGE_FLUSH_MS,
    usageMaxPending: env.USAGE_MAX_PENDING,
    shutdownDelayMs: env.SHUTDOWN_DELAY_MS,
    initialAdmin: initialAdminOf(env),
    sessions: { idleMs: env.SESSION_IDLE_TIMEOUT_MS, maxAgeMs: env.SESSION_MAX_AGE_MS },
    loginLimits: {
      perAccount: env.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      perAddress: env.LOGIN_MAX_FAILURES_PER_ADDRESS,
      windowMs: env.LOGIN_FAILURE_WINDOW_MS,
    },
    passwordHashCost: env.PASSWORD_HASH_COST,
    userInactivityDays: env.USER_INACTIVITY_THRESHOLD_IN_DAYS,
    publicUrl: env.UNLEASH_URL?.replace(/\/+$/, ''),
    oidc: oidcOf(env),
    changeRequestPollMs: env.CHANGE_REQUEST_POLL_MS,
    relay: relayOf(env),
    webhooks: {
      pollMs: env.WEBHOOK_POLL_MS,
      leaseMs: env.WEBHOOK_LEASE_MS,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
      maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
      retentionDays: env.WEBHOOK_RETENTION_DAYS,
      secretOverlapMs: env.WEBHOOK_SECRET_OVERLAP_MS,
      allowedNetworks: parseNetworks(env.WEBHOOK_ALLOWED_NETWORKS),
    },
  }
}

/** Relay mode's settings: present when UPSTREAM_URL is set. */
function relayOf (env: Env) {
  if (env.UPSTREAM_URL === undefined) return undefined
  return {
    upstreamUrl: env.UPSTREAM_URL.replace(/\/+$/, ''),
    tokens: [...new Set((env.TOKENS ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0))],
    backupFolder: env.BACKUP_FOLDER,
    refreshIntervalMs: env.REFRESH_INTERVAL * 1000,
  }
}

export type RelayConfig = NonNullable<ReturnType<typeof relayOf>>

/** The OpenID Connect settings the environment fixes: only those set. */
function oidcOf (env: Env) {
  const fixed: Partial<{ [F in OidcField]: NonNullable<Env[(typeof OIDC_VARIABLES)[F]]> }> = {}
  for (const [field, variable] of Object.entries(OIDC_VARIABLES) as [OidcField, (typeof OIDC_VARIABLES)[OidcField]][]) {
    const value = env[variable]
    if (value !== undefined) (fixed as Record<string, unknown>)[field] = value
  }
  return fixed
}

/** The first admin, from Unleash's variable names or ours (loadConfig checked that they agree). */
function initialAdminOf (env: Env): { username: string; password: string } | undefined {
  const username = env.UNLEASH_DEFAULT_ADMIN_USERNAME ?? env.INIT_ADMIN_USERNAME
  const password = env.UNLEASH_DEFAULT_ADMIN_PASSWORD ?? env.INIT_ADMIN_PASSWORD
  return username !== undefined && password !== undefined ? { username, password } : undefined
}

/** What is wrong with the first admin's variables: one without the other, or the two names disagreeing. */
function initialAdminProblems (env: Env): string[] {
  const problems: string[] = []
  const pairs = [['UNLEASH_DEFAULT_ADMIN_USERNAME', 'INIT_ADMIN_USERNAME'], ['UNLEASH_DEFAULT_ADMIN_PASSWORD', 'INIT_ADMIN_PASSWORD']] as const
  for (const [unleash, ours] of pairs) {
    if (env[unleash] !== undefined && env[ours] !== undefined && env[unleash] !== env[ours]) {
      problems.push(`${unleash} and ${ours} are both set and differ (set one of them)`)
    }
  }
  const username = env.UNLEASH_DEFAULT_ADMIN_USERNAME ?? env.INIT_ADMIN_USERNAME
  const password = env.UNLEASH_DEFAULT_ADMIN_PASSWORD ?? env.INIT_ADMIN_PASSWORD
  if ((username === undefined) !== (password === undefined)) {
    problems.push('UNLEASH_DEFAULT_ADMIN_USERNAME and UNLEASH_DEFAULT_ADMIN_PASSWORD (or INIT_ADMIN_USERNAME and INIT_ADMIN_PASSWORD) go together: set both or neither')
  }
  return problems
}

/** `10.0.0.0/8, ::1/128` → the CIDRs, normalised; every one has been checked by loadConfig. */
function parseNetworks (text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s.length > 0).map((cidr) => {
    const [address, bits] = ipaddr.parseCIDR(cidr)
    return `${address.toString()}/${bits}`
  })
}

/** The entries of WEBHOOK_ALLOWED_NETWORKS that are not CIDRs. */
const badNetworks = (text: string) =>
  text.split(',').map((s) => s.trim()).filter((s) => s.length > 0 && !ipaddr.isValidCIDR(s))

export type Config = ReturnType<typeof toConfig>

/** TRUST_PROXY as Fastify's trustProxy takes it. */
function trustProxyOf (value: string): boolean | number | string[] {
  if (value === 'true') return true
  if (value === 'false') return false
  if (/^[0-9]+$/.test(value)) return Number(value)
  return value.split(',').map((v) => v.trim()).filter((v) => v.length > 0)
}

/**
 * Bytes a variant may gain between a request and storage: the defaults filled in
 * (`,"weightType":"variable"` and `,"stickiness":"default"`, 47 bytes) and a weight of 0
 * growing to 1000 (3), rounded up. Everything else only shrinks (whitespace and escapes go).
 */
const STORED_GROWTH_PER_VARIANT = 64

/** The smallest variants byte limit under which every document a request can carry is storable. */
const minimumVariantsBytes = (env: Env) => env.BODY_LIMIT + STORED_GROWTH_PER_VARIANT * env.MAX_VARIANTS

/** The variables whose value is an integer. */
const INTEGER_VARIABLES = new Set(
  Object.entries(EnvSchema.properties).filter(([, schema]) => (schema as { type?: string }).type === 'integer').map(([key]) => key)
)

/** Reads and validates the environment; throws one ConfigError naming every bad variable. */
export function loadConfig (env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key]
    if (value !== undefined && value !== '') raw[key] = value
  }
  // TypeBox converts "1e3" to 1 and "0x10" to 16; a setting that is a number must be written
  // as one, in decimal digits, or it is refused rather than read as something else.
  const notDecimal = Object.entries(raw)
    .filter(([key, value]) => INTEGER_VARIABLES.has(key) && !/^[0-9]+$/.test(String(value)))
    .map(([key, value]) => `${key}=${redactUrl(JSON.stringify(value))} is invalid (must be a whole number in decimal digits)`)
  for (const problem of notDecimal) delete raw[problem.slice(0, problem.indexOf('='))]
  const converted = Value.Convert(EnvSchema, Value.Default(EnvSchema, { ...raw }))
  const problems = [...notDecimal, ...[...Value.Errors(EnvSchema, converted)].map((e) => {
    const name = e.path.slice(1)
    const value = SECRET_VARIABLES.has(name) ? '(hidden)' : redactUrl(JSON.stringify(raw[name]))
    return `${name}=${value} is invalid (${e.message.toLowerCase()})`
  })]
  const valid = converted as Env
  if (problems.length === 0 && valid.MAX_VARIANTS_BYTES !== undefined && valid.MAX_VARIANTS_BYTES < minimumVariantsBytes(valid)) {
    problems.push(
      `MAX_VARIANTS_BYTES=${valid.MAX_VARIANTS_BYTES} is invalid (must be at least BODY_LIMIT + ${STORED_GROWTH_PER_VARIANT} × MAX_VARIANTS = ${minimumVariantsBytes(valid)}, or a document that fits in a request could not be stored)`
    )
  }
  if (problems.length === 0) {
    const bad = badNetworks(valid.WEBHOOK_ALLOWED_NETWORKS)
    if (bad.length > 0) {
      problems.push(`WEBHOOK_ALLOWED_NETWORKS=${JSON.stringify(valid.WEBHOOK_ALLOWED_NETWORKS)} is invalid (not a CIDR such as 10.0.0.0/8: ${bad.join(', ')})`)
    }
    problems.push(...initialAdminProblems(valid))
    if (valid.UPSTREAM_URL === undefined) {
      for (const name of ['TOKENS', 'BACKUP_FOLDER'] as const) {
        if (valid[name] !== undefined) problems.push(`${name} is only read in relay mode: set UPSTREAM_URL too`)
      }
    }
    if (valid.SESSION_IDLE_TIMEOUT_MS > valid.SESSION_MAX_AGE_MS) {
      problems.push(`SESSION_IDLE_TIMEOUT_MS=${valid.SESSION_IDLE_TIMEOUT_MS} is invalid (must not exceed SESSION_MAX_AGE_MS=${valid.SESSION_MAX_AGE_MS})`)
    }
    if (valid.WEBHOOK_LEASE_MS <= valid.WEBHOOK_TIMEOUT_MS) {
      problems.push(
        `WEBHOOK_LEASE_MS=${valid.WEBHOOK_LEASE_MS} is invalid (must exceed WEBHOOK_TIMEOUT_MS=${valid.WEBHOOK_TIMEOUT_MS}, or another instance could send a delivery while this one still waits for its answer)`
      )
    }
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`)
  }
  return toConfig(valid)
}
