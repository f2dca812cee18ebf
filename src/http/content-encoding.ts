import type { IncomingMessage } from 'node:http'
import { Transform, type TransformCallback } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import type { FastifyRequest, preParsingHookHandler } from 'fastify'
import { ApiError } from '../errors.js'

/** The content codings a request body may have (RFC 9110 §8.4.1), as Unleash's body parser takes them. */
const DECODERS = { gzip: createGunzip, 'x-gzip': createGunzip, deflate: createInflate, br: createBrotliDecompress } as const

const hasBody = (request: FastifyRequest) =>
  request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0')

/**
 * The decoded body as it comes, refused once it is larger than `limit`: the decoding stops
 * there, so a small body that would inflate to gigabytes (a zip bomb) is never inflated whole.
 * `receivedEncodedLength` tells Fastify how many bytes arrived, for its Content-Length check.
 */
class Decoded extends Transform {
  receivedEncodedLength = 0
  #bytes = 0

  constructor (private readonly limit: number) {
    super()
  }

  override _transform (chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.#bytes += chunk.length
    if (this.#bytes > this.limit) return done(new ApiError('PayloadTooLargeError', `The request body, decoded as its Content-Encoding says, is larger than the limit of ${this.limit} bytes`))
    done(null, chunk)
  }
}

/**
 * Every route's request body is decoded as its Content-Encoding says before it is parsed
 * (Fastify reads the bytes as they come, whatever the header): gzip (or x-gzip), deflate and
 * br are decoded, identity is the body as it is; any other coding is 415. A body that is not
 * what its header says (plain JSON labelled gzip) is 400; a decoded body larger than the
 * route's body limit is 413, refused as soon as the decoding passes the limit.
 */
export const decodeContentEncoding: preParsingHookHandler = (request, _reply, payload, done) => {
  const coding = request.headers['content-encoding']?.trim().toLowerCase()
  if (coding === undefined || coding === '' || coding === 'identity' || !hasBody(request)) return done(null, payload)
  if (!Object.hasOwn(DECODERS, coding)) {
    return done(new ApiError('ContentTypeError', `Content-Encoding ${coding} is not supported: send the body as it is, or encoded with gzip, deflate or br`), undefined)
  }
  const source = payload as IncomingMessage
  const decoder = DECODERS[coding as keyof typeof DECODERS]()
  const decoded = new Decoded(request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY)
  source.on('data', (chunk: Buffer) => { decoded.receivedEncodedLength += chunk.length })
  decoder.on('error', () => decoded.destroy(new ApiError('BadDataError', `The request body is not ${coding} data, as its Content-Encoding says`)))
  decoded.on('error', () => {
    source.unpipe(decoder)
    decoder.destroy()
    // What is left of the body is read and dropped, not decoded, so that the refusal can be answered.
    source.resume()
  })
  source.pipe(decoder).pipe(decoded)
  done(null, decoded)
}
