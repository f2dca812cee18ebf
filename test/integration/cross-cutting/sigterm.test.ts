import { execFileSync, spawn } from 'node:child_process'
import { request } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inject } from 'vitest'
import { ADMIN_SECRET } from '../../helpers/app.js'
import { cloneTemplate, dropDatabase, withClient } from '../../helpers/database.js'
import { freePort } from '../../helpers/postgres.js'
import { untilReady } from '../../helpers/server.js'
import { openSse } from '../../helpers/sse.js'

let databaseUrl: string
beforeAll(async () => {
  databaseUrl = await cloneTemplate(inject('postgresUrl'))
  // The production artifact is what must drain on SIGTERM, so build it (a few seconds).
  execFileSync(process.execPath, ['build.mjs'], { stdio: 'inherit' })
}, 120_000)
afterAll(() => dropDatabase(inject('postgresUrl'), databaseUrl))

/** Sends a request and resolves once its body has been handed to the socket, with its answer to come. */
function send (port: number, method: string, path: string, body: unknown) {
  const payload = JSON.stringify(body)
  let flushed!: () => void
  const sent = new Promise<void>((resolve) => { flushed = resolve })
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: { authorization: ADMIN_SECRET, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        let text = ''
        res.on('data', (chunk) => { text += chunk })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      }
    )
    req.on('error', reject)
    req.end(payload, flushed)
  })
  return { sent, answer }
}

describe('SIGTERM under load', () => {
  it('the built server lets in-flight requests finish, then exits 0', async () => {
    const port = await freePort()
    const child = spawn(process.execPath, ['dist/server.js'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: 'warn', INIT_ADMIN_API_TOKENS: ADMIN_SECRET },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    await untilReady(port)
    const created = send(port, 'POST', '/api/admin/projects/default/features', { name: 'drain' })
    expect((await created.answer).status).toBe(201)

    // 80 writers on one feature serialise on its row lock, so many are in flight at once.
    const path = '/api/admin/projects/default/features/drain/environments/development/variants'
    const requests = Array.from({ length: 80 }, (_, i) =>
      send(port, 'PATCH', path, [{ op: 'add', path: '/-', value: { name: `d${i}`, weight: 0 } }])
    )
    await Promise.all(requests.map((r) => r.sent))
    let answeredBeforeSignal = 0
    for (const r of requests) r.answer.then(() => answeredBeforeSignal++, () => {})
    await sleep(0)
    const pending = requests.length - answeredBeforeSignal
    child.kill('SIGTERM')

    const answers = await Promise.all(requests.map((r) => r.answer))
    expect(answers.map((a) => a.status)).toEqual(Array(80).fill(200))
    expect(pending).toBeGreaterThan(0)
    expect(await exited).toBe(0)

    const stored = await withClient(databaseUrl, (c) =>
      c.query(`SELECT json_array_length(variants) AS n FROM feature_environments
               WHERE feature_name = 'drain' AND environment_name = 'development'`)
    )
    expect(stored.rows[0].n).toBe(80)
  }, 60_000)

  it('ends every stream of GET /api/client/streaming (the SDKs reconnect elsewhere) and exits 0', async () => {
    const port = await freePort()
    const child = spawn(process.execPath, ['dist/server.js'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: 'warn', INIT_ADMIN_API_TOKENS: ADMIN_SECRET },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    await untilReady(port)
    const token = send(port, 'POST', '/api/admin/api-tokens', { tokenName: 'sdk', type: 'client', environment: 'development' })
    const secret = JSON.parse((await token.answer).body).secret as string
    const streams = [await openSse(`http://127.0.0.1:${port}/api/client/streaming`, { authorization: secret }), await openSse(`http://127.0.0.1:${port}/api/client/streaming`, { authorization: secret })]
    for (const s of streams) expect((await s.next()).event).toBe('unleash-connected')
    child.kill('SIGTERM')
    await Promise.all(streams.map((s) => s.done))
    expect(await exited).toBe(0)
  }, 60_000)
})
