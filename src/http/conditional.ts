import type { FastifyReply } from 'fastify'
import { ApiError } from '../errors.js'
import { ifMatchHolds, notModified } from './etag.js'

/**
 * A conditional read, for every route that answers with an ETag: the ETag is sent; when the
 * request's If-None-Match holds for it (weak comparison) the answer is 304 without a body and
 * `body` is never computed; otherwise 200 with the JSON (text, or bytes already encoded) `body`
 * gives, or the bytes of another `type` (the UI's files).
 */
export async function replyConditionally (
  reply: FastifyReply,
  ifNoneMatch: string | undefined,
  etag: string,
  body: () => string | Buffer | Promise<string | Buffer>,
  type = 'application/json; charset=utf-8'
) {
  reply.header('etag', etag)
  if (ifNoneMatch !== undefined && notModified(ifNoneMatch, etag)) return reply.code(304).send()
  return reply.type(type).send(await body())
}

/**
 * A conditional write, for every write that honours If-Match: 412 unless the header (when sent)
 * holds for the current ETag (strong comparison). Call it with the thing locked, so that the
 * ETag cannot move before the write.
 */
export function requireIfMatch (ifMatch: string | undefined, etag: string): void {
  if (ifMatch !== undefined && !ifMatchHolds(ifMatch, etag)) {
    throw new ApiError('PreconditionFailedError', `If-Match ${ifMatch} does not match the current ETag ${etag}`)
  }
}
