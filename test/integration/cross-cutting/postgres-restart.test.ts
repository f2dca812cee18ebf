import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App, buildApp } from '../../../src/app.js'
import type { DatabaseHandle } from '../../../src/db/database.js'
import { openDatabase } from '../../../src/startup.js'
import { ADMIN_SECRET, auth, createFeature, testConfig } from '../../helpers/app.js'
import { NO_RESTARTABLE_POSTGRES, type RestartablePostgres, restartablePostgres } from '../../helpers/postgres.js'
import { eventsOf, featureState } from '../../helpers/state.js'

// This test stops and starts PostgreSQL, so it needs one of its own, not the shared one:
// a container when a runtime answers, else local binaries; with neither it is skipped, saying why
// (CI provides a container runtime, so there it always runs).
let cluster: RestartablePostgres | undefined
let app: App
let database: DatabaseHandle
beforeAll(async () => {
  cluster = await restartablePostgres()
  if (!cluster) return
  console.log(`the restart test stops and starts PostgreSQL from ${cluster.source}`)
  const config = testConfig(cluster.url, { INIT_ADMIN_API_TOKENS: ADMIN_SECRET })
  database = await openDatabase(config, { info () {}, warn () {} })
  app = await buildApp(config, { database })
})
afterAll(async () => {
  await app?.close()
  await database?.db.destroy()
  await cluster?.destroy()
})

interface Outcome { status: number; ms: number; name: string; body: string }

describe('PostgreSQL stopped under load and started again', () => {
  it('answers 503 while it is down, serves again after, and leaves no half-written change', async (context) => {
    if (!cluster) return context.skip(NO_RESTARTABLE_POSTGRES)
    const restartable = cluster
    const feature = await createFeature(app)
    const url = `/api/admin/projects/default/features/${feature}/environments/development/variants`
    const outcomes: Outcome[] = []
    const load = { running: true }
    let n = 0
    const worker = async () => {
      while (load.running) {
        const name = `v${n++}`
        const t0 = performance.now()
        const res = await app.inject({
          method: 'PATCH',
          url,
          headers: auth(),
          payload: [{ op: 'add', path: '/-', value: { name, weight: 0 } }],
        })
        outcomes.push({ status: res.statusCode, ms: performance.now() - t0, name, body: res.body })
        if (res.statusCode !== 200) await sleep(20)
      }
    }
    const workers = Array.from({ length: 5 }, worker)

    await sleep(500)
    await restartable.stop()
    const downFrom = outcomes.length
    // Long enough for requests that wait out the connect timeout (3 s) to be answered.
    await sleep(4000)
    const downTo = outcomes.length
    await restartable.start()
    await sleep(1500)
    load.running = false
    await Promise.all(workers)

    // Only 200 and 503, every error with the common body, and no request hung.
    for (const o of outcomes) {
      expect([200, 503], o.body).toContain(o.status)
      if (o.status === 503) expect(JSON.parse(o.body)).toMatchObject({ name: 'ServiceUnavailableError', status: 503 })
      expect(o.ms).toBeLessThan(5000)
    }
    const during = outcomes.slice(downFrom, downTo)
    expect(during.length).toBeGreaterThan(0)
    expect(during.every((o) => o.status === 503)).toBe(true)
    expect(outcomes.slice(downTo).some((o) => o.status === 200)).toBe(true)

    // The same process serves again without a restart.
    expect((await app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200)

    // Every acknowledged change is stored; every stored change has exactly its event.
    const state = await featureState(database.db, feature)
    const dev = state.environments.find((e) => e.environment_name === 'development')
    const stored = (dev?.variants as { name: string }[]).map((v) => v.name)
    for (const o of outcomes.filter((x) => x.status === 200)) expect(stored).toContain(o.name)
    const changes = (await eventsOf(database.db, feature)).filter(
      (e) => e.type === 'feature-environment-variants-updated'
    )
    expect(changes).toHaveLength((dev?.revision ?? 0) - 1)
    expect(changes.at(-1)?.data).toEqual({ variants: dev?.variants })
    expect(new Set(stored).size).toBe(stored.length)
  }, 60_000)
})
