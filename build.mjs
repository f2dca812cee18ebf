// Production build: one bundled ESM file per entry point. Loading ~1000 module files took
// about a second of start-up; a bundle loads in a fraction of that (see bench/README.md).
// Then the admin UI (web/): bundled for browsers into <outdir>/web, hashed file names,
// compressed copies beside them, and its size checked against the budget.
import { createHash } from 'node:crypto'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { build } from 'esbuild'

// BUILD_OUTDIR: tests that build in parallel write their own copies (dist/<name>/).
const outdir = process.env.BUILD_OUTDIR ?? 'dist'
// BUILD_ONLY=web: the UI alone (the browser tests serve it from the app they build in-process).
const only = process.env.BUILD_ONLY

if (only !== 'web') {
  await build({
    entryPoints: ['src/server.ts', 'src/migrate.ts'],
    outdir,
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
  // esbuild escapes every non-ASCII character of the code (charset ascii, its default) but not
  // of the comments it keeps from dependencies. One such character makes V8 hold the whole
  // source (kept for lazy compilation) as two bytes per character: 10 MB instead of 5 in every
  // process, the relay's included. Each is replaced by '?' (one per UTF-16 unit, so that the
  // source map's columns still hold).
  for (const file of ['server.js', 'migrate.js']) {
    const path = join(outdir, file)
    const source = await readFile(path, 'utf8')
    if (/[\u0080-\uffff]/.test(source)) await writeFile(path, source.replace(/[\u0080-\uffff]/g, '?'))
  }
}

/** The UI's own code and styles, gzipped, may not exceed this (the budget). */
const UI_BUDGET_BYTES = 250 * 1000

async function buildUi (out = join(outdir, 'web')) {
  await rm(out, { recursive: true, force: true })
  const assets = join(out, 'assets')
  const result = await build({
    entryPoints: { app: 'web/main.tsx' },
    outdir: assets,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: ['chrome115', 'firefox115', 'safari16'],
    minify: true,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    loader: { '.svg': 'file' },
    metafile: true,
    legalComments: 'linked',
    logLevel: 'warning',
  })
  const outputs = Object.keys(result.metafile.outputs).map((file) => file.replaceAll('\\', '/'))
  const href = (suffix) => {
    const file = outputs.find((f) => f.endsWith(suffix) && basename(f).startsWith('app-'))
    if (!file) throw new Error(`UI build: no app-*${suffix} in the output`)
    return `/assets/${basename(file)}`
  }
  const icon = await readFile('web/icon.svg')
  const iconName = `icon-${createHash('sha256').update(icon).digest('hex').slice(0, 8).toUpperCase()}.svg`
  await writeFile(join(assets, iconName), icon)
  // The page has no inline script or style: the Content-Security-Policy allows only 'self'.
  const html = (await readFile('web/index.html', 'utf8'))
    .replace('%STYLE%', href('.css'))
    .replace('%SCRIPT%', href('.js'))
    .replace('%ICON%', `/assets/${iconName}`)
  await writeFile(join(out, 'index.html'), html)

  let gzipped = 0
  const files = [...outputs.filter((f) => !f.endsWith('.map')), join(assets, iconName), join(out, 'index.html')]
  for (const file of files) {
    const body = await readFile(file)
    const gz = gzipSync(body, { level: 9 })
    if (/\.(js|css)$/.test(file) && !file.endsWith('.LEGAL.txt')) gzipped += gz.length
    await writeFile(`${file}.gz`, gz)
    await writeFile(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }))
  }
  const kB = (n) => `${(n / 1000).toFixed(1)} kB`
  console.log(`UI: ${kB(gzipped)} gzipped (code and styles; budget ${kB(UI_BUDGET_BYTES)}) in ${out}`)
  if (gzipped > UI_BUDGET_BYTES) throw new Error(`UI build: ${kB(gzipped)} gzipped is over the ${kB(UI_BUDGET_BYTES)} budget`)
}

await mkdir(outdir, { recursive: true })
await buildUi()
