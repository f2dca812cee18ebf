import { defineConfig } from 'vitest/config'

// npm run test:containers: the image and the compose stack (needs Docker or Podman).
export default defineConfig({
  test: {
    include: ['test/containers/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
})
