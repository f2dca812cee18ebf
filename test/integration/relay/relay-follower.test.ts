/**
 * A relay's follower stops at once, whatever it is waiting for: an upstream that does not answer
 * a poll, a stream's headers or a stream's next bytes (an upstream here is a bare HTTP server
 * that holds its requests open, counting them).
 */
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { Follower, type UpstreamModes } from '../../../src/relay/follower.js'
import { ScopeState } from '../../../src/relay/scope.js'
import { Upstream } from '../../../src/relay/upstream.js'
import { eventually } from '../../helpers/eventually.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

/** An upstream answering with `handle`; requests it holds open are ended when the test ends. */
async function upstream (handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: string[] = []
  const server = createServer((req, res) => {
    seen.push(req.url!.split('?')[0]!)
    handle(req, res)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

function follow (url: string, modes: UpstreamModes = { streams: undefined }) {
  const log = { warn () {}, debug () {} }
  const follower = new Follower(new ScopeState('development', ['*']), new Upstream(url, { appName: 'test', instanceId: 'test' }), modes, 1000, {
    secret: () => '*:development.secret',
    refused () {},
    changed () {},
    seq: (() => { let n = 0; return () => ++n })(),
    log,
  })
  follower.start()
  return follower
}

async function stopTime (follower: Follower) {
  const started = Date.now()
  await follower.stop()
  return Date.now() - started
}

describe('stopping a follower', () => {
  it('during a poll the upstream does not answer (an upstream without streams): at once', async () => {
    const up = await upstream((req, res) => {
      if (req.url!.startsWith('/api/client/streaming')) res.writeHead(404).end()
      // /api/client/features: held open, no answer.
    })
    const follower = follow(up.url)
    await eventually(async () => up.seen.includes('/api/client/features'), 'the poll')
    expect(await stopTime(follower)).toBeLessThan(500)
  })

  it('during a poll whose answer stops half-way: at once', async () => {
    const up = await upstream((req, res) => {
      if (req.url!.startsWith('/api/client/streaming')) res.writeHead(404).end()
      else res.writeHead(200, { 'content-type': 'application/json' }).write('{"version":2,"features":[')
    })
    const follower = follow(up.url)
    await eventually(async () => up.seen.includes('/api/client/features'), 'the poll')
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await stopTime(follower)).toBeLessThan(500)
  })

  it('while a stream\'s headers are awaited, or its next bytes: at once', async () => {
    const silent = await upstream(() => {})
    const opening = follow(silent.url)
    await eventually(async () => silent.seen.includes('/api/client/streaming'), 'the stream asked for')
    expect(await stopTime(opening)).toBeLessThan(500)

    const quiet = await upstream((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(`event: unleash-connected\nid: 5\ndata: ${JSON.stringify({ events: [{ type: 'hydration', eventId: 5, features: [], segments: [] }] })}\n\n`)
    })
    const reading = follow(quiet.url)
    await eventually(async () => reading.scope.ready, 'the hydration')
    expect(await stopTime(reading)).toBeLessThan(500)
  })
})
