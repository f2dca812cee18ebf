/**
 * Request bodies are decoded as their Content-Encoding says, on every route that takes one:
 * gzip, deflate and br decoded, anything else refused; a body that is not what its header
 * says is refused; a zip bomb is refused with 413 once its decoded size passes the route's
 * limit, before the rest of it has even arrived.
 */
import { connect } from 'node:net'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { ADMIN_SECRET, auth, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp()

const post = (url: string, body: Buffer | string, encoding?: string) =>
  t.app.inject({ method: 'POST', url, headers: { ...auth(), 'content-type': 'application/json', ...(encoding !== undefined && { 'content-encoding': encoding }) }, payload: body })

const importBody = (name: string) =>
  JSON.stringify({ project: 'default', environment: 'development', data: { features: [{ name }], featureStrategies: [{ name: 'default', featureName: name }] } })

describe('Content-Encoding of request bodies', () => {
  it('an import labelled gzip whose body is plain JSON is refused (400), and nothing is stored', async () => {
    const before = await databaseFingerprint(t.database.db)
    const refused = expectProblem(await post('/api/admin/features-batch/import', importBody(uniqueName('plain')), 'gzip'), 400, 'BadDataError')
    expect(refused.message).toBe('The request body is not gzip data, as its Content-Encoding says')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('a gzip import is decoded and imported; deflate, br and identity bodies are taken on any JSON route', async () => {
    const name = uniqueName('zipped')
    const imported = await post('/api/admin/features-batch/import', gzipSync(importBody(name)), 'gzip')
    expect(imported.statusCode, imported.body).toBe(200)
    expect(json(await t.app.inject({ url: `/api/admin/projects/default/features/${name}`, headers: auth() })).name).toBe(name)
    const encoders: Record<string, (text: string) => Buffer | string> = { deflate: deflateSync, br: brotliCompressSync, identity: (text) => text, 'X-GZIP': gzipSync }
    for (const [encoding, encode] of Object.entries(encoders)) {
      const feature = uniqueName(encoding.toLowerCase())
      const created = await post('/api/admin/projects/default/features', encode(JSON.stringify({ name: feature })), encoding)
      expect(created.statusCode, `${encoding}: ${created.body}`).toBe(201)
      expect(json(created).name).toBe(feature)
    }
  })

  it('a coding other than gzip, deflate, br and identity is 415, nothing stored', async () => {
    const before = await databaseFingerprint(t.database.db)
    for (const encoding of ['compress', 'zstd', 'gzip, gzip']) {
      const refused = expectProblem(await post('/api/admin/projects/default/features', JSON.stringify({ name: uniqueName('c') }), encoding), 415, 'ContentTypeError')
      expect(refused.message).toContain(`Content-Encoding ${encoding} is not supported`)
    }
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('a zip bomb is refused with 413 as soon as its decoded size passes the limit, before the rest of it is sent', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = t.app.server.address() as { port: number }
    // Each member is 1 MiB of zeros in about 1 kB; gunzip reads members one after another.
    const member = gzipSync(Buffer.alloc(1024 * 1024))
    const members = Math.floor(t.config.bodyLimit / member.length)
    expect(members).toBeGreaterThan(500)
    const head = [
      'POST /api/admin/projects/default/features HTTP/1.1',
      `host: 127.0.0.1:${port}`,
      `authorization: ${ADMIN_SECRET}`,
      'content-type: application/json',
      'content-encoding: gzip',
      `content-length: ${members * member.length}`,
    ].join('\r\n')
    const before = await databaseFingerprint(t.database.db)
    const status = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1')
      let answer = ''
      const timer = setTimeout(() => {
        socket.destroy()
        reject(new Error(`no answer with ${members - 4} of ${members} members unsent`))
      }, 10_000)
      socket.on('error', reject)
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1')
        if (answer.includes('\r\n\r\n')) {
          clearTimeout(timer)
          socket.destroy()
          resolve(answer.slice(0, answer.indexOf('\r\n')))
        }
      })
      // Four members: 4 MiB decoded, past the 1 MiB limit; the rest is never sent.
      socket.write(`${head}\r\n\r\n`)
      socket.write(Buffer.concat([member, member, member, member]))
    })
    expect(status).toBe('HTTP/1.1 413 Payload Too Large')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})
