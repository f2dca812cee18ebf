/**
 * Webhooks keep pace (part of BENCH_ONLY=webhooks): with the server's default settings and
 * receivers on loopback that answer at once,
 *
 * - the delay from an acknowledged write to its delivery arriving (200 writes one after another,
 *   20 ms apart): median and p99, target median ≤ 100 ms;
 * - a burst of 300 changes to one webhook (20 writers): how long after the last write was
 *   acknowledged the last delivery arrived, target ≤ 5 s;
 * - one receiver hanging while another answers (20 writes): how long after the last write the
 *   answering one had all 20, and how many requests the hanging one holds open.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

export interface PaceRow {
  scenario: string
  value: number | string
  unit: string
  target: string
}

interface Target {
  base: string
  headers: Record<string, string>
}

/** A receiver that notes when each feature's event arrived (by its featureName). */
async function receiver (hang = false) {
  const arrived = new Map<string, number>()
  const open = new Set<import('node:http').ServerResponse>()
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const at = performance.now()
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { featureName?: string }
        if (event.featureName && !arrived.has(event.featureName)) arrived.set(event.featureName, at)
      } catch {}
      if (hang) open.add(res)
      else res.end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrived,
    open,
    async close () {
      for (const res of open) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

async function until (check: () => boolean, ms: number) {
  const deadline = performance.now() + ms
  while (!check() && performance.now() < deadline) await sleep(2)
  return check()
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? NaN

export async function webhookPaceScenarios (server: Target): Promise<PaceRow[]> {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.base}${path}`, { method, headers: server.headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
    const text = await res.text()
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`)
    return text === '' ? undefined : JSON.parse(text)
  }
  const run = Math.random().toString(36).slice(2, 7)
  let projects = 0
  /** A project of its own with webhooks (on feature-created) to the receivers; the features are created there. */
  const setUp = async (...urls: string[]) => {
    const project = `pace-${run}-${projects++}`
    await call('POST', '/api/admin/projects', { id: project, name: project })
    const ids: number[] = []
    for (const url of urls) ids.push((await call('POST', '/api/admin/addons', { provider: 'webhook', enabled: true, events: ['feature-created'], projects: [project], parameters: { url } })).id)
    let n = 0
    return {
      /** Creates a feature; resolves with its name and when its creation was acknowledged. */
      write: async () => {
        const name = `${project}-f${n++}`
        await call('POST', `/api/admin/projects/${project}/features`, { name })
        return { name, ackedAt: performance.now() }
      },
      remove: async () => { for (const id of ids) await call('DELETE', `/api/admin/addons/${id}`) },
    }
  }
  const rows: PaceRow[] = []

  // 1. Delay from an acknowledged write to its delivery.
  {
    const r = await receiver()
    const hook = await setUp(r.url)
    try {
      for (let i = 0; i < 20; i++) await hook.write() // warm-up
      await until(() => r.arrived.size >= 20, 10_000)
      const delays: number[] = []
      for (let i = 0; i < 200; i++) {
        const { name, ackedAt } = await hook.write()
        await until(() => r.arrived.has(name), 10_000)
        const at = r.arrived.get(name)
        if (at !== undefined) delays.push(at - ackedAt)
        await sleep(20)
      }
      rows.push(
        { scenario: `delay from acknowledged write to delivery, median (${delays.length} of 200 delivered)`, value: Math.round(quantile(delays, 0.5) * 10) / 10, unit: 'ms', target: '≤ 100 ms' },
        { scenario: 'delay from acknowledged write to delivery, p99', value: Math.round(quantile(delays, 0.99) * 10) / 10, unit: 'ms', target: '' }
      )
    } finally {
      await hook.remove()
      await r.close()
    }
  }

  // 2. A burst of 300 changes to one webhook.
  {
    const r = await receiver()
    const hook = await setUp(r.url)
    try {
      const started = performance.now()
      let lastAck = 0
      await Promise.all(Array.from({ length: 20 }, async () => {
        for (let i = 0; i < 15; i++) lastAck = Math.max(lastAck, (await hook.write()).ackedAt)
      }))
      await until(() => r.arrived.size >= 300, 60_000)
      const lastArrival = Math.max(...r.arrived.values())
      rows.push(
        { scenario: `burst of 300 changes to one webhook (written in ${Math.round(lastAck - started)} ms by 20 writers): delivered`, value: r.arrived.size, unit: 'deliveries', target: '300' },
        { scenario: 'burst: the last delivery after the last acknowledged write', value: Math.round(lastArrival - lastAck), unit: 'ms', target: '≤ 5000 ms' }
      )
    } finally {
      await hook.remove()
      await r.close()
    }
  }

  // 3. A hanging receiver beside an answering one.
  {
    const hanging = await receiver(true)
    const answering = await receiver()
    const hook = await setUp(hanging.url, answering.url)
    try {
      const delays: number[] = []
      const writes: { name: string; ackedAt: number }[] = []
      for (let i = 0; i < 20; i++) writes.push(await hook.write())
      const lastAck = writes.at(-1)!.ackedAt
      await until(() => answering.arrived.size >= 20, 30_000)
      for (const w of writes) {
        const at = answering.arrived.get(w.name)
        if (at !== undefined) delays.push(at - w.ackedAt)
      }
      rows.push(
        { scenario: 'receiver 1 hangs, receiver 2 answers: receiver 2 got', value: `${answering.arrived.size} of 20`, unit: 'deliveries', target: '20 of 20' },
        { scenario: 'receiver 2: its last delivery after the last acknowledged write', value: Math.round(Math.max(...answering.arrived.values()) - lastAck), unit: 'ms', target: '' },
        { scenario: 'receiver 2: median delay from acknowledged write to delivery', value: Math.round(quantile(delays, 0.5) * 10) / 10, unit: 'ms', target: 'as without a hanging one' },
        { scenario: 'receiver 1: requests held open meanwhile', value: hanging.open.size, unit: 'requests', target: '4 (its own slots)' }
      )
    } finally {
      await hook.remove()
      await hanging.close()
      await answering.close()
    }
  }
  return rows
}

export function printPace (rows: PaceRow[]) {
  console.log('\nWebhooks keep pace (default settings, receivers answering at once)')
  console.table(rows)
}
