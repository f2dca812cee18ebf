/**
 * The project's own container checks (npm run test:containers): the image from the
 * Dockerfile, alone on its embedded database, and the docker-compose stack, with a second
 * instance behind HAProxy (haproxy/haproxy.cfg) and, in the relay profile, two relays in front
 * of HAProxy. Needs Docker or Podman; everything created is
 * removed at the end, after a failure too.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from 'testcontainers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../helpers/postgres.js'
import { openSse, type SseStream } from '../helpers/sse.js'

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

// The image built by the first test is the one the compose stack runs (API_IMAGE): one build of
// the Dockerfile per run, not three (one npm ci less, on a registry that can be slow).
afterAll(async () => {
  await run('docker', ['rmi', '-f', IMAGE]).catch(() => {})
}, 60_000)

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
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('builds, runs as a non-root user without dev dependencies, and passes its health check', async () => {
    const image = await GenericContainer.fromDockerfile('.').build(IMAGE, { deleteOnExit: false })
    container = await image
      .withEnvironment({ INIT_ADMIN_API_TOKENS: SECRET })
      .withBindMounts([{ source: dataDir, target: '/app/data' }])
      .withExposedPorts(4242)
      .withWaitStrategy(Wait.forHealthCheck())
      .withStartupTimeout(240_000)
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
      env: { ...process.env, API_IMAGE: IMAGE, API_PORT: String(apiPort), PROXY_PORT: String(proxyPort), ...env },
      maxBuffer: 64 * 1024 * 1024,
    })

  beforeAll(async () => {
    apiPort = await freePort()
    proxyPort = await freePort()
  })

  afterAll(async () => {
    // The relay profile too: its containers and volumes, after a failure of its test.
    const down = await compose(['--profile', 'relay', 'down', '-v', '--rmi', 'local', '--remove-orphans']).catch((error) => error)
    if (down instanceof Error) console.error(`compose down failed: ${down.message}`)
    // The Dockerfile's build stages, left as untagged images by both builds.
    await run('docker', ['image', 'prune', '-f', '--filter', 'label=io.feature-flag-admin-api.stage=intermediate']).catch(() => {})
  }, 300_000)

  /** Until HAProxy has sent a request to every one of `names` (its health checks passed). */
  async function waitForUpstreams (names: string[], timeoutMs: number) {
    const seen = new Set<string>()
    await waitFor(async () => {
      const res = await fetch(`http://127.0.0.1:${proxyPort}/ready`)
      if (res.ok) seen.add(res.headers.get('x-upstream') ?? '')
      return names.every((name) => seen.has(name))
    }, timeoutMs, `HAProxy to route to ${names.join(' and ')}`)
  }

  it('comes up with both instances healthy behind HAProxy', async () => {
    // The image the first test built (API_IMAGE) exists, so compose does not build it again.
    await compose(['up', '-d', '--no-build'], { ADMIN_API_TOKEN: SECRET })
    await waitFor(async () => (await fetch(`http://127.0.0.1:${apiPort}/ready`)).ok, 120_000, 'the api')
    await waitForUpstreams(['api', 'api-2'], 60_000)
  }, 300_000)

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

  it('two instances behind HAProxy: concurrent PATCHes through both, none lost', async () => {
    const base = `http://127.0.0.1:${proxyPort}`
    expect((await api(base, 'POST', '/api/admin/projects/default/features', { name: 'two-writers' })).status).toBe(201)
    const url = '/api/admin/projects/default/features/two-writers/environments/development/variants'
    await waitForUpstreams(['api', 'api-2'], 30_000) // api, restarted above, is back in HAProxy
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => api(base, 'PATCH', url, [{ op: 'add', path: '/-', value: { name: `w${i}`, weight: 0 } }]))
    )
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200))
    expect(new Set(results.map((r) => r.headers.get('x-upstream')))).toEqual(new Set(['api', 'api-2']))
    const stored = await api(base, 'GET', url)
    expect(stored.body.variants).toHaveLength(40)
    expect(stored.body.variants.reduce((sum: number, v: { weight: number }) => sum + v.weight, 0)).toBe(1000)
  }, 120_000)

  it('streams a change made through one instance to SDKs streaming from both, behind HAProxy', async () => {
    const base = `http://127.0.0.1:${proxyPort}`
    expect((await api(base, 'POST', '/api/admin/projects/default/features', { name: 'streamed-switch' })).status).toBe(201)
    const token = await api(base, 'POST', '/api/admin/api-tokens', { tokenName: 'compose-streams', type: 'client', environment: 'development' })
    expect(token.status).toBe(201)
    await waitForUpstreams(['api', 'api-2'], 30_000)
    // Streams opened until both instances hold some (HAProxy balances them round robin).
    const streams: SseStream[] = []
    try {
      while (streams.length < 20 && new Set(streams.map((s) => s.headers['x-upstream'])).size < 2) {
        const stream = await openSse(`${base}/api/client/streaming`, { authorization: token.body.secret })
        streams.push(stream)
        expect(stream.status).toBe(200)
        const connected = await stream.next(10_000)
        expect(connected.event).toBe('unleash-connected')
        expect(connected.json.events[0].features.map((f: { name: string }) => f.name)).toContain('streamed-switch')
      }
      expect(new Set(streams.map((s) => s.headers['x-upstream']))).toEqual(new Set(['api', 'api-2']))
      const switched = await api(base, 'POST', '/api/admin/projects/default/features/streamed-switch/environments/development/on')
      expect(switched.status).toBe(200)
      for (const stream of streams) {
        const updated = await stream.next(10_000)
        expect(updated.event).toBe('unleash-updated')
        expect(updated.json.events).toContainEqual(
          expect.objectContaining({ type: 'feature-updated', feature: expect.objectContaining({ name: 'streamed-switch', enabled: true }) })
        )
      }
    } finally {
      for (const stream of streams) stream.close()
    }
  }, 120_000)

  it('stopping one instance under load fails no request: HAProxy drains it on /ready', async () => {
    const base = `http://127.0.0.1:${proxyPort}`
    expect((await api(base, 'POST', '/api/admin/projects/default/features', { name: 'under-load' })).status).toBe(201)
    const url = '/api/admin/projects/default/features/under-load/environments/development/variants'
    await waitForUpstreams(['api', 'api-2'], 30_000)

    const started = Date.now()
    const failures: string[] = []
    const answeredBy: Record<string, number> = {}
    let patches = 0
    let patched = 0
    let patchedDuringStop = 0
    let patchedAfterStop = 0
    let reads = 0
    let stopping = false
    let stoppedAt: number | undefined
    // Until 1.5 s after api-2 has exited; MAX_VARIANTS is 1000, so at most 950 PATCHes.
    const loadGoesOn = () => (stoppedAt === undefined || Date.now() < stoppedAt + 1500) && patches < 950
    // One request; anything but a 2xx (a 502/503 from HAProxy, a connection error) is a failure.
    const attempt = async (method: string, body?: unknown) => {
      try {
        const res = await fetch(`${base}${url}`, {
          method,
          headers: { authorization: SECRET, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
        const text = await res.text()
        const upstream = res.headers.get('x-upstream') ?? '(none)'
        answeredBy[upstream] = (answeredBy[upstream] ?? 0) + 1
        if (res.status >= 200 && res.status < 300) return true
        failures.push(`${method} at ${Date.now() - started} ms: ${res.status} from ${upstream}: ${text.slice(0, 200)}`)
      } catch (error) {
        failures.push(`${method} at ${Date.now() - started} ms: ${String((error as Error).cause ?? error)}`)
      }
      return false
    }
    // Paced, so that the PATCHes go on until after api-2 has exited within that budget.
    const paced = async (intervalMs: number, send: () => Promise<void>) => {
      while (loadGoesOn()) {
        const next = Date.now() + intervalMs
        await send()
        await sleep(next - Date.now())
      }
    }
    const writer = (w: number) => {
      let i = 0
      return paced(60, async () => {
        patches++
        const sentDuringStop = stopping
        if (!await attempt('PATCH', [{ op: 'add', path: '/-', value: { name: `l${w}-${i++}`, weight: 0 } }])) return
        patched++
        if (stoppedAt !== undefined) patchedAfterStop++
        else if (sentDuringStop) patchedDuringStop++
      })
    }
    const reader = () => paced(20, async () => {
      await attempt('GET')
      reads++
    })
    const stopper = async () => {
      await sleep(2500)
      stopping = true
      try {
        await compose(['stop', 'api-2']) // SIGTERM: /ready turns 503, the instance exits after the drain
      } finally {
        stoppedAt = Date.now() // the load ends 1.5 s later, after a failure too
      }
    }
    await Promise.all([stopper(), ...[0, 1, 2, 3].map(writer), reader(), reader()])

    const stoppedAfter = stoppedAt! - started
    console.log(`under load: ${patched} PATCHes (${patchedDuringStop} sent while api-2 was stopping, ${patchedAfterStop} after) and ` +
      `${reads} GETs in ${Date.now() - started} ms; docker-compose stop api-2 from 2500 to ${stoppedAfter} ms; ` +
      `answered by ${JSON.stringify(answeredBy)}`)
    expect(failures).toEqual([])
    expect(answeredBy['api-2']).toBeGreaterThan(0)
    expect(patchedDuringStop).toBeGreaterThan(10)
    expect(patchedAfterStop).toBeGreaterThan(0)
    expect(reads).toBeGreaterThan(20)
    const { stdout } = await compose(['ps', '-q', 'api-2'])
    const state = JSON.parse((await run('docker', ['inspect', '--format', '{{json .State}}', stdout.trim()])).stdout)
    expect(state).toMatchObject({ Running: false, ExitCode: 0 })
    const stored = await api(base, 'GET', url)
    expect(stored.body.variants).toHaveLength(patched)
    expect(new Set(stored.body.variants.map((v: { name: string }) => v.name)).size).toBe(patched)

    // Back in: HAProxy finds the restarted container (a new address, perhaps) once it is ready.
    await compose(['start', 'api-2'])
    await waitForUpstreams(['api-2'], 90_000)
  }, 180_000)

  it('the relay profile: two relays in front of HAProxy answer SDKs with the flags made through the API, and a change arrives at both', async () => {
    const base = `http://127.0.0.1:${proxyPort}`
    expect((await api(base, 'POST', '/api/admin/projects/default/features', { name: 'relayed' })).status).toBe(201)
    expect((await api(base, 'POST', '/api/admin/projects/default/features/relayed/environments/development/on')).status).toBe(200)
    const client = await api(base, 'POST', '/api/admin/api-tokens', { tokenName: 'compose-relay', type: 'client', environment: 'development' })
    const frontend = await api(base, 'POST', '/api/admin/api-tokens', { tokenName: 'compose-relay-web', type: 'frontend', environment: 'development', projects: ['default'] })
    expect([client.status, frontend.status]).toEqual([201, 201])
    const ports = [await freePort(), await freePort()]
    // The relays alone (--no-deps: the servers and HAProxy run already), from the image built above.
    const relays = (args: string[]) => compose(['--profile', 'relay', ...args], {
      ADMIN_API_TOKEN: SECRET,
      RELAY_TOKENS: `${client.body.secret},${frontend.body.secret}`,
      RELAY_PORT: String(ports[0]),
      RELAY_2_PORT: String(ports[1]),
    })
    try {
      await relays(['up', '-d', '--no-build', '--no-deps', 'relay', 'relay-2'])
      for (const port of ports) {
        const url = `http://127.0.0.1:${port}`
        await waitFor(async () => (await fetch(`${url}/ready`)).ok, 60_000, `the relay on ${port}`)
        const ready = await api(url, 'GET', '/ready')
        expect(ready.status).toBe(200)
        expect(ready.body).toMatchObject({ status: 'ready', upstream: { url: 'http://haproxy:8080', state: 'connected', streaming: true }, scopes: 1 })
        const features = await api(url, 'GET', '/api/client/features', undefined, { authorization: client.body.secret })
        expect(features.status).toBe(200)
        expect(features.body.features).toContainEqual(expect.objectContaining({ name: 'relayed', enabled: true }))
        const browser = await api(url, 'GET', '/api/frontend?userId=1', undefined, { authorization: frontend.body.secret })
        expect(browser.status).toBe(200)
        expect(browser.body.toggles).toContainEqual(expect.objectContaining({ name: 'relayed', enabled: true }))
        // No admin API at a relay.
        expect((await api(url, 'GET', '/api/admin/projects')).status).toBe(404)
      }
      // A change made through HAProxy reaches both relays (each follows the servers on a stream).
      expect((await api(base, 'POST', '/api/admin/projects/default/features/relayed/environments/development/off')).status).toBe(200)
      for (const port of ports) {
        await waitFor(async () => {
          const res = await api(`http://127.0.0.1:${port}`, 'GET', '/api/frontend?userId=1', undefined, { authorization: frontend.body.secret })
          return res.status === 200 && !res.body.toggles.some((t: { name: string }) => t.name === 'relayed')
        }, 10_000, `the change at the relay on ${port}`)
      }
    } finally {
      await relays(['rm', '-s', '-f', '-v', 'relay', 'relay-2'])
    }
  }, 180_000)

  it('ps and logs work without ADMIN_API_TOKEN', async () => {
    const env = { ...process.env }
    delete env.ADMIN_API_TOKEN
    const ps = await run('docker-compose', ['-p', project, 'ps'], { env })
    expect(ps.stdout).toContain('api')
    const logs = await run('docker-compose', ['-p', project, 'logs', '--tail', '5', 'api'], { env, maxBuffer: 16 * 1024 * 1024 })
    expect(logs.stdout.length).toBeGreaterThan(0)
  }, 60_000)
})
