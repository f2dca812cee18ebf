/**
 * At least once across a crash: the built server is killed (SIGKILL) after the write was
 * acknowledged and while the receiver holds the delivery unanswered; after a restart the
 * delivery is sent again once its lease has run out, with the same webhook-id.
 */
import { execFileSync, spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { ADMIN_SECRET } from '../../helpers/app.js'
import { cloneTemplate, dropDatabase } from '../../helpers/database.js'
import { freePort } from '../../helpers/postgres.js'
import { untilReady } from '../../helpers/server.js'
import { eventually } from '../../helpers/eventually.js'
import { type Receiver, startReceiver } from '../../helpers/receiver.js'

const LEASE_MS = 3000
const OUTDIR = 'dist/webhooks-crash'

let databaseUrl: string
let receiver: Receiver
beforeAll(async () => {
  databaseUrl = await cloneTemplate(inject('postgresUrl'))
  // The first request hangs (the crash comes while it waits); every later one is answered.
  receiver = await startReceiver((_request, n) => (n === 0 ? 'hang' : 200))
  // The production bundle, in a folder of its own: the SIGTERM test builds dist/ at the same time.
  execFileSync(process.execPath, ['build.mjs'], { stdio: 'inherit', env: { ...process.env, BUILD_OUTDIR: OUTDIR } })
}, 120_000)
afterAll(async () => {
  await receiver.close()
  await dropDatabase(inject('postgresUrl'), databaseUrl)
})

async function startServer (port: number) {
  const child = spawn(process.execPath, [`${OUTDIR}/server.js`], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      INIT_ADMIN_API_TOKENS: ADMIN_SECRET,
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_TIMEOUT_MS: '2500',
      WEBHOOK_LEASE_MS: String(LEASE_MS),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)))
  await untilReady(port)
  return { child, exited }
}

const call = async (port: number, method: string, path: string, body?: unknown) => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: ADMIN_SECRET, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, body: await res.json() as any }
}

describe('a crash while a delivery is in flight', () => {
  it('kill -9 before the receiver answered; after a restart the event is delivered, with the same webhook-id', async () => {
    const port = await freePort()
    const server = await startServer(port)
    const created = await call(port, 'POST', '/api/admin/addons', {
      provider: 'webhook',
      enabled: true,
      events: ['feature-created'],
      parameters: { url: receiver.url },
    })
    expect(created.status).toBe(201)
    receiver.secrets = [created.body.signingSecret]
    const write = await call(port, 'POST', '/api/admin/projects/default/features', { name: 'crash-delivered' })
    expect(write.status).toBe(201)

    const [first] = await receiver.waitFor(1)
    server.child.kill('SIGKILL')
    expect(await server.exited).toBe('SIGKILL')
    const killedAt = performance.now()

    const restarted = await startServer(port)
    try {
      const [, second] = await receiver.waitFor(2, LEASE_MS + 10_000)
      // Not before the lease of the killed instance ran out.
      expect(second!.at - killedAt).toBeGreaterThanOrEqual(LEASE_MS - 1000)
      expect(second!.id).toBe(first!.id)
      expect(JSON.parse(second!.body)).toMatchObject({ type: 'feature-created', featureName: 'crash-delivered' })
      expect(first!.verifiedWith).toEqual(receiver.secrets)
      expect(second!.verifiedWith).toEqual(receiver.secrets)

      const [delivery] = await eventually(async () => {
        const list = (await call(port, 'GET', `/api/admin/addons/${created.body.id}/deliveries`)).body.deliveries
        return list[0]?.state === 'delivered' ? list : undefined
      })
      expect(delivery.messageId).toBe(first!.id)
      expect(delivery.attempts).toEqual([
        expect.objectContaining({ attempt: 1, status: null, durationMs: null, error: 'no result: the instance sending it stopped before its lease ended' }),
        expect.objectContaining({ attempt: 2, status: 200, error: null }),
      ])
    } finally {
      restarted.child.kill('SIGTERM')
      await restarted.exited
    }
  }, 60_000)
})
