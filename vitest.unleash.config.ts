import { defineConfig } from 'vitest/config'

// npm run test:unleash: side by side with real Unleash 8.2, installed on first use from the npm
// registry into a cache (test/helpers/unleash-install.ts); not part of `npm test`.
export default defineConfig({
  test: {
    include: ['test/unleash/**/*.test.ts'],
    // The PostgreSQL the integration tests use, then the Unleash install.
    globalSetup: ['test/global-setup.ts', 'test/unleash/install.setup.ts'],
    pool: 'forks',
    // Each file runs an Unleash of its own (about 160 MB).
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
})
