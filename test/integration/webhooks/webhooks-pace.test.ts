/**
 * Webhooks keep pace: the dispatcher claims when a change commits and when a send finishes,
 * not only at its poll. WEBHOOK_POLL_MS is a minute here, so every delivery these tests see
 * before it was claimed on a wake. Timing targets (median delay, burst drain time) live in
 * the bench (BENCH_ONLY=webhooks); these tests prove what must hold on any machine.
 */
import { describe, expect, it } from 'vitest'
import { MAX_IN_FLIGHT_PER_WEBHOOK } from '../../../src/webhooks/dispatcher.service.js'
import { json, uniqueName, useTestApp } from '../../helpers/app.js'
import { type Receiver, receiversForThisFile } from '../../helpers/receiver.js'
import { requests } from '../../helpers/requests.js'

const t = useTestApp({
  WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  WEBHOOK_POLL_MS: '60000',
  // A hanging receiver hangs until the test lets it go.
  WEBHOOK_TIMEOUT_MS: '300000',
  WEBHOOK_LEASE_MS: '600000',
})

const receiver = receiversForThisFile()

const { admin: { post } } = requests(t)

async function newProject () {
  const id = uniqueName('p')
  expect((await post('/api/admin/projects', { id, name: id })).statusCode).toBe(201)
  return id
}

async function hook (r: Receiver, project: string) {
  const res = await post('/api/admin/addons', { provider: 'webhook', enabled: true, events: ['feature-created'], projects: [project], parameters: { url: r.url } })
  expect(res.statusCode, res.body).toBe(201)
  r.secrets = [json(res).signingSecret]
  return json(res).id as number
}

/** `count` features created one after another: their events commit in id order. */
async function createFeatures (project: string, count: number) {
  for (let i = 0; i < count; i++) {
    expect((await post(`/api/admin/projects/${project}/features`, { name: uniqueName() })).statusCode).toBe(201)
  }
}

const eventIds = (r: Receiver) => r.received.map((g) => JSON.parse(g.body).id as number)

describe('a burst of changes to one webhook', () => {
  it('all 300 are delivered, once each, signed; none arrives before more than MAX_IN_FLIGHT_PER_WEBHOOK − 1 older ones', async () => {
    const r = await receiver()
    const project = await newProject()
    await hook(r, project)
    await createFeatures(project, 300)
    await r.waitFor(300, 50_000)
    const ids = eventIds(r)
    expect(ids).toHaveLength(300)
    expect(new Set(ids).size).toBe(300)
    expect(new Set(r.received.map((g) => g.id)).size).toBe(300)
    for (const g of r.received) expect(g.verifiedWith).toEqual(r.secrets)
    // The documented order: claimed oldest first, at most MAX_IN_FLIGHT_PER_WEBHOOK at once, so
    // a delivery can only overtake older ones still in flight beside it.
    const overtaken = ids.map((id, i) => ids.slice(i + 1).filter((older) => older < id).length)
    expect(Math.max(...overtaken)).toBeLessThanOrEqual(MAX_IN_FLIGHT_PER_WEBHOOK - 1)
  }, 120_000)
})

describe('a hanging receiver', () => {
  it('while receiver 1 hangs, receiver 2 gets every delivery; receiver 1 holds only its own slots', async () => {
    const hanging = await receiver(() => 'hang')
    const answering = await receiver()
    const project = await newProject()
    const first = await hook(hanging, project)
    await hook(answering, project)
    await createFeatures(project, 20)
    await answering.waitFor(20, 50_000)
    expect(new Set(eventIds(answering)).size).toBe(20)
    // Receiver 1's hang has not ended: its requests are open, and no attempt of its webhook
    // is recorded yet (an attempt is recorded when its answer, or its timeout, comes).
    expect(hanging.received).toHaveLength(MAX_IN_FLIGHT_PER_WEBHOOK)
    const recorded = await t.database.db
      .selectFrom('webhook_attempts as a')
      .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .select('a.attempt')
      .where('d.webhook_id', '=', first)
      .execute()
    expect(recorded).toEqual([])
  }, 120_000)
})
