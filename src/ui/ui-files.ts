import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { extname, join } from 'node:path'

/** One file of the built UI, held in memory with its compressed copies. */
export interface UiFile {
  body: Buffer
  br?: Buffer
  gzip?: Buffer
  type: string
  etag: string
  /** A hashed name never changes content: browsers may keep it for a year. */
  immutable: boolean
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
}

const HASHED = /-[A-Z0-9]{8}\.[a-z]+$/

/**
 * The built UI (build.mjs writes it to <dist>/web): index.html and assets/, read once at start
 * (a few hundred kB), keyed by URL path. Undefined when there is no build there.
 */
export async function loadUiFiles (dir: string): Promise<Map<string, UiFile> | undefined> {
  if (!existsSync(join(dir, 'index.html'))) return undefined
  const files = new Map<string, UiFile>()
  const add = async (path: string, url: string) => {
    const body = await readFile(path)
    const sibling = async (suffix: string) => (existsSync(path + suffix) ? readFile(path + suffix) : undefined)
    files.set(url, {
      body,
      br: await sibling('.br'),
      gzip: await sibling('.gz'),
      type: TYPES[extname(path)] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      immutable: HASHED.test(path),
    })
  }
  await add(join(dir, 'index.html'), '/index.html')
  const assets = join(dir, 'assets')
  if (existsSync(assets)) {
    for (const name of await readdir(assets)) {
      if (name.endsWith('.br') || name.endsWith('.gz')) continue
      await add(join(assets, name), `/assets/${name}`)
    }
  }
  return files
}
