import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { call, createFeature, patchOne, variantsPath } from '../lib/api.js'
import { load, type Row, type Target } from '../lib/measure.js'
import { CONNECTIONS, FEATURES } from '../lib/settings.js'

/**
 * Webhooks: the same PATCH load (50 features, BENCH_CONNECTIONS) with no webhook, with a webhook
 * on every change whose receiver answers 200 at once, and with one whose receiver never answers
 * (each attempt waits WEBHOOK_TIMEOUT_MS). The p99 of the writes must not suffer from the
 * hanging receiver: deliveries are sent outside the request and outside any transaction.
 */
export async function webhookScenarios (server: Target, pid: number): Promise<Row[]> {
  const names = Array.from({ length: FEATURES }, (_, i) => `hook-${i}`)
  for (const name of names) await createFeature(server, name, 2)
  const hanging = createServer(() => {})
  const answering = createServer((_req, res) => { res.end('ok') })
  const listen = async (s: Server) => {
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
    return (s.address() as AddressInfo).port
  }
  const hangingPort = await listen(hanging)
  const answeringPort = await listen(answering)
  const patch = (label: string) =>
    load(server, `PATCH one op, ${FEATURES} features, ${CONNECTIONS} conn: ${label}`, CONNECTIONS, (i) => ({
      method: 'PATCH',
      path: variantsPath(names[i % FEATURES] as string),
      body: patchOne(i),
    }), pid)
  const withWebhook = async (port: number, label: string) => {
    const res = await fetch(`${server.base}/api/admin/addons`, {
      method: 'POST',
      headers: server.headers,
      body: JSON.stringify({ provider: 'webhook', enabled: true, events: ['feature-environment-variants-updated'], parameters: { url: `http://127.0.0.1:${port}/hook` } }),
    })
    const { id } = (await res.json()) as { id: number }
    try {
      return await patch(label)
    } finally {
      await call(server, 'DELETE', `/api/admin/addons/${id}`)
    }
  }
  try {
    await patch('warm-up')
    return [
      await patch('no webhook'),
      await withWebhook(answeringPort, 'a webhook on every change, receiver answers 200'),
      await withWebhook(hangingPort, 'a webhook on every change, receiver hangs'),
      await patch('no webhook (again)'),
    ]
  } finally {
    hanging.closeAllConnections()
    answering.closeAllConnections()
    hanging.close()
    answering.close()
  }
}
