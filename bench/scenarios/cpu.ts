import { type ChildProcess, spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from '../../test/helpers/postgres.js'
import { createFeature, patchOne, variantsPath } from '../lib/api.js'
import { load, type Row, type Target } from '../lib/measure.js'
import { stopServer } from '../lib/server.js'
import { CONNECTIONS, FEATURES, SECONDS, WARM_UP_SECONDS } from '../lib/settings.js'

/**
 * Server CPU time per PATCH (one operation, spread over 50 features, BENCH_CONNECTIONS
 * connections) beside an HTTP floor measured in the same run: a bare Fastify route with no
 * schemas, auth or logging doing the same transaction with pg (bench/floor-server.mjs), run
 * before and after. CPU time, not throughput, because this machine's speed drifts.
 */
export async function cpuScenario (server: Target, databaseUrl: string, pid: number): Promise<Row[]> {
  const names = Array.from({ length: FEATURES }, (_, i) => `cpu-${i}`)
  for (const name of names) await createFeature(server, name, 2)
  const port = await freePort()
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir=bench/results', '--cpu-prof-name=floor.cpuprofile'] : []
  const floorServer = spawn(process.execPath, [...profile, 'bench/floor-server.mjs'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  try {
    await waitFor(`http://127.0.0.1:${port}/floor/${names[0]}`, floorServer)
    const floorTarget = { base: `http://127.0.0.1:${port}`, headers: { 'content-type': 'application/json' } }
    const floorRun = (label: string, seconds = SECONDS) =>
      load(floorTarget, `HTTP floor: bare Fastify + pg, same transaction (${label})`, CONNECTIONS, (i) => ({
        method: 'PATCH',
        path: `/floor/${names[i % FEATURES]}`,
        body: JSON.stringify([{ op: 'replace', path: '/0/payload/value', value: `v${i}` }]),
      }), floorServer.pid, undefined, seconds)
    const oursRun = (seconds = SECONDS) =>
      load(server, `PATCH one op, ${FEATURES} features, ${CONNECTIONS} conn: server CPU`, CONNECTIONS, (i) => ({
        method: 'PATCH',
        path: variantsPath(names[i % FEATURES] as string),
        body: patchOne(i),
      }), pid, undefined, seconds)
    // Steady state is measured: both servers first run the same load unmeasured for a few
    // seconds, so that neither pays for just-in-time compilation in its figure.
    await floorRun('warm-up', WARM_UP_SECONDS)
    await oursRun(WARM_UP_SECONDS)
    const before = await floorRun('before')
    const ours = await oursRun()
    const after = await floorRun('after')
    const floorCpu = ((before.cpuMsPerRequest ?? 0) + (after.cpuMsPerRequest ?? 0)) / 2
    ours.ratio = Number(((ours.cpuMsPerRequest ?? 0) / floorCpu).toFixed(2))
    return [ours, before, after]
  } finally {
    await stopServer(floorServer)
  }
}

/** Until a PATCH on `url` answers (the floor server is up). */
async function waitFor (url: string, child: ChildProcess) {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the floor server exited with code ${child.exitCode}`)
    try {
      const res = await fetch(url, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '[{"value":"warm-up"}]' })
      await res.text()
      if (res.ok) return
    } catch {
      // not listening yet
    }
    await sleep(20)
  }
}
