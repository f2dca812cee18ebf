import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { TokenType } from '../access/scope.js'
import type { ClientFeature, ClientSegment } from '../client/client.schemas.js'
import { normalizeFeature, normalizeSegment } from './normalize.js'
import type { Origin, ScopeState } from './scope.js'

/** A token the upstream said was valid, as the backup keeps it: its secret's SHA-256, never the secret. */
export interface BackedToken {
  hash: string
  type: TokenType
  environment: string
  projects: string[]
}

/** A scope's state as the backup keeps it. */
export interface BackedScope {
  environment: string
  projects: string[]
  revision: string
  origin: Origin
  /** The upstream the state came from: a revision of a stream is only sent back to the same one. */
  upstream: string
  upstreamEtag?: string | undefined
  savedAt: string
  features: ClientFeature[]
  segments: ClientSegment[]
}

export const secretHash = (secret: string) => createHash('sha256').update(secret).digest('hex')

const TOKENS_FILE = 'relay-tokens.json'
const scopeFile = (key: string) => `relay-scope-${createHash('sha256').update(key).digest('hex').slice(0, 24)}.json`

/**
 * BACKUP_FOLDER: the state of every scope, each in its own file, written (to a temporary file,
 * then renamed, so a file is always whole) shortly after it changes, and the tokens the
 * upstream said were valid, by their secrets' SHA-256 (so that a relay restarted while its
 * upstream is away knows them; no secret is written). Read once, at start. Files are readable
 * by their owner only. Several relays may share a folder: the last write wins.
 */
export class Backup {
  readonly #pending = new Map<string, () => unknown>()
  #timer: NodeJS.Timeout | undefined
  #writing: Promise<void> = Promise.resolve()

  constructor (
    private readonly folder: string,
    private readonly log: { warn(obj: object, msg: string): void },
    private readonly delayMs = 200
  ) {}

  /** What the folder holds; nothing when it is empty, missing or unreadable (a warning says why). */
  async load (): Promise<{ tokens: BackedToken[]; scopes: BackedScope[] }> {
    let names: string[]
    try {
      names = await readdir(this.folder)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn({ err, folder: this.folder }, 'relay: BACKUP_FOLDER cannot be read; starting without it')
      return { tokens: [], scopes: [] }
    }
    const read = async (name: string): Promise<unknown> => {
      try {
        return JSON.parse(await readFile(join(this.folder, name), 'utf8'))
      } catch (err) {
        this.log.warn({ err, file: name }, 'relay: a backup file cannot be read; left out')
        return undefined
      }
    }
    const tokens = names.includes(TOKENS_FILE) ? ((await read(TOKENS_FILE)) as BackedToken[] | undefined) ?? [] : []
    const scopes: BackedScope[] = []
    for (const name of names.filter((n) => /^relay-scope-[0-9a-f]+\.json$/.test(n))) {
      const scope = await read(name) as BackedScope | undefined
      if (scope === undefined) continue
      try {
        scopes.push({ ...scope, features: scope.features.map(normalizeFeature), segments: scope.segments.map(normalizeSegment) })
      } catch (err) {
        this.log.warn({ err, file: name }, 'relay: a backup file does not hold a scope; left out')
      }
    }
    return { tokens: Array.isArray(tokens) ? tokens : [], scopes }
  }

  saveTokens (tokens: BackedToken[]): void {
    this.#queue(TOKENS_FILE, () => tokens)
  }

  /** Writes the scope's state soon (the state at that moment). */
  saveScope (scope: ScopeState, upstream: string): void {
    this.#queue(scopeFile(scope.key), () => {
      const { features, segments } = scope.snapshot()
      const backed: BackedScope = {
        environment: scope.environment,
        projects: scope.projects === undefined ? ['*'] : [...scope.projects],
        revision: scope.revision.toString(),
        origin: scope.origin,
        upstream,
        upstreamEtag: scope.upstreamEtag,
        savedAt: new Date().toISOString(),
        features,
        segments,
      }
      return backed
    })
  }

  removeScope (key: string): void {
    this.#queue(scopeFile(key), () => undefined)
  }

  #queue (file: string, content: () => unknown) {
    this.#pending.set(file, content)
    this.#timer ??= setTimeout(() => { this.#timer = undefined; this.#flush() }, this.delayMs)
  }

  #flush (): Promise<void> {
    const work = [...this.#pending]
    this.#pending.clear()
    this.#writing = this.#writing.then(async () => {
      try {
        await mkdir(this.folder, { recursive: true, mode: 0o700 })
        for (const [file, content] of work) {
          const value = content()
          const path = join(this.folder, file)
          if (value === undefined) {
            await rm(path, { force: true })
            continue
          }
          const temporary = `${path}.${process.pid}.tmp`
          await writeFile(temporary, JSON.stringify(value), { mode: 0o600 })
          await rename(temporary, path)
        }
      } catch (err) {
        this.log.warn({ err, folder: this.folder }, 'relay: writing BACKUP_FOLDER failed; the next change writes again')
      }
    })
    return this.#writing
  }

  /** Writes what is queued now (the relay stops). */
  async close (): Promise<void> {
    clearTimeout(this.#timer)
    this.#timer = undefined
    await this.#flush()
  }
}
