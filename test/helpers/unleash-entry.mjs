// Runs Unleash (unleash-server from the cache, on its Node 22) for test/helpers/unleash.ts.
// Reads UNLEASH_INSTALL_DIR, DATABASE_URL and HTTP_PORT; Unleash reads its other settings from
// the environment (INIT_ADMIN_API_TOKENS, UNLEASH_DEFAULT_ADMIN_USERNAME/PASSWORD, LOG_LEVEL, …).
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const env = process.env
const installed = createRequire(join(env.UNLEASH_INSTALL_DIR, 'package.json'))
const { start } = await import(pathToFileURL(installed.resolve('unleash-server')).href)

// Load tests would meet Unleash's rate limits (429) long before its capacity.
const unlimited = 1_000_000
// Started by a test or the bench: when that process goes away, so does this one.
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()

await start({
  databaseUrl: env.DATABASE_URL,
  server: { host: '127.0.0.1', port: Number(env.HTTP_PORT), enableRequestLogger: false },
  rateLimiting: {
    createUserMaxPerMinute: unlimited,
    simpleLoginMaxPerMinute: unlimited,
    authenticationMaxPerMinute: unlimited,
    passwordResetMaxPerMinute: unlimited,
    callSignalEndpointMaxPerSecond: unlimited,
    tokenAuthenticationMaxPerMinute: unlimited,
    sdkApiMaxPerMinute: unlimited,
    searchFeaturesMaxPerMinute: unlimited,
  },
  metricsRateLimiting: {
    clientMetricsMaxPerMinute: unlimited,
    clientRegisterMaxPerMinute: unlimited,
    frontendRegisterMaxPerMinute: unlimited,
    frontendMetricsMaxPerMinute: unlimited,
  },
  // Environment variants (PUT/PATCH …/environments/{env}/variants), as this project serves them.
  experimental: { flags: { enableLegacyVariants: true } },
  // The frontend API answers browsers from any origin, as ours does by default.
  frontendApiOrigins: ['*'],
  // Several helpers may log in as the admin; Unleash keeps 5 sessions per user by default.
  session: { maxParallelSessions: 100 },
  // Nothing leaves the machine.
  versionCheck: { enable: false },
})
