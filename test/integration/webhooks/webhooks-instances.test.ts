/**
 * Two instances on one database, both dispatching: every event of 200 changes is delivered,
 * and no delivery is sent by both instances (each webhook-id arrives once: no lease expired).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App, buildApp } from '../../../src/app.js'
import { createDatabase, type DatabaseHandle } from '../../../src/db/database.js'
import type { Resolve } from '../../../src/webhooks/ssrf.js'
import { auth, buildTestApp, json, type TestApp, testConfig, uniqueName } from '../../helpers/app.js'
import { eventually } from '../../helpers/eventually.js'
import { type Receiver, startReceiver } from '../../helpers/receiver.js'

const env = {
  WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  WEBHOOK_POLL_MS: '20',
  WEBHOOK_TIMEOUT_MS: '5000',
  WEBHOOK_LEASE_MS: '30000',
}
const HOST = 'receiver.instances.test'
/** Each instance resolves the receiver's name with its own resolver, which counts its sends. */
const lookups = { first: 0, second: 0 }
const resolverOf = (which: keyof typeof lookups): Resolve => async () => {
  lookups[which]++
  return [{ address: '127.0.0.1', family: 4 }]
}

let first: TestApp
let second: { app: App; database: DatabaseHandle }
let receiver: Receiver
beforeAll(async () => {
  receiver = await startReceiver(() => 200)
  first = await buildTestApp(env, { resolve: resolverOf('first') })
  const config = testConfig(first.databaseUrl, env)
  const database = await createDatabase(config)
  second = { app: await buildApp(config, { database, resolve: resolverOf('second') }), database }
  await second.app.ready()
})
afterAll(async () => {
  await second.app.close()
  await second.database.db.destroy()
  await first.close()
  await receiver.close()
})

describe('two instances dispatching from one database', () => {
  it('200 changes: every event delivered once, by either instance, each validly signed', async () => {
    const project = uniqueName('p')
    await first.app.inject({ method: 'POST', url: '/api/admin/projects', headers: auth(), payload: { id: project, name: project } })
    const created = json(await first.app.inject({
      method: 'POST',
      url: '/api/admin/addons',
      headers: auth(),
      payload: { provider: 'webhook', enabled: true, events: ['feature-created'], projects: [project], parameters: { url: `http://${HOST}:${receiver.port}/hook` } },
    }))
    receiver.secrets = [created.signingSecret]
    lookups.first = 0
    lookups.second = 0

    const names = Array.from({ length: 200 }, (_, i) => `${project}-${i}`)
    for (let i = 0; i < names.length; i += 20) {
      const batch = names.slice(i, i + 20).map((name, j) =>
        ((i + j) % 2 === 0 ? first.app : second.app).inject({ method: 'POST', url: `/api/admin/projects/${project}/features`, headers: auth(), payload: { name } })
      )
      expect((await Promise.all(batch)).map((r) => r.statusCode)).toEqual(Array(batch.length).fill(201))
    }

    await receiver.waitFor(200, 30_000)
    const delivered = await eventually(async () => {
      const rows = await first.database.db.selectFrom('webhook_deliveries').select(['message_id', 'state', 'attempts']).where('webhook_id', '=', created.id).execute()
      return rows.length === 200 && rows.every((r) => r.state === 'delivered') ? rows : undefined
    }, 'all 200 deliveries are delivered', 30_000)
    expect(delivered.every((r) => r.attempts === 1)).toBe(true)
    // A delivery sent twice would arrive about now.
    await sleep(300)

    const ids = receiver.received.map((r) => r.id)
    expect(ids).toHaveLength(200)
    expect(new Set(ids).size).toBe(200)
    expect(new Set(ids)).toEqual(new Set(delivered.map((r) => r.message_id)))
    expect(receiver.received.map((r) => JSON.parse(r.body).featureName).sort()).toEqual([...names].sort())
    for (const r of receiver.received) expect(r.verifiedWith).toEqual(receiver.secrets)
    // Both instances sent some of them.
    expect(lookups.first).toBeGreaterThan(0)
    expect(lookups.second).toBeGreaterThan(0)
    expect(lookups.first + lookups.second).toBe(200)
  }, 60_000)
})
