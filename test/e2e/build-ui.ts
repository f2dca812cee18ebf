import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { promisify } from 'node:util'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The admin UI built for this run (build.mjs, BUILD_ONLY=web). */
    uiDir: string
  }
}

/** Builds the UI once for the run, as `npm start` does, into a folder of its own. */
export default async function setup (project: TestProject) {
  const outdir = resolve('dist/e2e')
  const { stdout } = await promisify(execFile)(process.execPath, ['build.mjs'], { env: { ...process.env, BUILD_OUTDIR: outdir, BUILD_ONLY: 'web' } })
  console.log(stdout.trim())
  project.provide('uiDir', resolve(outdir, 'web'))
}
