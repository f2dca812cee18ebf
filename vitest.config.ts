import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    pool: 'forks',
    // Integration files each hold a database of their own; CI machines have 2 cores.
    maxWorkers: 2,
    projects: [
      {
        // Pure rules: no database, no server.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        // The real app on a real PostgreSQL, found once for the run by the global setup.
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The admin UI in a real browser (Debian's Chromium) against the real app, listening.
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts', 'test/e2e/build-ui.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
})
