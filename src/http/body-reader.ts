import type { Readable } from 'node:stream'
import type { FastifyRequest } from 'fastify'
import { badData, payloadTooLarge } from '../errors.js'
import { NestingCounter, parseJsonBody, tooDeep } from './json-body.js'

/** The body as it arrives: the request, or what a preParsing hook made of it (a decoder counts what it read). */
type Payload = Readable & { receivedEncodedLength?: number }

/**
 * The JSON body parser of every route, reading the body itself (not Fastify's reader) so that
 * nothing costly waits for the whole of it: a declared Content-Length over the route's limit
 * (`bodyLimit`, larger on the import routes) is a 413 before a byte is read; the bytes read
 * are counted against it as they come (413 at the first one over); their nesting is counted
 * as they come (NestingCounter: 400 at the first level too deep, the rest never read). Then
 * the text is parsed and checked (parseJsonBody). A route that takes no body accepts JSON's
 * content type with nothing after it, as Unleash does (its admin UI and many HTTP clients
 * send that on …/on, DELETE, …). A refusal while reading closes the connection (Fastify adds
 * `Connection: close` to a parser's errors), so the client's remaining bytes are not read.
 */
export function readJsonBody (request: FastifyRequest, payload: Payload, done: (error: Error | null, body?: unknown) => void): void {
  const limit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY
  const declared = Number(request.headers['content-length'])
  if (declared > limit) return done(payloadTooLarge())
  const nesting = new NestingCounter()
  const chunks: Buffer[] = []
  let received = 0
  const stop = () => {
    payload.removeListener('data', onData)
    payload.removeListener('end', onEnd)
    payload.removeListener('error', onEnd)
  }
  function onData (data: Buffer | string) {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data
    received += chunk.length
    if (received > limit || (payload.receivedEncodedLength ?? 0) > limit) {
      stop()
      return done(payloadTooLarge())
    }
    const at = nesting.feed(chunk)
    if (at >= 0) {
      stop()
      return done(tooDeep('/body', received - chunk.length + at))
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
