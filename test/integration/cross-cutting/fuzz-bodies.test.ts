/**
 * Every route that reads a body, found in the OpenAPI document the server serves, fuzzed with
 * bodies of extreme depth and size (up to the route's limit, one byte over it, or a declared
 * Content-Length over it with nothing sent), by a Viewer's personal access token (the least
 * rights anyone can get), an admin token (which every route's parser admits) and the SDK
 * tokens on the SDK routes. On the built server in a process of its own: no answer is a 5xx,
 * the server holds no /health for 100 ms (its event loop's longest turn, see probeHealth), and
 * its peak memory stays bounded.
 * FUZZ_RUNS=n runs n requests instead of the default.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { ADMIN_SECRET } from '../../helpers/app.js'
import { fuzzRuns, fuzzTimeout } from '../../helpers/arbitraries.js'
import { type BuiltServer, buildServer, memoryOf, personalAccessToken, probeHealth, startBuiltServer } from '../../helpers/built-server.js'
import { cloneTemplate, dropDatabase } from '../../helpers/database.js'
import { rawUpload } from '../../helpers/raw-http.js'

const OUTDIR = 'dist/fuzz-bodies'
const MiB = 1024 * 1024

let databaseUrl: string
let server: BuiltServer
const secrets = { viewer: '', admin: ADMIN_SECRET, client: '', frontend: '' }
let operations: { method: string; path: string }[] = []

beforeAll(async () => {
  databaseUrl = await cloneTemplate(inject('postgresUrl'))
  buildServer(OUTDIR)
  server = await startBuiltServer(OUTDIR, databaseUrl)
  secrets.viewer = await personalAccessToken(server.base, 'Viewer')
  for (const type of ['client', 'frontend'] as const) {
    const res = await fetch(`${server.base}/api/admin/api-tokens`, {
      method: 'POST',
      headers: { authorization: ADMIN_SECRET, 'content-type': 'application/json' },
      body: JSON.stringify({ tokenName: `fuzz-${type}`, type, environment: 'development' }),
    })
    secrets[type] = ((await res.json()) as { secret: string }).secret
  }
  const doc = (await (await fetch(`${server.base}/docs/json`)).json()) as { paths: Record<string, Record<string, unknown>> }
  // Every operation whose method carries a body (GET and HEAD bodies are never read).
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).filter((m) => m !== 'get' && m !== 'head').map((method) => ({ method: method.toUpperCase(), path }))
  )
}, 120_000)
afterAll(async () => {
  await server?.stop()
  await dropDatabase(inject('postgresUrl'), databaseUrl)
})

/** Path parameters that name nothing (a write that got through finds nothing to change): the parser is what is fuzzed. */
const target = (path: string) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'projectId' ? 'default' : /id$/i.test(name) ? '999999' : 'fuzz-nothing'))

/** The largest body the route takes (the import routes take IMPORT_BODY_LIMIT). */
const limitOf = (path: string) => (path.startsWith('/api/admin/features-batch/') && path !== '/api/admin/features-batch/export' ? 32 * MiB : MiB)

/** Whose token: the SDK routes take their own; every other route a Viewer's or the admin's. */
function credentials (path: string, either: 'viewer' | 'admin') {
  if (path.startsWith('/api/client')) return 'client' as const
  if (path.startsWith('/api/frontend') || path.startsWith('/ofrep')) return 'frontend' as const
  return either
}

/** A body sent with Transfer-Encoding: chunked (no Content-Length: the limit is counted as it comes). */
function chunked (body: Buffer): Buffer {
  const frames: Buffer[] = []
  for (let at = 0; at < body.length; at += 64 * 1024) {
    const piece = body.subarray(at, at + 64 * 1024)
    frames.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'))
  }
  frames.push(Buffer.from('0\r\n\r\n'))
  return Buffer.concat(frames)
}

/** `text` `n` times (at least once). */
const repeat = (text: string, n: number) => Buffer.alloc(Math.max(1, Math.floor(n)) * Buffer.byteLength(text), text)

/** Kinds of bodies, each `size` bytes or so; `deep` ones are nested more than 32 levels. */
const KINDS: Record<string, { deep: boolean; make: (size: number) => Buffer }> = {
  'deep arrays': { deep: true, make: (size) => Buffer.concat([repeat('[', size / 2), repeat(']', size / 2)]) },
  'deep objects in an ignored member': { deep: true, make: (size) => Buffer.concat([Buffer.from('{"name":"x","ignored":'), repeat('{"a":', size / 6), Buffer.from('1'), repeat('}', size / 6), Buffer.from('}')]) },
  'deep, never closed': { deep: true, make: (size) => repeat('{"a":[', size / 6) },
  'brackets in a string': { deep: false, make: (size) => Buffer.concat([Buffer.from('{"name":"'), repeat('[{\\"', size / 4), Buffer.from('"}')]) },
  'a wide array': { deep: false, make: (size) => Buffer.concat([Buffer.from('['), repeat('1,', size / 2), Buffer.from('1]')]) },
  'many members': { deep: false, make: (size) => Buffer.from(`{${Array.from({ length: Math.max(1, Math.floor(size / 12)) }, (_, i) => `"m${i}":${i}`).join(',')}}`) },
  'new names in objects of 100': { deep: false, make: (size) => Buffer.from(`[${Array.from({ length: Math.max(1, Math.floor(size / 1200)) }, (_, o) => `{${Array.from({ length: 100 }, (_, i) => `"n${o * 100 + i}":0`).join(',')}}`).join(',')}]`) },
  'empty objects': { deep: false, make: (size) => Buffer.concat([Buffer.from('['), repeat('{},', size / 3), Buffer.from('{}]')]) },
  'one long string': { deep: false, make: (size) => Buffer.concat([Buffer.from('"'), repeat('x', size), Buffer.from('"')]) },
  'escapes storage refuses': { deep: false, make: (size) => Buffer.concat([Buffer.from('{"name":"'), repeat('\\u0000\\ud800', size / 12), Buffer.from('"}')]) },
  'prototype members, 32 deep': { deep: false, make: () => Buffer.from(`${'{"__proto__":'.repeat(30)}{"constructor":{"prototype":1}}${'}'.repeat(30)}`) },
  'numbers out of range': { deep: false, make: (size) => Buffer.concat([Buffer.from('['), repeat('1e999999,', size / 9), Buffer.from('-0]')]) },
}

const request = fc.record({
  operation: fc.nat(),
  kind: fc.constantFrom(...Object.keys(KINDS)),
  // Up to the limit; one byte over it, chunked (counted while read); or a Content-Length over it with nothing sent.
  size: fc.oneof(fc.constantFrom(0.001, 0.1, 0.5, 1), fc.constant('over' as const), fc.constant('declared' as const)),
  who: fc.constantFrom('viewer' as const, 'admin' as const),
})

describe('every JSON route, fuzzed with extreme bodies', () => {
  it('never a 5xx, deep bodies never admitted, /health on time, memory bounded', async () => {
    expect(operations.length).toBeGreaterThan(70)
    const before = memoryOf(server.pid)
    const probes = probeHealth(server)
    const seen = new Set<string>()
    try {
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          const { method, path } = operations[r.operation % operations.length]!
          const who = credentials(path, r.who)
          // The import routes' full 32 MiB is the stalls test's; here at most 2 MiB of them.
          const limit = limitOf(path)
          const kind = KINDS[r.kind]!
          const size = typeof r.size === 'number' ? Math.min(limit * r.size, 2 * MiB) : r.size
          let body = size === 'declared' ? Buffer.alloc(0) : kind.make(size === 'over' ? Math.min(limit, 2 * MiB) : size)
          if (size === 'over' && body.length <= limit) body = Buffer.concat([body, Buffer.alloc(limit + 1 - body.length, ' ')])
          const length: Record<string, string> = size === 'over'
            ? { 'transfer-encoding': 'chunked' }
            : { 'content-length': String(size === 'declared' ? limit + 1 : body.length) }
          const res = await rawUpload(server.port, {
            method,
            target: target(path),
            headers: { authorization: secrets[who], 'content-type': 'application/json', ...length },
            body: size === 'over' ? chunked(body) : body,
          })
          const where = `${method} ${path} as ${who}, ${r.kind}, ${typeof size === 'number' ? body.length : size} → ${res.status} ${res.body.slice(0, 200)}`
          seen.add(`${method} ${path}`)
          expect(res.status, where).toBeLessThan(500)
          // A body over the limit (chunked, or a kind a few bytes larger than the size asked) is
          // refused as it comes and the connection closed while the client still sends: its
          // kernel may then drop the answer (status 0, a reset). Nothing else may end that way.
          if (res.status === 0) {
            expect(size === 'over' || body.length > limit, where).toBe(true)
            return
          }
          if (size === 'declared' || size === 'over') expect([...(kind.deep ? [400] : []), 401, 403, 413], where).toContain(res.status)
          if (kind.deep && size !== 'declared' && path !== '/logout') expect(res.status, where).toBeGreaterThanOrEqual(400)
          if (kind.deep && res.status === 400) expect(res.body, where).toMatch(/nested more than 32 levels deep/)
        }),
        { numRuns: fuzzRuns(250) }
      )
    } finally {
      const health = await probes.stop()
      const after = memoryOf(server.pid)
      expect(health.statuses.every((s) => s === 200)).toBe(true)
      // The server's event loop never ran 100 ms without a turn (see probeHealth); every /health answered within 5 s whatever the machine does.
      expect(health.heldMs).toBeLessThan(100)
      expect(health.slowestMs).toBeLessThan(5000)
      expect(after.peak - before.peak).toBeLessThan(128 * MiB)
    }
    expect(seen.size).toBeGreaterThan(40)
  }, fuzzTimeout * 2)
})
