import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'

export interface TestPostgres {
  /** Connection string of the maintenance database (`postgres`), as a superuser. */
  url: string
  source: 'TEST_DATABASE_URL' | 'testcontainers' | 'local binaries'
  stop(): Promise<void>
}

const HOW_TO = `Tests need PostgreSQL. Provide one of:
  1. TEST_DATABASE_URL=postgres://user:pass@host:port/postgres (a superuser that may create databases);
  2. a container runtime that Testcontainers can reach (Docker or Podman);
  3. local PostgreSQL server binaries (initdb and postgres), e.g. apt-get install postgresql, found under /usr/lib/postgresql/*/bin or through PG_BIN.`

export interface PostgresOptions {
  /**
   * Keep PostgreSQL's default durability (fsync and synchronous commit on), as in production.
   * Tests switch it off for speed; the benchmark keeps it, so that its figures mean something.
   */
  durable?: boolean
}

/** Finds PostgreSQL in the documented order: TEST_DATABASE_URL, Testcontainers, local binaries. */
export async function findPostgres (options: PostgresOptions = {}): Promise<TestPostgres> {
  const given = process.env.TEST_DATABASE_URL
  if (given) return { url: given, source: 'TEST_DATABASE_URL', stop: async () => {} }

  const container = await startContainer(options).catch((error: Error) => {
    // The runtime answered but could not start PostgreSQL, twice: local binaries, when there are.
    if (!findPostgresBinaries()) throw error
    console.warn(`Testcontainers could not start PostgreSQL (${error.message}): using local binaries`)
    return undefined
  })
  if (container) return container

  const bin = findPostgresBinaries()
  if (bin) {
    const cluster = new LocalCluster(bin, options)
    await cluster.start()
    return { url: cluster.url, source: 'local binaries', stop: () => cluster.destroy() }
  }
  throw new Error(HOW_TO)
}

async function startContainer (options: PostgresOptions): Promise<TestPostgres | undefined> {
  const { getContainerRuntimeClient } = await import('testcontainers')
  try {
    await getContainerRuntimeClient()
  } catch {
    return undefined
  }
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql')
  const container = await twice(() => new PostgreSqlContainer('postgres:17-alpine')
    .withDatabase('postgres')
    .withCommand(['postgres', ...settings(options), '-c', 'max_connections=300'])
    .start())
  return {
    url: container.getConnectionUri(),
    source: 'testcontainers',
    stop: async () => {
      await container.stop()
    },
  }
}

/**
 * Starts a container, and once more if the runtime fails to (Podman has answered a start with
 * "write child: broken pipe" once, the next start working).
 */
async function twice<T> (start: () => Promise<T>): Promise<T> {
  try {
    return await start()
  } catch (error) {
    console.warn(`Testcontainers could not start PostgreSQL (${(error as Error).message}): trying once more`)
    return start()
  }
}

/** Server settings: durability off unless asked for (a throwaway database). */
const settings = (options: PostgresOptions) =>
  options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']

export function findPostgresBinaries (): string | undefined {
  const candidates: string[] = []
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN)
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a))
    candidates.push(...versions.map((v) => join(root, v, 'bin')))
  }
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim())
  } catch {
    // no pg_config on PATH
  }
  return candidates.find(
    (dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres'))
  )
}

export async function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` user. */
function runAs (): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
  return { uid, gid }
}

/**
 * A throwaway cluster from local binaries in a temporary folder, on a free port. Durability
 * is switched off unless asked for: it is thrown away at the end. stop() and start() keep its data, so a test
 * can take the database away and bring it back.
 */
export class LocalCluster {
  readonly dir = mkdtempSync(join(tmpdir(), 'ffapi-pg-'))
  #port = 0
  #process: ChildProcess | undefined
  readonly #user = runAs()

  constructor (
    private readonly bin: string,
    private readonly options: PostgresOptions = {}
  ) {
    if (this.#user) {
      chownSync(this.dir, this.#user.uid, this.#user.gid)
      chmodSync(this.dir, 0o700)
    }
    execFileSync(
      join(bin, 'initdb'),
      ['-D', join(this.dir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'],
      { stdio: 'ignore', ...this.#user }
    )
  }

  get url () {
    return `postgres://postgres@127.0.0.1:${this.#port}/postgres`
  }

  async start (): Promise<void> {
    if (this.#port === 0) this.#port = await freePort()
    const child = spawn(
      join(this.bin, 'postgres'),
      [
        '-D',
        join(this.dir, 'data'),
        '-p',
        String(this.#port),
        '-k',
        this.dir,
        '-c',
        'listen_addresses=127.0.0.1',
        ...settings(this.options),
        '-c',
        'max_connections=300',
      ],
      { stdio: 'ignore', ...this.#user }
    )
    this.#process = child
    await waitForConnection(this.url, 30_000, () => {
      if (child.exitCode !== null) throw new Error(`postgres exited with code ${child.exitCode}`)
    })
  }

  /** Fast shutdown: open connections are cut, as when a database server goes away. */
  async stop (): Promise<void> {
    const child = this.#process
    if (!child || child.exitCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGINT')
    await exited
    this.#process = undefined
  }

  async destroy (): Promise<void> {
    await this.stop()
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/** A PostgreSQL server of a test's own that it may stop and start again, data kept. */
export interface RestartablePostgres {
  url: string
  source: 'container' | 'local binaries'
  stop(): Promise<void>
  start(): Promise<void>
  destroy(): Promise<void>
}

/** Why no PostgreSQL of a test's own can be stopped and started here. */
export const NO_RESTARTABLE_POSTGRES =
  'This test stops and starts a PostgreSQL of its own: it needs a container runtime that Testcontainers can reach (Docker or Podman), or local PostgreSQL server binaries (apt-get install postgresql, or PG_BIN). Neither was found.'

/**
 * A container when a runtime answers (stopped and started through the runtime, on a fixed
 * host port so that the URL stays the same), else a cluster from local binaries; with
 * neither, undefined (the caller skips, saying NO_RESTARTABLE_POSTGRES).
 */
export async function restartablePostgres (): Promise<RestartablePostgres | undefined> {
  const { getContainerRuntimeClient } = await import('testcontainers')
  const runtime = await getContainerRuntimeClient().catch(() => undefined)
  if (runtime) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql')
    const port = await freePort()
    const started = await twice(() => new PostgreSqlContainer('postgres:17-alpine')
      .withDatabase('postgres')
      .withExposedPorts({ container: 5432, host: port })
      // Durable: the runtime may kill it, and an acknowledged commit must survive that.
      .withCommand(['postgres', ...settings({ durable: true })])
      .start())
    const url = started.getConnectionUri()
    const container = runtime.container.getById(started.getId())
    return {
      url,
      source: 'container',
      stop: async () => {
        await container.stop({ t: 5 })
      },
      start: async () => {
        await container.start()
        await waitForConnection(url, 30_000)
      },
      destroy: async () => {
        await started.stop()
      },
    }
  }
  const bin = findPostgresBinaries()
  if (!bin) return undefined
  const cluster = new LocalCluster(bin)
  await cluster.start()
  return {
    url: cluster.url,
    source: 'local binaries',
    stop: () => cluster.stop(),
    start: () => cluster.start(),
    destroy: () => cluster.destroy(),
  }
}

/** Until a connection opens; `alive` throws to give up early (the server process died). */
async function waitForConnection (url: string, timeoutMs: number, alive = () => {}): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    alive()
    const client = new pg.Client({ connectionString: url })
    try {
      await client.connect()
      await client.end()
      return
    } catch (error) {
      await client.end().catch(() => {})
      if (Date.now() > deadline) throw error
      await sleep(100)
    }
  }
}
