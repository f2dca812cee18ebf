import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

const PostgresUrl = Type.String({
  pattern: '^postgres(ql)?://',
  description: 'PostgreSQL connection string (postgres:// or postgresql://)',
})

const Port = Type.Integer({ minimum: 0, maximum: 65535 })

const Positive = (defaultValue: number, description: string) =>
  Type.Integer({ minimum: 1, default: defaultValue, description })

/**
 * Environment variables read at start-up. The names are the contract with operators
 * (docker-compose.yml and the README list them); a test checks the compose file against it.
 */
export const EnvSchema = Type.Object({
  DATABASE_URL: Type.Optional(PostgresUrl),
  DATABASE_POOL_SIZE: Positive(20, 'Connections in the PostgreSQL pool'),
  PORT: Type.Integer({ ...Port, default: 4242 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' }
  ),
  INIT_ADMIN_API_TOKENS: Type.Optional(Type.String()),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  BODY_LIMIT: Positive(1024 * 1024, 'Largest request body in bytes (413 above it)'),
  MAX_PATCH_OPERATIONS: Positive(1000, 'Most operations in one JSON Patch'),
  MAX_VARIANTS: Positive(1000, 'Most variants in one feature environment'),
  METRICS_ENABLED: Type.Boolean({ default: true }),
  SHUTDOWN_DELAY_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 500,
    description:
      'On SIGTERM, how long /ready answers 503 while requests are still served, before the server closes',
  }),
  TOKEN_CACHE_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 1000,
    description: 'How long a token lookup is cached; a revoked token stops working within it',
  }),
})

export type Env = Static<typeof EnvSchema>

export interface Config {
  databaseUrl: string | undefined
  databasePoolSize: number
  port: number
  host: string
  logLevel: string
  initAdminApiTokens: string[]
  dataDir: string
  bodyLimit: number
  maxPatchOperations: number
  maxVariants: number
  metricsEnabled: boolean
  tokenCacheMs: number
  shutdownDelayMs: number
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Reads and validates the environment; throws one ConfigError naming every bad variable. */
export function loadConfig (env: NodeJS.ProcessEnv = process.env): Config {
  const known = Object.keys(EnvSchema.properties)
  const raw: Record<string, unknown> = {}
  for (const key of known) {
    const value = env[key]
    if (value !== undefined && value !== '') raw[key] = value
  }
  const converted = Value.Convert(EnvSchema, Value.Default(EnvSchema, { ...raw }))
  const problems = [...Value.Errors(EnvSchema, converted)].map((e) => {
    const name = e.path.slice(1)
    return `${name}=${JSON.stringify(raw[name])} is invalid (${e.message.toLowerCase()})`
  })
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`)
  }
  const c = converted as Env
  return {
    databaseUrl: c.DATABASE_URL,
    databasePoolSize: c.DATABASE_POOL_SIZE,
    port: c.PORT,
    host: c.HOST,
    logLevel: c.LOG_LEVEL,
    initAdminApiTokens: (c.INIT_ADMIN_API_TOKENS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
    dataDir: c.DATA_DIR,
    bodyLimit: c.BODY_LIMIT,
    maxPatchOperations: c.MAX_PATCH_OPERATIONS,
    maxVariants: c.MAX_VARIANTS,
    metricsEnabled: c.METRICS_ENABLED,
    tokenCacheMs: c.TOKEN_CACHE_MS,
    shutdownDelayMs: c.SHUTDOWN_DELAY_MS,
  }
}
