// The environment variables the server reads at start-up, as one TypeBox schema: names, types,
// defaults and descriptions (docs/configuration.md lists them; a test holds the two together).
// config.ts reads the environment with it and turns the values into the Config the app uses.
import { type Static, Type } from '@sinclair/typebox'
import { ID_TOKEN_ALGORITHMS } from './vocabulary/oidc.js'

const PostgresUrl = Type.String({
  pattern: '^postgres(ql)?://',
  description: 'PostgreSQL connection string (postgres:// or postgresql://)',
})

const Positive = (defaultValue: number, description: string) =>
  Type.Integer({ minimum: 1, default: defaultValue, description })

const Milliseconds = (defaultValue: number, maximum: number, description: string) =>
  Type.Integer({ minimum: 0, maximum, default: defaultValue, description })

const MiB = 1024 * 1024

const Flag = (description: string) => Type.Optional(Type.Boolean({ description }))

/**
 * Environment variables read at start-up. The names are the contract with operators
 * (docker-compose.yml and docs/configuration.md list them); a test checks the compose file against it.
 */
export const EnvSchema = Type.Object({
  DATABASE_URL: Type.Optional(PostgresUrl),
  DATABASE_POOL_SIZE: Positive(20, 'Connections in the PostgreSQL pool'),
  DATABASE_CONNECT_TIMEOUT_MS: Positive(
    3000,
    'How long opening a database connection may take before the request answers 503'
  ),
  DATABASE_QUEUE_LIMIT: Type.Integer({
    minimum: 0,
    default: 1000,
    description: 'Requests that may wait for a database connection when all are in use; more get 429',
  }),
  DATABASE_QUEUE_TIMEOUT_MS: Positive(
    10_000,
    'How long a request may wait for a database connection before it gets 429'
  ),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 4242 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  LOG_LEVEL: Type.Union(
    [
      Type.Literal('fatal'),
      Type.Literal('error'),
      Type.Literal('warn'),
      Type.Literal('info'),
      Type.Literal('debug'),
      Type.Literal('trace'),
      Type.Literal('silent'),
    ],
    { default: 'info' }
  ),
  INIT_ADMIN_API_TOKENS: Type.Optional(Type.String()),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  BODY_LIMIT: Positive(MiB, 'Largest request body in bytes (413 above it)'),
  IMPORT_BODY_LIMIT: Positive(
    32 * MiB,
    'Largest body of POST /api/admin/features-batch/import and /validate in bytes (an export of thousands of features is larger than BODY_LIMIT)'
  ),
  IMPORT_FILE: Type.Optional(Type.String({ minLength: 1, description: 'An export file (features-batch) to import at start-up, as Unleash does; nothing is applied if any of it is refused' })),
  IMPORT_PROJECT: Type.String({ minLength: 1, default: 'default', description: 'The project IMPORT_FILE is imported into' }),
  IMPORT_ENVIRONMENT: Type.String({ minLength: 1, default: 'development', description: 'The environment IMPORT_FILE is imported into' }),
  IMPORT_MODE: Type.Union([Type.Literal('create-if-missing'), Type.Literal('overwrite')], {
    default: 'create-if-missing',
    description:
      'create-if-missing: features of IMPORT_FILE that exist already are left as they are (changes made through the API survive a restart); overwrite: they are set as the file says on every start (as Unleash)',
  }),
  MAX_PATCH_OPERATIONS: Positive(1000, 'Most operations in one JSON Patch'),
  MAX_VARIANTS: Positive(1000, 'Most variants in one feature environment'),
  MAX_VARIANTS_BYTES: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'Largest serialised variants array of one feature environment, in bytes (UTF-8 JSON). Default: BODY_LIMIT + 64 × MAX_VARIANTS, so that any variants document a request can carry is storable once defaults are filled in; a smaller value is refused',
    })
  ),
  MAX_STRATEGIES: Positive(30, 'Most strategies in one feature environment'),
  MAX_CONSTRAINTS: Positive(30, 'Most constraints on one strategy'),
  MAX_CONSTRAINT_VALUES: Positive(250, 'Most values in one constraint'),
  MAX_CONSTRAINT_VALUE_LENGTH: Positive(100, 'Longest constraint value, in characters'),
  MAX_REGEX_LENGTH: Positive(1000, 'Longest REGEX constraint pattern, in characters'),
  MAX_SEGMENTS_PER_STRATEGY: Positive(5, 'Most segments one strategy may use'),
  MAX_SEGMENT_VALUES: Positive(1000, 'Most constraint values in one segment, all its constraints together'),
  REQUEST_TIMEOUT_MS: Positive(
    30_000,
    'All of a request (headers and body) must arrive within this; a slower one gets 408 and its connection is closed'
  ),
  CONNECTION_TIMEOUT_MS: Positive(
    120_000,
    'A connection with no traffic in either direction for this long is closed'
  ),
  METRICS_ENABLED: Type.Boolean({ default: true }),
  SHUTDOWN_DELAY_MS: Milliseconds(
    500,
    60_000,
    'On SIGTERM, how long /ready answers 503 while requests are still served, before the server closes'
  ),
  CLIENT_STATE_CACHE_MS: Milliseconds(
    1000,
    60_000,
    'How long the client API reuses the state version it read; every commit (on any instance) makes it read again at once through the change feed, so this bounds how late an SDK sees a change only while the feed is not listening'
  ),
  STREAMING_MAX_CONNECTIONS: Positive(10_000, 'Streams (GET /api/client/streaming) one instance holds at once; one more is 429, on which SDKs poll instead'),
  STREAMING_MAX_CONNECTIONS_PER_TOKEN: Positive(5000, 'Streams one API token may hold on one instance; one more is 429'),
  STREAMING_KEEPALIVE_MS: Type.Integer({ minimum: 10, maximum: 30_000, default: 15_000, description: 'How often every stream gets a keep-alive comment (SDKs drop a stream silent for 60 s)' }),
  STREAMING_MAX_BUFFER_BYTES: Positive(MiB, 'A stream with more than this many bytes not yet taken by its client when the next message comes is closed (a slow reader)'),
  STREAMING_REPLAY_MAX_EVENTS: Positive(1000, 'A stream or delta poll further behind than this many events gets a hydration instead of the events it missed'),
  CLIENT_USAGE_RATE: Positive(1000, 'Usage reports (SDK registrations and metrics) accepted per client token per minute; more get 429'),
  CLIENT_MAX_APPLICATIONS: Positive(50, 'Applications (app names) one client token may report; a new one past it is 400'),
  CLIENT_MAX_INSTANCES: Positive(1000, 'SDK instances one client token may have registered at once (each is forgotten 48 hours after it was last seen); a new one past it is 400'),
  USAGE_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 30, description: 'How long hourly usage counts (and applications not seen since) are kept' }),
  USAGE_FLUSH_MS: Type.Integer({
    minimum: 10,
    maximum: 60_000,
    default: 5000,
    description: 'How often SDK usage (registrations and metrics), summed in memory, is written in one transaction; a crash loses at most this much of it',
  }),
  USAGE_MAX_PENDING: Type.Integer({
    minimum: 1000,
    maximum: 1_000_000,
    default: 100_000,
    description: 'Usage rows (counts per feature, application and hour; instances; applications) held in memory before a flush is started early; reports wait while it is full',
  }),
  FRONTEND_ALLOWED_ORIGINS: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 10_000,
    description: 'Origins allowed to call the frontend API and OFREP from a browser (CORS), comma-separated; * for any. Set, it fixes them (POST /api/admin/ui-config/cors is refused); unset, an Admin sets them there, and until then any origin may',
  })),
  FRONTEND_MAX_ENGINES: Positive(100, 'Evaluation engines kept for the frontend API and OFREP (one per environment and project set); the least recently used goes first'),
  TRUST_PROXY: Type.String({
    pattern: '^(true|false|[0-9]{1,3}|[0-9A-Fa-f:./,\\s]+)$',
    default: 'false',
    description: 'Whether the caller\'s address (the frontend API\'s default remoteAddress) is read from X-Forwarded-For: false, true (any proxy), a number of proxies, or the proxies\' addresses and CIDRs, comma-separated',
  }),
  TOKEN_CACHE_MS: Milliseconds(
    1000,
    60_000,
    'How long a token lookup is cached; a revoked token stops working within it'
  ),
  CHANGE_REQUEST_POLL_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 1000,
    description: 'How often each instance looks for a scheduled change request made through another instance (the first look within this after start applies what fell due while none ran); one scheduled through this instance, and the next due time once known, are kept to at once',
  }),
  WEBHOOK_POLL_MS: Type.Integer({
    minimum: 10,
    maximum: 60_000,
    default: 1000,
    description: 'How often each instance also looks for webhook deliveries that are due (retries coming due, a missed notification); new changes and freed slots are claimed at once',
  }),
  WEBHOOK_LEASE_MS: Type.Integer({
    minimum: 1000,
    maximum: 3_600_000,
    default: 60_000,
    description: 'How long a claimed delivery is left to the instance that claimed it; one whose instance died is retried after it. Must exceed WEBHOOK_TIMEOUT_MS',
  }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 600_000,
    default: 5000,
    description: 'Time for one delivery attempt (name lookup, connection, answer); a slower receiver fails that attempt',
  }),
  WEBHOOK_RETRY_BASE_MS: Type.Integer({
    minimum: 1,
    maximum: 3_600_000,
    default: 1000,
    description: 'First retry delay; it doubles with every failed attempt (up to an hour), with jitter',
  }),
  WEBHOOK_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 100, default: 12, description: 'Attempts before a delivery is dead' }),
  WEBHOOK_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 7,
    description: 'How long delivered and dead deliveries (with their attempts) are kept',
  }),
  WEBHOOK_SECRET_OVERLAP_MS: Type.Integer({
    minimum: 0,
    maximum: 30 * 86_400_000,
    default: 86_400_000,
    description: 'After a secret rotation, how long deliveries are also signed with the previous secret',
  }),
  UNLEASH_DEFAULT_ADMIN_USERNAME: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The first admin\'s username (or email), created when no user exists yet; with UNLEASH_DEFAULT_ADMIN_PASSWORD' })),
  UNLEASH_DEFAULT_ADMIN_PASSWORD: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'The first admin\'s password (the password rules apply)' })),
  INIT_ADMIN_USERNAME: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Same as UNLEASH_DEFAULT_ADMIN_USERNAME' })),
  INIT_ADMIN_PASSWORD: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Same as UNLEASH_DEFAULT_ADMIN_PASSWORD' })),
  SESSION_IDLE_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    maximum: 30 * 86_400_000,
    default: 8 * 3_600_000,
    description: 'A session not used for this long ends (counted to the minute, or to a quarter of this when shorter)',
  }),
  SESSION_MAX_AGE_MS: Type.Integer({
    minimum: 1000,
    maximum: 365 * 86_400_000,
    default: 48 * 3_600_000,
    description: 'A session ends this long after its login, however much it is used',
  }),
  LOGIN_MAX_FAILURES_PER_ACCOUNT: Positive(10, 'Failed logins one account name (known or not) may have in LOGIN_FAILURE_WINDOW_MS; more attempts get 429 until the window ends'),
  LOGIN_MAX_FAILURES_PER_ADDRESS: Positive(100, 'Failed logins one source address (an IPv6 /64) may have in LOGIN_FAILURE_WINDOW_MS, whatever the names; more attempts get 429'),
  LOGIN_FAILURE_WINDOW_MS: Type.Integer({ minimum: 1000, maximum: 86_400_000, default: 900_000, description: 'The window in which failed logins are counted' }),
  PASSWORD_HASH_COST: Type.Integer({
    minimum: 12,
    maximum: 20,
    default: 17,
    description: 'scrypt cost as log2(N), with r=8 and p=1: 17 uses 128 MiB and a few hundred milliseconds per hash. Below 17 only for tests',
  }),
  USER_INACTIVITY_THRESHOLD_IN_DAYS: Type.Integer({
    minimum: 1,
    maximum: 36_500,
    default: 180,
    description: 'A user neither seen, created, nor using a personal access token for this many days is inactive (GET /api/admin/user-admin/inactive); Unleash\'s variable',
  }),
  UNLEASH_URL: Type.Optional(Type.String({
    pattern: '^https?://[^\\s?#]+$',
    maxLength: 2000,
    description: 'The address people reach this server at (Unleash\'s variable): the OpenID Connect callback is it + /auth/oidc/callback. Unset: taken from each request (Host, and X-Forwarded-* behind TRUST_PROXY)',
  })),
  OIDC_ENABLED: Flag('Sign-in with OpenID Connect on or off (fixes the setting enabled)'),
  OIDC_DISCOVER_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2000, description: 'The provider\'s discovery document (…/.well-known/openid-configuration)' })),
  OIDC_CLIENT_ID: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'The client id registered at the provider' })),
  OIDC_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000, description: 'The client secret; never answered or logged' })),
  OIDC_AUTO_CREATE: Flag('Create a user at their first sign-in'),
  OIDC_DEFAULT_ROOT_ROLE: Type.Optional(Type.Union([Type.Literal('Viewer'), Type.Literal('Editor'), Type.Literal('Admin')], { description: 'The root role of users created at sign-in' })),
  OIDC_EMAIL_DOMAINS: Type.Optional(Type.String({ maxLength: 10_000, description: 'Comma-separated email domains that may sign in' })),
  OIDC_ENABLE_PKCE: Flag('Send a PKCE S256 challenge'),
  OIDC_ENABLE_SINGLE_SIGN_OUT: Flag('Logging out ends the provider\'s session too'),
  OIDC_ENABLE_GROUP_SYNCING: Flag('Put users in groups from a claim at every sign-in'),
  OIDC_GROUP_JSON_PATH: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Where the group names are in the ID token' })),
  OIDC_ADD_GROUPS_SCOPE: Flag('Also ask for the groups scope'),
  OIDC_ID_TOKEN_SIGNING_ALGORITHM: Type.Optional(Type.Union(ID_TOKEN_ALGORITHMS.map((a) => Type.Literal(a)), { description: 'The one algorithm ID tokens may be signed with' })),
  OIDC_ACR_VALUES: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'acr_values sent to the provider' })),
  UPSTREAM_URL: Type.Optional(Type.String({
    pattern: '^https?://[^\\s?#]+$',
    maxLength: 2000,
    description: 'Relay mode (Unleash Edge\'s variable): the server, relay or Unleash whose flags this process relays to SDKs, held in memory, with no database (DATABASE_URL and DATA_DIR are not used). Without /api at the end',
  })),
  TOKENS: Type.Optional(Type.String({
    maxLength: 100_000,
    description: 'Relay mode: client and frontend tokens, comma-separated, whose flags are fetched at start; /ready answers 200 once each is served. Other tokens are checked with the upstream when an SDK first presents them',
  })),
  BACKUP_FOLDER: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 1000,
    description: 'Relay mode: a folder where the flags of every scope are written as they change; a relay restarted while its upstream is away starts from them. No secret is written there',
  })),
  REFRESH_INTERVAL: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 10,
    description: 'Relay mode: seconds between polls of an upstream that does not stream (Unleash), and between retries of a stream; tokens are checked with the upstream every min(this, 30) seconds',
  }),
  WEBHOOK_ALLOWED_NETWORKS: Type.String({
    default: '',
    maxLength: 10_000,
    description: 'Comma-separated CIDRs that webhooks may reach although they are loopback, private, link-local or otherwise not public (default: none)',
  }),
})

export type Env = Static<typeof EnvSchema>
