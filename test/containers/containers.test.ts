/**
 * The project's own container checks (npm run test:containers): the image from the
 * Dockerfile, alone on its embedded database, and the docker-compose stack, with a second
 * instance behind a proxy. Needs Docker or Podman; everything created is removed at the end,
 * after a failure too.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from 'testcontainers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../helpers/postgres.js'

const run = promisify(execFile)
const SECRET = `ct-${randomBytes(8).toString('hex')}`
const IMAGE = `feature-flag-admin-api:containers-test-${randomBytes(3).toString('hex')}`

beforeAll(async () => {
  try {
    await getContainerRuntimeClient()
  } catch (error) {
    throw new Error(`npm run test:containers needs Docker or Podman (DOCKER_HOST): ${String(error)}`)
  }
})

async function api (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: SECRET, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) }
}

async function waitFor (check: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe('the image', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ffapi-image-data-'))
  chmodSync(dataDir, 0o777)
  let container: StartedTestContainer | undefined
  const base = () => `http://${container!.getHost()}:${container!.getMappedPort(4242)}`

  afterAll(async () => {
    await container?.stop().catch(() => {})
    // A container whose start failed is not stopped by Testcontainers: remove whatever runs the image.
    const { stdout } = await run('docker', ['ps', '-aq', '--filter', `ancestor=${IMAGE}`]).catch(() => ({ stdout: '' }))
    for (const id of stdout.split('\n').filter(Boolean)) await run('docker', ['rm', '-f', '-v', id]).catch(() => {})
    await run('docker', ['rmi', '-f', IMAGE]).catch(() => {})
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('builds, runs as a non-root user without dev dependencies, and passes its health check', async () => {
    const image = await GenericContainer.fromDockerfile('.').build(IMAGE, { deleteOnExit: false })
    container = await image
      .withEnvironment({ INIT_ADMIN_API_TOKENS: SECRET })
      .withBindMounts([{ source: dataDir, target: '/app/data' }])
      .withExposedPorts(4242)
      .withWaitStrategy(Wait.forHealthCheck())
      .withStartupTimeout(120_000)
      .start()
    expect((await fetch(`${base()}/ready`)).status).toBe(200)
    expect((await container.exec(['id', '-u'])).output.trim()).toBe('1000')
    const devDeps = await container.exec(['sh', '-c', 'ls node_modules | grep -cE "^(vitest|typescript|esbuild)$" || true'])
    expect(devDeps.output.trim()).toBe('0')
  }, 600_000)

  it('keeps its data on the volume across a restart', async () => {
    expect((await api(base(), 'POST', '/api/admin/projects/default/features', { name: 'survives' })).status).toBe(201)
    const patched = await api(base(), 'PATCH', '/api/admin/projects/default/features/survives/environments/production/variants', [
      { op: 'add', path: '/-', value: { name: 'a', weight: 0 } },
    ])
    expect(patched.status).toBe(200)
    await container!.restart({ timeout: 10_000 })
    await waitFor(async () => (await fetch(`${base()}/ready`)).ok, 60_000, 'the restarted container')
    const read = await api(base(), 'GET', '/api/admin/projects/default/features/survives/environments/production/variants')
    expect(read.body.variants).toEqual([expect.objectContaining({ name: 'a', weight: 1000 })])
  }, 120_000)

  it('stops cleanly on docker stop: exit code 0', async () => {
    const id = container!.getId()
    await container!.stop({ remove: false, timeout: 10_000 })
    container = undefined
    const runtime = await getContainerRuntimeClient()
    const handle = runtime.container.getById(id)
    const state = (await handle.inspect()).State
    await handle.remove({ force: true }).catch(() => {})
    expect(state.ExitCode).toBe(0)
  }, 60_000)
})

describe('the docker-compose stack', () => {
  const project = `ffapi-ct-${randomBytes(3).toString('hex')}`
  let apiPort = 0
  let proxyPort = 0
  const compose = (args: string[], env: Record<string, string> = {}) =>
    run('docker-compose', ['-p', project, '--profile', 'scale', ...args], {
      env: { ...process.env, API_PORT: String(apiPort), PROXY_PORT: String(proxyPort), ...env },
      maxBuffer: 64 * 1024 * 1024,
    })

  beforeAll(async () => {
    apiPort = await freePort()
    proxyPort = await freePort()
  })

  afterAll(async () => {
    const down = await compose(['down', '-v', '--rmi', 'local', '--remove-orphans']).catch((error) => error)
    if (down instanceof Error) console.error(`compose down failed: ${down.message}`)
    // The Dockerfile's build stages, left as untagged images by both builds.
    await run('docker', ['image', 'prune', '-f', '--filter', 'label=io.feature-flag-admin-api.stage=intermediate']).catch(() => {})
  }, 300_000)

  it('comes up with both instances and the proxy healthy', async () => {
    await compose(['up', '-d', '--build'], { ADMIN_API_TOKEN: SECRET })
    await waitFor(async () => (await fetch(`http://127.0.0.1:${proxyPort}/ready`)).ok, 120_000, 'the proxy')
    await waitFor(async () => (await fetch(`http://127.0.0.1:${apiPort}/ready`)).ok, 60_000, 'the api')
  }, 900_000)

  it('serves a whole flow, and still has it after the api service restarts', async () => {
    const base = `http://127.0.0.1:${apiPort}`
    expect((await api(base, 'POST', '/api/admin/projects/default/features', { name: 'compose-flow' })).status).toBe(201)
    const url = '/api/admin/projects/default/features/compose-flow/environments/development/variants'
    const patched = await api(base, 'PATCH', url, [{ op: 'add', path: '/-', value: { name: 'blue', weight: 0 } }])
    expect(patched.status).toBe(200)
    const completed = await api(base, 'POST', '/api/admin/projects/default/features/compose-flow/lifecycle/complete', { status: 'kept', statusValue: 'blue' })
    expect(completed.status).toBe(200)
    await compose(['restart', 'api'])
    await waitFor(async () => (await fetch(`${base}/ready`)).ok, 60_000, 'the restarted api')
    const feature = await api(base, 'GET', '/api/admin/projects/default/features/compose-flow')
    expect(feature.body.lifecycle).toMatchObject({ stage: 'completed', status: 'kept', statusValue: 'blue' })
    expect(feature.body.environments.find((e: { name: string }) => e.name === 'development').variants).toEqual([
      expect.objectContaining({ name: 'blue', weight: 1000 }),
    ])
  }, 180_000)

  it('two instances behind one port: concurrent PATCHes through both, none lost', async () => {
    const base = `http://127.0.0.1:${proxyPort}`
    expect((await api(base, 'POST', '/api/admin/projects/default/features', { name: 'two-writers' })).status).toBe(201)
    const url = '/api/admin/projects/default/features/two-writers/environments/development/variants'
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => api(base, 'PATCH', url, [{ op: 'add', path: '/-', value: { name: `w${i}`, weight: 0 } }]))
    )
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200))
    expect(new Set(results.map((r) => r.headers.get('x-upstream')))).toEqual(new Set(['api', 'api-2']))
    const stored = await api(base, 'GET', url)
    expect(stored.body.variants).toHaveLength(40)
    expect(stored.body.variants.reduce((sum: number, v: { weight: number }) => sum + v.weight, 0)).toBe(1000)
  }, 120_000)

  it('ps and logs work without ADMIN_API_TOKEN', async () => {
    const env = { ...process.env }
    delete env.ADMIN_API_TOKEN
    const ps = await run('docker-compose', ['-p', project, 'ps'], { env })
    expect(ps.stdout).toContain('api')
    const logs = await run('docker-compose', ['-p', project, 'logs', '--tail', '5', 'api'], { env, maxBuffer: 16 * 1024 * 1024 })
    expect(logs.stdout.length).toBeGreaterThan(0)
  }, 60_000)
})
