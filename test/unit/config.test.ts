import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.js'

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      databaseUrl: undefined,
      databasePoolSize: 20,
      databaseConnectTimeoutMs: 3000,
      databaseQueueLimit: 1000,
      databaseQueueTimeoutMs: 10000,
      port: 4242,
      host: '127.0.0.1',
      logLevel: 'info',
      initAdminApiTokens: [],
      dataDir: './data',
      bodyLimit: 1048576,
      importBodyLimit: 33554432,
      startupImport: undefined,
      maxPatchOperations: 1000,
      maxVariants: 1000,
      maxVariantsBytes: 1048576 + 64 * 1000,
      strategyLimits: { maxStrategies: 30, maxConstraints: 30, maxConstraintValues: 250, maxValueLength: 100, maxRegexLength: 1000, maxSegments: 5, maxVariants: 1000 },
      maxSegmentValues: 1000,
      frontendAllowedOrigins: undefined,
      frontendMaxEngines: 100,
      trustProxy: false,
      requestTimeoutMs: 30000,
      connectionTimeoutMs: 120000,
      metricsEnabled: true,
      tokenCacheMs: 1000,
      clientStateCacheMs: 1000,
      streaming: { maxConnections: 10_000, maxConnectionsPerToken: 5000, keepAliveMs: 15_000, maxBufferBytes: 1024 * 1024, replayLimit: 1000 },
      clientUsageRate: 1000,
      clientMaxApplications: 50,
      clientMaxInstances: 1000,
      usageRetentionDays: 30,
      usageFlushMs: 5000,
      usageMaxPending: 100000,
      shutdownDelayMs: 500,
      initialAdmin: undefined,
      sessions: { idleMs: 8 * 3_600_000, maxAgeMs: 48 * 3_600_000 },
      loginLimits: { perAccount: 10, perAddress: 100, windowMs: 900_000 },
      passwordHashCost: 17,
      userInactivityDays: 180,
      publicUrl: undefined,
      oidc: {},
      changeRequestPollMs: 1000,
      webhooks: {
        pollMs: 1000,
        leaseMs: 60000,
        timeoutMs: 5000,
        retryBaseMs: 1000,
        maxAttempts: 12,
        retentionDays: 7,
        secretOverlapMs: 86400000,
        allowedNetworks: [],
      },
    })
  })

  it('reads values and splits INIT_ADMIN_API_TOKENS on commas', () => {
    const c = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgresql://u:p@db:5432/flags',
      INIT_ADMIN_API_TOKENS: ' one, two ,,',
      METRICS_ENABLED: 'false',
    })
    expect(c).toMatchObject({
      port: 8080,
      databaseUrl: 'postgresql://u:p@db:5432/flags',
      initAdminApiTokens: ['one', 'two'],
      metricsEnabled: false,
    })
  })

  it.each([
    [{ PORT: 'abc' }, /^Invalid configuration: PORT="abc" is invalid/],
    [{ PORT: '70000' }, /PORT="70000"/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL="mysql:\/\/x"/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL="loud"/],
    [{ BODY_LIMIT: '0' }, /BODY_LIMIT="0"/],
    [{ WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8, localhost' }, /WEBHOOK_ALLOWED_NETWORKS="10.0.0.0\/8, localhost" is invalid \(not a CIDR such as 10.0.0.0\/8: localhost\)/],
    [{ WEBHOOK_LEASE_MS: '5000' }, /WEBHOOK_LEASE_MS=5000 is invalid \(must exceed WEBHOOK_TIMEOUT_MS=5000/],
    [{ WEBHOOK_MAX_ATTEMPTS: '0' }, /WEBHOOK_MAX_ATTEMPTS="0"/],
    [{ UNLEASH_DEFAULT_ADMIN_USERNAME: 'root' }, /set both or neither/],
    [{ INIT_ADMIN_PASSWORD: 'a-long-password-1' }, /set both or neither/],
    [{ UNLEASH_DEFAULT_ADMIN_USERNAME: 'root', INIT_ADMIN_USERNAME: 'admin', INIT_ADMIN_PASSWORD: 'x' }, /UNLEASH_DEFAULT_ADMIN_USERNAME and INIT_ADMIN_USERNAME are both set and differ/],
    [{ SESSION_IDLE_TIMEOUT_MS: '100000', SESSION_MAX_AGE_MS: '50000' }, /SESSION_IDLE_TIMEOUT_MS=100000 is invalid \(must not exceed SESSION_MAX_AGE_MS=50000\)/],
    [{ PASSWORD_HASH_COST: '11' }, /PASSWORD_HASH_COST="11"/],
    [{ LOGIN_MAX_FAILURES_PER_ACCOUNT: '0' }, /LOGIN_MAX_FAILURES_PER_ACCOUNT="0"/],
    [{ UNLEASH_URL: 'ftp://flags.example.com' }, /UNLEASH_URL="ftp:\/\/flags.example.com" is invalid/],
    [{ UNLEASH_URL: 'https://flags.example.com/?a=1' }, /UNLEASH_URL=/],
    [{ OIDC_ENABLED: 'yes' }, /OIDC_ENABLED="yes" is invalid/],
    [{ OIDC_DEFAULT_ROOT_ROLE: 'Owner' }, /OIDC_DEFAULT_ROOT_ROLE="Owner" is invalid/],
    [{ OIDC_ID_TOKEN_SIGNING_ALGORITHM: 'HS256' }, /OIDC_ID_TOKEN_SIGNING_ALGORITHM="HS256" is invalid/],
    [{ OIDC_ID_TOKEN_SIGNING_ALGORITHM: 'none' }, /OIDC_ID_TOKEN_SIGNING_ALGORITHM="none" is invalid/],
    [{ OIDC_DISCOVER_URL: 'idp.example.com' }, /OIDC_DISCOVER_URL="idp.example.com" is invalid/],
  ])('refuses %j with one clear line', (env, message) => {
    expect(() => loadConfig(env)).toThrowError(ConfigError)
    expect(() => loadConfig(env)).toThrowError(message)
    try {
      loadConfig(env)
    } catch (error) {
      expect((error as Error).message).not.toContain('\n')
    }
  })

  it('reads the first admin from Unleash\'s variable names or ours', () => {
    const login = { username: 'root', password: 'a-long-password-1' }
    expect(loadConfig({ UNLEASH_DEFAULT_ADMIN_USERNAME: 'root', UNLEASH_DEFAULT_ADMIN_PASSWORD: 'a-long-password-1' }).initialAdmin).toEqual(login)
    expect(loadConfig({ INIT_ADMIN_USERNAME: 'root', INIT_ADMIN_PASSWORD: 'a-long-password-1' }).initialAdmin).toEqual(login)
    expect(loadConfig({ UNLEASH_DEFAULT_ADMIN_USERNAME: 'root', INIT_ADMIN_USERNAME: 'root', INIT_ADMIN_PASSWORD: 'a-long-password-1' }).initialAdmin).toEqual(login)
  })

  it('never prints the first admin\'s password in a configuration error', () => {
    let message = ''
    try {
      loadConfig({ UNLEASH_DEFAULT_ADMIN_PASSWORD: 'hunter2-secret', INIT_ADMIN_PASSWORD: 'other-secret', UNLEASH_DEFAULT_ADMIN_USERNAME: 'a' })
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toContain('UNLEASH_DEFAULT_ADMIN_PASSWORD and INIT_ADMIN_PASSWORD are both set and differ')
    expect(message).not.toContain('hunter2-secret')
    expect(message).not.toContain('other-secret')
  })

  it('reads UNLEASH_URL without its trailing slash', () => {
    expect(loadConfig({ UNLEASH_URL: 'https://flags.example.com/' }).publicUrl).toBe('https://flags.example.com')
    expect(loadConfig({ UNLEASH_URL: 'http://10.0.0.5:4242/flags' }).publicUrl).toBe('http://10.0.0.5:4242/flags')
  })

  it('reads the OIDC_* variables as the settings they fix, and only those set', () => {
    expect(loadConfig({
      OIDC_ENABLED: 'true',
      OIDC_DISCOVER_URL: 'https://idp.example.com/.well-known/openid-configuration',
      OIDC_CLIENT_ID: 'flags',
      OIDC_CLIENT_SECRET: 's3cret',
      OIDC_AUTO_CREATE: 'false',
      OIDC_DEFAULT_ROOT_ROLE: 'Editor',
      OIDC_EMAIL_DOMAINS: 'example.com',
      OIDC_ENABLE_PKCE: 'true',
      OIDC_ENABLE_SINGLE_SIGN_OUT: 'true',
      OIDC_ENABLE_GROUP_SYNCING: 'true',
      OIDC_GROUP_JSON_PATH: '$.groups',
      OIDC_ADD_GROUPS_SCOPE: 'true',
      OIDC_ID_TOKEN_SIGNING_ALGORITHM: 'ES256',
      OIDC_ACR_VALUES: 'phr',
    }).oidc).toEqual({
      enabled: true,
      discoverUrl: 'https://idp.example.com/.well-known/openid-configuration',
      clientId: 'flags',
      secret: 's3cret',
      autoCreate: false,
      defaultRootRole: 'Editor',
      emailDomains: 'example.com',
      enablePkce: true,
      enableSingleSignOut: true,
      enableGroupSyncing: true,
      groupJsonPath: '$.groups',
      addGroupsScope: true,
      idTokenSigningAlgorithm: 'ES256',
      acrValues: 'phr',
    })
    expect(loadConfig({ OIDC_CLIENT_ID: 'flags' }).oidc).toEqual({ clientId: 'flags' })
  })

  it('never prints the OIDC client secret in a configuration error', () => {
    let message = ''
    try {
      loadConfig({ OIDC_CLIENT_SECRET: 'x'.repeat(10_001) + 'tail-secret' })
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toContain('OIDC_CLIENT_SECRET=(hidden) is invalid')
    expect(message).not.toContain('tail-secret')
  })

  it('reads the webhook allowed networks as normalised CIDRs', () => {
    expect(loadConfig({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8, ::1/128' }).webhooks.allowedNetworks).toEqual(['127.0.0.0/8', '::1/128'])
  })

  it('derives the variants byte limit so that any document a request can carry is storable, and refuses a smaller one', () => {
    expect(loadConfig({ BODY_LIMIT: '2000', MAX_VARIANTS: '10' }).maxVariantsBytes).toBe(2000 + 640)
    expect(loadConfig({ BODY_LIMIT: '2000', MAX_VARIANTS: '10', MAX_VARIANTS_BYTES: '5000' }).maxVariantsBytes).toBe(5000)
    expect(() => loadConfig({ MAX_VARIANTS_BYTES: '1048576' })).toThrowError(
      /MAX_VARIANTS_BYTES=1048576 is invalid \(must be at least BODY_LIMIT \+ 64 × MAX_VARIANTS = 1112576/
    )
  })

  it('reads a number only when it is written as one: "1e3", "20.5", "0x10", " 20" and "-1" are refused, naming each', () => {
    expect(loadConfig({ DATABASE_POOL_SIZE: '020' }).databasePoolSize).toBe(20)
    for (const value of ['1e3', '20.5', '0x10', ' 20', '-1', '20abc']) {
      expect(() => loadConfig({ DATABASE_POOL_SIZE: value }), value).toThrowError(
        `DATABASE_POOL_SIZE=${JSON.stringify(value)} is invalid (must be a whole number in decimal digits)`
      )
    }
    expect(() => loadConfig({ PORT: '80.5', BODY_LIMIT: '1e6' })).toThrowError(/PORT="80.5" is invalid.*BODY_LIMIT="1e6" is invalid|BODY_LIMIT="1e6" is invalid.*PORT="80.5" is invalid/)
  })

  it('never prints a password or a secret in a configuration error', () => {
    let message = ''
    try {
      loadConfig({ DATABASE_URL: 'mysql://app:s3cret-pw@db/flags', PORT: 'x' })
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/DATABASE_URL="mysql:\/\/app:\*\*\*@db\/flags" is invalid/)
    expect(message).not.toContain('s3cret-pw')
  })
})
