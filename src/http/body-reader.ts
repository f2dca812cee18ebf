import type { Readable } from 'node:stream'
import type { FastifyRequest } from 'fastify'
import { badData, payloadTooLarge } from '../errors.js'
import { JsonShapeCounter, parseJsonBody } from './json-body.js'

/** The body as it arrives: the request, or what a preParsing hook made of it (a decoder counts what it read). */
type Payload = Readable & { receivedEncodedLength?: number }

/**
 * The JSON body parser of every route, reading the body itself (not Fastify's reader) so that
 * nothing costly waits for the whole of it:
 * - a declared Content-Length over the route's limit (`bodyLimit`, larger on the import
 *   routes) is a 413 before a byte is read; bytes over it (a chunked body) a 413 as they come;
 *   both close the connection (Fastify adds `Connection: close` to a parser's errors), since
 *   what follows is not read;
 * - the shape is counted as the bytes come (JsonShapeCounter: nesting, values, member names):
 *   from the first byte over one of its limits on, the rest of the body (at most the limit)
 *   is read but neither kept nor looked at, then refused with a 400 (read to its end, so that
 *   the client, still sending, gets the answer rather than a reset connection);
 * - then the text is parsed and checked (parseJsonBody).
 * A route that takes no body accepts JSON's content type with nothing after it, as Unleash does
 * (its admin UI and many HTTP clients send that on …/on, DELETE, …).
 */
export function readJsonBody (request: FastifyRequest, payload: Payload, done: (error: Error | null, body?: unknown) => void): void {
  const limit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY
  const declared = Number(request.headers['content-length'])
  if (declared > limit) return done(payloadTooLarge())
  const shape = new JsonShapeCounter()
  const chunks: Buffer[] = []
  let received = 0
  let refusal: Error | undefined
  const stop = () => {
    payload.removeListener('data', onData)
    payload.removeListener('end', onEnd)
    payload.removeListener('error', onEnd)
  }
  function onData (data: Uint8Array | string) {
    // A decoding stream (a preParsing hook's) may hand strings or plain byte arrays.
    const chunk = typeof data === 'string' ? Buffer.from(data) : Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    received += chunk.length
    if (received > limit || (payload.receivedEncodedLength ?? 0) > limit) {
      stop()
      return done(payloadTooLarge())
    }
    if (refusal) return
    const at = shape.feed(chunk)
    if (at >= 0) {
      refusal = shape.refusal('/body', received - chunk.length + at)
      chunks.length = 0
      return
    }
    chunks.push(chunk)
  }
  function onEnd (error?: Error & { statusCode?: number }) {
    stop()
    if (error) {
      // The client went away or a decoder failed: a client error, whatever it says.
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400
      return done(error)
    }
    if (refusal) return done(refusal)
    if (!Number.isNaN(declared) && (payload.receivedEncodedLength || received) !== declared) {
      return done(badData(`The request body has ${received} bytes; its Content-Length says ${declared}`))
    }
    if (received === 0 && request.routeOptions.schema?.body === undefined) return done(null, undefined)
    const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, received).toString('utf8')
    try {
      done(null, parseJsonBody(text))
    } catch (err) {
      done(err as Error)
    }
  }
  payload.on('data', onData)
  payload.on('end', onEnd)
  payload.on('error', onEnd)
  payload.resume()
}
