/**
 * Streaming slots on a listening server, on raw sockets: a client may leave at any moment (while
 * its token is still being looked up, while its first event is read, after), and the per-token
 * slot count and the `streaming_streams` gauge at /metrics always come back to the streams that
 * are open. Token lookups are not cached here (TOKEN_CACHE_MS 0), so that every request spends
 * its 1–3 ms in the lookup, where a client that left used to keep its slot forever.
 */
import net from 'node:net'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { auth, json, uniqueName, useTestApp } from '../../helpers/app.js'

const PER_TOKEN = 4
const t = useTestApp({ TOKEN_CACHE_MS: '0', STREAMING_MAX_CONNECTIONS_PER_TOKEN: String(PER_TOKEN) })
let port = 0

beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  port = (t.app.server.address() as net.AddressInfo).port
})

async function clientToken () {
  const res = await t.app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: auth(), payload: { tokenName: uniqueName('sdk'), type: 'client', environment: 'development' } })
  expect(res.statusCode, res.body).toBe(201)
  return json(res).secret as string
}

interface RawStream {
  socket: net.Socket
  /** The status the server answered with; undefined when the socket closed before any answer. */
  status: Promise<number | undefined>
  closed: Promise<void>
}

/** Opens GET /api/client/streaming on a socket of its own; `leaveAfterMs` destroys the socket that long after the request was written. */
function openRaw (secret: string, leaveAfterMs?: number): RawStream {
  const socket = net.connect(port, '127.0.0.1')
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  const status = new Promise<number | undefined>((resolve) => {
    let head = ''
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1')
      const match = /^HTTP\/1\.1 (\d{3})/.exec(head)
      if (match) resolve(Number(match[1]))
    })
    socket.once('close', () => resolve(undefined))
  })
  socket.on('error', () => {})
  socket.write(`GET /api/client/streaming HTTP/1.1\r\nHost: x\r\nAuthorization: ${secret}\r\nAccept: text/event-stream\r\n\r\n`, () => {
    if (leaveAfterMs !== undefined) setTimeout(() => socket.destroy(), leaveAfterMs)
  })
  return { socket, status, closed }
}

const gauge = async () => {
  const metrics = await t.app.inject({ method: 'GET', url: '/metrics' })
  return Number(/^streaming_streams (\d+)$/m.exec(metrics.body)?.[1])
}

/** Waits until the server has seen every close (the count stops moving at `expected`), then reads the count and the gauge. */
async function settledCount (expected: number) {
  for (let i = 0; i < 300 && t.app.streams.size !== expected; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  return { count: t.app.streams.size, gauge: await gauge() }
}

describe('streaming slots', () => {
  it('a client that leaves while its token is being looked up gives its slot back (its token can stream again)', async () => {
    const secret = await clientToken()
    // Waves of as many clients as the token may hold, each leaving 0–4 ms after its request.
    for (let wave = 0; wave < 30; wave++) {
      const leaving = Array.from({ length: PER_TOKEN }, () => openRaw(secret, Math.floor(Math.random() * 5)))
      await Promise.all(leaving.map((s) => s.closed))
    }
    expect(await settledCount(0)).toEqual({ count: 0, gauge: 0 })
    const admitted = Array.from({ length: PER_TOKEN }, () => openRaw(secret))
    expect(await Promise.all(admitted.map((s) => s.status))).toEqual(Array(PER_TOKEN).fill(200))
    for (const s of admitted) s.socket.destroy()
    expect(await settledCount(0)).toEqual({ count: 0, gauge: 0 })
  })

  it('connecting and leaving at random moments: the count and the gauge equal the open streams', async () => {
    let runs = 0
    await fc.assert(
      fc.asyncProperty(
        // Per client: leave that many ms after the request, or stay.
        fc.array(fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined, freq: 3 }), { minLength: 1, maxLength: PER_TOKEN + 2 }),
        async (plan) => {
          runs++
          const secret = await clientToken()
          const clients = plan.map((leaveAfterMs) => ({ leaves: leaveAfterMs !== undefined, stream: openRaw(secret, leaveAfterMs) }))
          await Promise.all(clients.filter((c) => c.leaves).map((c) => c.stream.closed))
          const staying = clients.filter((c) => !c.leaves)
          const statuses = await Promise.all(staying.map((c) => c.stream.status))
          // Admitted while those that left still held their slots, or refused (429) then.
          expect(statuses.every((s) => s === 200 || s === 429), JSON.stringify(statuses)).toBe(true)
          const open = statuses.filter((s) => s === 200).length
          expect(await settledCount(open)).toEqual({ count: open, gauge: open })
          for (const c of staying) c.stream.socket.destroy()
          expect(await settledCount(0)).toEqual({ count: 0, gauge: 0 })
        }
      ),
      { numRuns: 40 }
    )
    expect(runs).toBe(40)
  })
})
