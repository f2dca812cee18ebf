// Production build: one bundled ESM file per entry point. Loading ~1000 module files took
// about a second of start-up; a bundle loads in a fraction of that (see bench/README.md).
import { build } from 'esbuild'

await build({
  entryPoints: ['src/server.ts', 'src/migrate.ts'],
  // BUILD_OUTDIR: tests that build in parallel write their own copies (dist/<name>/).
  outdir: process.env.BUILD_OUTDIR ?? 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  // Packages that read files next to their own code stay in node_modules.
  external: ['@electric-sql/pglite', '@fastify/swagger-ui', 'pg-native'],
  // Bundled CommonJS code calls require(); give it one in ESM.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
})
