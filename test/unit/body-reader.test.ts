import { Readable } from 'node:stream'
import type { FastifyRequest } from 'fastify'
import { describe, expect, it } from 'vitest'
import { readJsonBody } from '../../src/http/body-reader.js'

/** What readJsonBody answers for a body arriving in these pieces, and how much of it was read. */
function read (pieces: (string | Uint8Array)[], options: { limit?: number; contentLength?: number; hasBody?: boolean } = {}) {
  let pulled = 0
  const payload = new Readable({
    read () {
      const next = pieces[pulled++]
      this.push(next === undefined ? null : next)
    },
  })
  const request = {
    headers: options.contentLength === undefined ? {} : { 'content-length': String(options.contentLength) },
    routeOptions: { bodyLimit: options.limit ?? 1000, schema: options.hasBody === false ? {} : { body: {} } },
  } as unknown as FastifyRequest
  return new Promise<{ error?: { status?: number; message: string }; body?: unknown; pulled: number }>((resolve) => {
    readJsonBody(request, payload, (error, body) => resolve({ ...(error ? { error: error as never } : { body }), pulled }))
  })
}

describe('readJsonBody', () => {
  it('parses a body arriving in pieces, strings and byte arrays alike, split inside a character', async () => {
    const bytes = Buffer.from('{"name":"é😀","list":[1,2]}')
    const cut = bytes.indexOf(0xf0) + 2
    expect(await read([bytes.subarray(0, cut), new Uint8Array(bytes.subarray(cut, cut + 3)), bytes.subarray(cut + 3)])).toMatchObject({ body: { name: 'é😀', list: [1, 2] } })
    expect(await read(['[', '"a"', ']'])).toMatchObject({ body: ['a'] })
  })

  it('a declared Content-Length over the limit: 413 before a byte is read', async () => {
    const result = await read(['[1]'], { limit: 10, contentLength: 11 })
    expect(result.error).toMatchObject({ status: 413, message: 'The request body is larger than the limit' })
    expect(result.pulled).toBe(0)
  })

  it('bytes over the limit without a Content-Length: 413 at the first piece over it, the rest not read', async () => {
    const result = await read(['[1,', '2,', '3,', '4]', ...Array.from({ length: 100 }, () => ' ')], { limit: 8 })
    expect(result.error).toMatchObject({ status: 413 })
    expect(result.pulled).toBeLessThan(10)
  })

  it('too deep: refused naming the byte, the rest read to its end but not kept', async () => {
    const result = await read(['{"a":', '['.repeat(40), ']'.repeat(40), '}'], { limit: 1000 })
    expect(result.error).toMatchObject({ status: 400, message: '/body is nested more than 32 levels deep (at byte 36)' })
    expect(result.pulled).toBe(5)
  })

  it('a body that does not match its Content-Length, an empty body, and none on a route that takes none', async () => {
    expect((await read(['[1]'], { contentLength: 4 })).error?.message).toBe('The request body has 3 bytes; its Content-Length says 4')
    expect((await read([])).error?.message).toBe('The request body is empty; send JSON')
    expect(await read([], { hasBody: false })).toMatchObject({ body: undefined })
    expect((await read(['{"a":'])).error?.message).toMatch(/^The request body is not valid JSON/)
  })
})
